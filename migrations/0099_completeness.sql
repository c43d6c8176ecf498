CREATE TABLE `fpa_anomalies` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`punch_id` text NOT NULL,
	`enrollee_id` text NOT NULL,
	`employee_key` text,
	`device_serial` text,
	`at` integer NOT NULL,
	`date` text NOT NULL,
	`details` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fpa_anomalies_at` ON `fpa_anomalies` (`at`,`id`);--> statement-breakpoint
CREATE INDEX `fpa_anomalies_punch` ON `fpa_anomalies` (`punch_id`);--> statement-breakpoint
CREATE INDEX `fpa_anomalies_enrollee` ON `fpa_anomalies` (`enrollee_id`,`at`);--> statement-breakpoint
CREATE TABLE `fpa_punch_counts` (
	`device_id` text PRIMARY KEY NOT NULL,
	`reported_count` integer,
	`reported_at` integer,
	`agreed_at` integer,
	`agreed_count` integer,
	`agreed_sequence` integer,
	`gap_since` integer,
	`gap_missing` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `fpa_punch_recoveries` (
	`id` text PRIMARY KEY NOT NULL,
	`device_id` text NOT NULL,
	`reason` text NOT NULL,
	`from_time` text NOT NULL,
	`to_time` text NOT NULL,
	`command_id` integer,
	`status` text NOT NULL,
	`missing` integer,
	`recovered` integer,
	`return_code` integer,
	`sequence_at_queue` integer NOT NULL,
	`queued_at` integer NOT NULL,
	`answered_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `fpa_punch_recoveries_device` ON `fpa_punch_recoveries` (`device_id`,`queued_at`);--> statement-breakpoint
CREATE INDEX `fpa_punch_recoveries_command` ON `fpa_punch_recoveries` (`command_id`);--> statement-breakpoint
CREATE TABLE `fpa_punch_days` (
	`device_id` text NOT NULL,
	`date` text NOT NULL,
	`reported` integer NOT NULL,
	`reported_at` integer NOT NULL,
	`recovered` integer NOT NULL,
	PRIMARY KEY(`device_id`, `date`)
);
--> statement-breakpoint
CREATE TABLE `fpa_server_heartbeat` (
	`id` integer PRIMARY KEY NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
-- Terminals approved before this release: the count they last reported is where completeness starts.
INSERT INTO `fpa_punch_counts` (`device_id`, `reported_count`, `reported_at`, `updated_at`)
SELECT `id`, `attendance_count`, `updated_at`, `updated_at` FROM `fpa_devices` WHERE `attendance_count` IS NOT NULL;
