ALTER TABLE `fpa_device_users` ADD `refused_for` text;--> statement-breakpoint
ALTER TABLE `fpa_device_users` ADD `refused` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
CREATE INDEX `fpa_device_users_refused_for` ON `fpa_device_users` (`refused_for`);