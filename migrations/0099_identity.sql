ALTER TABLE `fpa_devices` ADD `pinned_ip` text;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `unconfirmed_ip` text;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `unconfirmed_ip_at` integer;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `registered_ip` text;--> statement-breakpoint
CREATE INDEX `fpa_devices_pending_address` ON `fpa_devices` (`status`,`registered_ip`);--> statement-breakpoint
UPDATE `fpa_devices` SET `keyed_ip` = NULL;--> statement-breakpoint
UPDATE `fpa_device_keys` SET `hint` = '';
