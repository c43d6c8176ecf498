CREATE TABLE `fpa_removed_devices` (
	`serial_number` text PRIMARY KEY NOT NULL,
	`device_id` text NOT NULL,
	`removed_at` integer NOT NULL,
	`removed_by` text NOT NULL,
	`facts` text NOT NULL
);
--> statement-breakpoint
DROP INDEX `fpa_days_date`;--> statement-breakpoint
CREATE INDEX `fpa_days_date_enrollee` ON `fpa_attendance_days` ("date" desc,`enrollee_id`);--> statement-breakpoint
ALTER TABLE `fpa_device_users` ADD `held_before` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `device_type` text;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `pinned_ip` text;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `unconfirmed_ip` text;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `unconfirmed_ip_at` integer;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `registered_ip` text;--> statement-breakpoint
CREATE INDEX `fpa_devices_pending_address` ON `fpa_devices` (`status`,`registered_ip`);--> statement-breakpoint
ALTER TABLE `fpa_enrollees` ADD `pin_allocated` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `previous_secret` text;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `previous_secret_until` integer;--> statement-breakpoint
ALTER TABLE `fpa_webhook_messages` ADD `failing_since` integer;--> statement-breakpoint
-- Data carried forward (issue 23). `enrollee_deleted` no longer keeps the deleted person's name,
-- PIN and card in the log (only the id and employee key): the events recorded before lose them.
UPDATE `fpa_events` SET `data` = json_remove(`data`, '$.enrollee.device_pin', '$.enrollee.display_name', '$.enrollee.card')
WHERE `type` = 'enrollee_deleted';--> statement-breakpoint
-- Keys are no longer trusted by the address that last presented one, and no digit of a key is kept.
UPDATE `fpa_devices` SET `keyed_ip` = NULL;--> statement-breakpoint
UPDATE `fpa_device_keys` SET `hint` = '';--> statement-breakpoint
-- An enrollee made by adopting a terminal user kept that terminal's PIN: the service did not hand it out.
UPDATE `fpa_enrollees` SET `pin_allocated` = 0 WHERE `id` IN (SELECT json_extract(a.`details`, '$.enrollee') FROM `fpa_audit_log` a JOIN `fpa_audit_log` c ON c.`action` = 'enrollee.created' AND c.`target_type` = 'enrollee' AND c.`target_id` = json_extract(a.`details`, '$.enrollee') AND c.`created_at` = a.`created_at` WHERE a.`action` = 'device.user_adopted');--> statement-breakpoint
-- Unlinked terminal users listed before this release stay the terminal's own.
UPDATE `fpa_device_users` SET `held_before` = 1 WHERE `enrollee_id` IS NULL;--> statement-breakpoint
-- Cards as terminals hold them (an unsigned 32-bit number): leading zeros go where the card is
-- decimal digits, no two people then share it, and the number is one a terminal can hold (1 to
-- 4294967295: ten digits at most, compared as text); the others are left as they were, for an
-- administrator to fix.
UPDATE `fpa_enrollees` SET `card` = ltrim(`card`, '0') WHERE `card` GLOB '0*' AND ltrim(`card`, '0') != '' AND `card` NOT GLOB '*[^0-9]*' AND (length(ltrim(`card`, '0')) < 10 OR (length(ltrim(`card`, '0')) = 10 AND ltrim(`card`, '0') <= '4294967295')) AND (SELECT count(*) FROM `fpa_enrollees` o WHERE ltrim(o.`card`, '0') = ltrim(`fpa_enrollees`.`card`, '0')) = 1;
