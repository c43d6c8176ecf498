-- The address a terminal reports for itself (`IPAddress` of its INFO or options) gets a column of
-- its own: `ip_address` is what the service sees (the TCP peer of the terminal's trusted
-- requests), which earlier releases overwrote with the reported one on every INFO. Filled from the
-- options or INFO reply already kept in `parameters`, as the service reads it (`IPAddress`, else
-- `~IPAddress`, trimmed, not empty); a terminal whose `ip_address` holds the reported address has
-- it replaced by its peer address at its next trusted request. One pass over the terminals.
ALTER TABLE `fpa_devices` ADD `reported_address` text;--> statement-breakpoint
UPDATE `fpa_devices`
SET `reported_address` = CASE
  WHEN json_type(`parameters`, '$.IPAddress') = 'text' AND trim(json_extract(`parameters`, '$.IPAddress')) <> ''
    THEN trim(json_extract(`parameters`, '$.IPAddress'))
  WHEN json_type(`parameters`, '$."~IPAddress"') = 'text' AND trim(json_extract(`parameters`, '$."~IPAddress"')) <> ''
    THEN trim(json_extract(`parameters`, '$."~IPAddress"'))
END
WHERE json_valid(`parameters`);
