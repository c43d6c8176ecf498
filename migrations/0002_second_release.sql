CREATE TABLE `fpa_pay_periods` (
	`id` text PRIMARY KEY NOT NULL,
	`from_date` text NOT NULL,
	`to_date` text NOT NULL,
	`locked` integer DEFAULT false NOT NULL,
	`locked_at` integer,
	`locked_by` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fpa_pay_periods_from` ON `fpa_pay_periods` (`from_date`);--> statement-breakpoint
CREATE TABLE `fpa_area_weekends` (
	`id` text PRIMARY KEY NOT NULL,
	`area_id` text NOT NULL,
	`from_date` text NOT NULL,
	`days` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_area_weekends_area_from` ON `fpa_area_weekends` (`area_id`,`from_date`);--> statement-breakpoint
CREATE TABLE `fpa_holidays` (
	`id` text PRIMARY KEY NOT NULL,
	`date` text NOT NULL,
	`name` text NOT NULL,
	`recurring` integer DEFAULT false NOT NULL,
	`cancelled` integer DEFAULT false NOT NULL,
	`area_ids` text NOT NULL,
	`enrollee_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fpa_holidays_date` ON `fpa_holidays` (`date`);--> statement-breakpoint
CREATE TABLE `fpa_leaves` (
	`id` text PRIMARY KEY NOT NULL,
	`enrollee_id` text NOT NULL,
	`from_date` text NOT NULL,
	`to_date` text NOT NULL,
	`kind` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fpa_leaves_enrollee` ON `fpa_leaves` (`enrollee_id`,`from_date`);--> statement-breakpoint
CREATE TABLE `fpa_shift_assignments` (
	`id` text PRIMARY KEY NOT NULL,
	`schedule_id` text NOT NULL,
	`enrollee_id` text,
	`area_id` text,
	`from_date` text NOT NULL,
	`to_date` text,
	`priority` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fpa_shift_assignments_enrollee` ON `fpa_shift_assignments` (`enrollee_id`);--> statement-breakpoint
CREATE INDEX `fpa_shift_assignments_area` ON `fpa_shift_assignments` (`area_id`);--> statement-breakpoint
CREATE INDEX `fpa_shift_assignments_schedule` ON `fpa_shift_assignments` (`schedule_id`);--> statement-breakpoint
CREATE TABLE `fpa_work_schedules` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`start` text NOT NULL,
	`end` text NOT NULL,
	`grace_in_ms` integer NOT NULL,
	`grace_out_ms` integer NOT NULL,
	`break_ms` integer NOT NULL,
	`weekdays` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_work_schedules_name_unique` ON `fpa_work_schedules` (`name`);--> statement-breakpoint
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
CREATE TABLE `fpa_webhook_messages` (
	`endpoint_id` text NOT NULL,
	`event_sequence` integer NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`event_at` integer NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_until` integer,
	`claim_token` text,
	`last_error` text,
	`created_at` integer NOT NULL,
	`delivered_at` integer,
	PRIMARY KEY(`endpoint_id`, `event_sequence`)
);
--> statement-breakpoint
CREATE INDEX `fpa_webhook_messages_due` ON `fpa_webhook_messages` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `fpa_webhook_messages_status` ON `fpa_webhook_messages` (`endpoint_id`,`status`,`event_sequence`);--> statement-breakpoint
DROP TABLE `fpa_webhook_outbox`;--> statement-breakpoint
DROP INDEX `fpa_templates_finger`;--> statement-breakpoint
ALTER TABLE `fpa_templates` ADD `type` text DEFAULT 'fingerprint' NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_templates` ADD `slot` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_templates_part` ON `fpa_templates` (`enrollee_id`,`type`,`finger_index`,`slot`,`algorithm_version`);--> statement-breakpoint
DROP INDEX `fpa_punches_enrollee`;--> statement-breakpoint
ALTER TABLE `fpa_punches` ADD `source` text DEFAULT 'device' NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_punches` ADD `voided` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `fpa_punches_enrollee` ON `fpa_punches` (`enrollee_id`,`punched_at`,`voided`,`source`);--> statement-breakpoint
ALTER TABLE `fpa_areas` ADD `description` text;--> statement-breakpoint
ALTER TABLE `fpa_attendance_days` ADD `schedule` text;--> statement-breakpoint
ALTER TABLE `fpa_attendance_days` ADD `expected_seconds` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_attendance_days` ADD `late_seconds` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_attendance_days` ADD `early_leave_seconds` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_attendance_days` ADD `overtime_seconds` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `clock_drift_seconds` integer;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `enrollment_station` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `keyed_ip` text;--> statement-breakpoint
ALTER TABLE `fpa_enrollees` ADD `card` text;--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_enrollees_card` ON `fpa_enrollees` (`card`);--> statement-breakpoint
ALTER TABLE `fpa_enrollment_sessions` ADD `biometric` text DEFAULT 'fingerprint' NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_webhook_deliveries` RENAME COLUMN "outbox_id" TO "message_id";--> statement-breakpoint
ALTER TABLE `fpa_webhook_deliveries` ADD `count` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `start_sequence` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `position` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `next_attempt_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `lease_until` integer;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `claim_token` text;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `last_error` text;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `last_delivered_at` integer;