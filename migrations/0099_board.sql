DROP INDEX IF EXISTS `fpa_enrollees_employee`;--> statement-breakpoint
CREATE INDEX `fpa_enrollees_employee` ON `fpa_enrollees` (`employee_key`,`id`);--> statement-breakpoint
CREATE INDEX `fpa_enrollees_name` ON `fpa_enrollees` ("display_name" collate nocase,`id`);--> statement-breakpoint
CREATE INDEX `fpa_enrollees_pin_number` ON `fpa_enrollees` (cast("device_pin" as integer),`id`);--> statement-breakpoint
CREATE INDEX `fpa_enrollees_created` ON `fpa_enrollees` (`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `fpa_punches` ADD `correction_reason` text;--> statement-breakpoint
UPDATE `fpa_punches` SET `correction_reason` = (
  SELECT json_extract(l.`details`, '$.reason') FROM `fpa_audit_log` l
  WHERE l.`target_type` = 'punch' AND l.`target_id` = `fpa_punches`.`id` AND l.`action` IN ('punch.manual', 'punch.voided')
  ORDER BY l.`id` DESC LIMIT 1
) WHERE `id` IN (SELECT `target_id` FROM `fpa_audit_log` WHERE `target_type` = 'punch' AND `action` IN ('punch.manual', 'punch.voided'));
