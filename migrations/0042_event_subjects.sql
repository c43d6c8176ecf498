-- Whom each event is about, in columns of its own (events/subjects.ts): the person (enrollee id)
-- and the terminal (serial number). `events/?order=desc` answers a caller limited to areas on
-- them, in the query, instead of reading and filtering every event's data. The events the log
-- holds get theirs here, as the server records them from now on: a punch's (kept in the log as a
-- reference to its row) from its row, a punch purged since keeping none (the log shows it as
-- null and no area sees it); every other event's from its data. One pass over the log (11 s
-- for 1,300,000 events here).
ALTER TABLE `fpa_events` ADD `about_enrollee` text;--> statement-breakpoint
ALTER TABLE `fpa_events` ADD `about_device` text;--> statement-breakpoint
UPDATE `fpa_events` SET
  `about_enrollee` = `p`.`enrollee_id`,
  `about_device` = CASE WHEN `p`.`device_id` = '' THEN NULL ELSE `p`.`device_serial` END
FROM `fpa_punches` AS `p`
WHERE `fpa_events`.`type` IN ('punch_received', 'punch_voided')
  AND `p`.`sequence` = coalesce(`fpa_events`.`data` ->> '$.punch_sequence', `fpa_events`.`data` ->> '$.punch.sequence');--> statement-breakpoint
UPDATE `fpa_events` SET
  `about_enrollee` = coalesce(
    CASE json_type(`data`, '$.enrollee') WHEN 'text' THEN nullif(`data` ->> '$.enrollee', '') WHEN 'object' THEN `data` ->> '$.enrollee.id' END,
    CASE json_type(`data`, '$.punch.enrollee') WHEN 'text' THEN nullif(`data` ->> '$.punch.enrollee', '') WHEN 'object' THEN `data` ->> '$.punch.enrollee.id' END,
    CASE json_type(`data`, '$.day.enrollee') WHEN 'text' THEN nullif(`data` ->> '$.day.enrollee', '') WHEN 'object' THEN `data` ->> '$.day.enrollee.id' END,
    CASE json_type(`data`, '$.anomaly.enrollee') WHEN 'text' THEN nullif(`data` ->> '$.anomaly.enrollee', '') WHEN 'object' THEN `data` ->> '$.anomaly.enrollee.id' END
  ),
  `about_device` = coalesce(
    CASE json_type(`data`, '$.device') WHEN 'text' THEN nullif(`data` ->> '$.device', '') WHEN 'object' THEN `data` ->> '$.device.serial_number' END,
    CASE json_type(`data`, '$.punch.device') WHEN 'text' THEN nullif(`data` ->> '$.punch.device', '') WHEN 'object' THEN `data` ->> '$.punch.device.serial_number' END,
    CASE json_type(`data`, '$.sender') WHEN 'text' THEN nullif(`data` ->> '$.sender', '') WHEN 'object' THEN `data` ->> '$.sender.serial_number' END,
    CASE json_type(`data`, '$.anomaly.device') WHEN 'text' THEN nullif(`data` ->> '$.anomaly.device', '') WHEN 'object' THEN `data` ->> '$.anomaly.device.serial_number' END
  )
WHERE `type` NOT IN ('punch_received', 'punch_voided');
