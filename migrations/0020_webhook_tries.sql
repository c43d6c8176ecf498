ALTER TABLE `fpa_webhook_endpoints` ADD `tries` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- An endpoint failing at the upgrade: its first event after the position keeps the attempts
-- counted so far (the events behind it were not counted before this release).
UPDATE `fpa_webhook_endpoints` SET `tries` = json_array(json_array(`next`, `attempts`))
FROM (
  SELECT w.`id` AS `endpoint`, (
    SELECT min(e.`sequence`) FROM `fpa_events` e
    WHERE e.`sequence` > w.`position` AND e.`type` IN (SELECT value FROM json_each(w.`events`))
  ) AS `next`
  FROM `fpa_webhook_endpoints` w WHERE w.`attempts` > 0
) AS `heads`
WHERE `fpa_webhook_endpoints`.`id` = `heads`.`endpoint` AND `heads`.`next` IS NOT NULL;
