CREATE TABLE `fpa_console_links` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`actor` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE INDEX `fpa_console_links_expires` ON `fpa_console_links` (`expires_at`);--> statement-breakpoint
CREATE TABLE `fpa_console_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`actor` text NOT NULL,
	`origin` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`idle_timeout_ms` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`ended_at` integer
);
--> statement-breakpoint
CREATE INDEX `fpa_console_sessions_expires` ON `fpa_console_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `fpa_device_clock_offsets` (
	`device_id` text NOT NULL,
	`since` integer NOT NULL,
	`offset_minutes` integer NOT NULL,
	PRIMARY KEY(`device_id`, `since`)
);
--> statement-breakpoint
CREATE TABLE `fpa_device_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`device_id` text NOT NULL,
	`digest` text NOT NULL,
	`hint` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE INDEX `fpa_device_keys_device` ON `fpa_device_keys` (`device_id`);--> statement-breakpoint
CREATE TABLE `fpa_device_users` (
	`device_id` text NOT NULL,
	`pin` text NOT NULL,
	`name` text,
	`card` text,
	`privilege` integer,
	`biometrics` text NOT NULL,
	`enrollee_id` text,
	`source` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`device_id`, `pin`)
);
--> statement-breakpoint
CREATE INDEX `fpa_device_users_pin` ON `fpa_device_users` (`pin`);--> statement-breakpoint
CREATE INDEX `fpa_device_users_enrollee` ON `fpa_device_users` (`enrollee_id`);--> statement-breakpoint
CREATE TABLE `fpa_events` (
	`sequence` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`at` integer NOT NULL,
	`data` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `fpa_log_followers` (
	`name` text PRIMARY KEY NOT NULL,
	`position` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
DROP INDEX `fpa_templates_finger`;--> statement-breakpoint
ALTER TABLE `fpa_templates` ADD `type` text DEFAULT 'fingerprint' NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_templates` ADD `slot` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_templates_part` ON `fpa_templates` (`enrollee_id`,`type`,`finger_index`,`slot`,`algorithm_version`);--> statement-breakpoint
ALTER TABLE `fpa_areas` ADD `description` text;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `clock_drift_seconds` integer;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `enrollment_station` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `keyed_ip` text;--> statement-breakpoint
ALTER TABLE `fpa_enrollees` ADD `card` text;--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_enrollees_card` ON `fpa_enrollees` (`card`);--> statement-breakpoint
ALTER TABLE `fpa_enrollment_sessions` ADD `biometric` text DEFAULT 'fingerprint' NOT NULL;