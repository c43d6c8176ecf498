ALTER TABLE `fpa_enrollees` ADD `pin_allocated` integer DEFAULT true NOT NULL;--> statement-breakpoint
UPDATE `fpa_enrollees` SET `pin_allocated` = 0 WHERE `id` IN (SELECT json_extract(a.`details`, '$.enrollee') FROM `fpa_audit_log` a JOIN `fpa_audit_log` c ON c.`action` = 'enrollee.created' AND c.`target_type` = 'enrollee' AND c.`target_id` = json_extract(a.`details`, '$.enrollee') AND c.`created_at` = a.`created_at` WHERE a.`action` = 'device.user_adopted');--> statement-breakpoint
ALTER TABLE `fpa_device_users` ADD `held_before` integer DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE `fpa_device_users` SET `held_before` = 1 WHERE `enrollee_id` IS NULL;
--> statement-breakpoint
UPDATE `fpa_enrollees` SET `card` = ltrim(`card`, '0') WHERE `card` GLOB '0*' AND ltrim(`card`, '0') != '' AND (SELECT count(*) FROM `fpa_enrollees` o WHERE ltrim(o.`card`, '0') = ltrim(`fpa_enrollees`.`card`, '0')) = 1;
