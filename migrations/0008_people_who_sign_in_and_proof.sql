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
CREATE TABLE `fpa_punch_days` (
	`device_id` text NOT NULL,
	`date` text NOT NULL,
	`reported` integer NOT NULL,
	`reported_at` integer NOT NULL,
	`recovered` integer NOT NULL,
	PRIMARY KEY(`device_id`, `date`)
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
CREATE TABLE `fpa_server_heartbeat` (
	`id` integer PRIMARY KEY NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `fpa_deletion_proof_terminals` (
	`enrollee_id` text NOT NULL,
	`device_id` text NOT NULL,
	`serial_number` text NOT NULL,
	`status` text NOT NULL,
	`awaiting` text NOT NULL,
	`command` text,
	`confirmed_at` integer,
	PRIMARY KEY(`enrollee_id`, `device_id`)
);
--> statement-breakpoint
CREATE INDEX `fpa_deletion_proof_terminals_device` ON `fpa_deletion_proof_terminals` (`device_id`,`status`);--> statement-breakpoint
CREATE TABLE `fpa_deletion_proofs` (
	`enrollee_id` text PRIMARY KEY NOT NULL,
	`employee` text,
	`pin` text,
	`area_ids` text NOT NULL,
	`reason` text NOT NULL,
	`requested_at` integer NOT NULL,
	`templates_destroyed` integer NOT NULL,
	`destroyed_at` integer NOT NULL,
	`completed_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fpa_deletion_proofs_requested` ON `fpa_deletion_proofs` (`requested_at`);--> statement-breakpoint
CREATE TABLE `fpa_proof_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`public_jwk` text NOT NULL,
	`private_sealed` text NOT NULL,
	`created_at` integer NOT NULL,
	`retired_at` integer
);
--> statement-breakpoint
CREATE TABLE `fpa_passkeys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`public_key` blob NOT NULL,
	`counter` integer NOT NULL,
	`transports` text NOT NULL,
	`backed_up` integer NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer
);
--> statement-breakpoint
CREATE INDEX `fpa_passkeys_user` ON `fpa_passkeys` (`user_id`);--> statement-breakpoint
CREATE TABLE `fpa_recovery_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE INDEX `fpa_recovery_codes_user` ON `fpa_recovery_codes` (`user_id`);--> statement-breakpoint
CREATE TABLE `fpa_required_factor_roles` (
	`role` text PRIMARY KEY NOT NULL,
	`set_by` text NOT NULL,
	`set_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `fpa_sign_in_states` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`user_id` text,
	`challenge` text,
	`data` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fpa_sign_in_states_expires` ON `fpa_sign_in_states` (`expires_at`);--> statement-breakpoint
CREATE TABLE `fpa_user_totp` (
	`user_id` text PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	`created_at` integer NOT NULL,
	`confirmed_at` integer,
	`last_step` integer
);
--> statement-breakpoint
CREATE TABLE `fpa_api_key_areas` (
	`key_id` text NOT NULL,
	`area_id` text NOT NULL,
	PRIMARY KEY(`key_id`, `area_id`)
);
--> statement-breakpoint
CREATE INDEX `fpa_api_key_areas_area` ON `fpa_api_key_areas` (`area_id`);--> statement-breakpoint
CREATE TABLE `fpa_api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`digest` text NOT NULL,
	`prefix` text NOT NULL,
	`user_id` text,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	`revoked_at` integer,
	`last_used_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_api_keys_digest` ON `fpa_api_keys` (`digest`);--> statement-breakpoint
CREATE INDEX `fpa_api_keys_user` ON `fpa_api_keys` (`user_id`);--> statement-breakpoint
CREATE TABLE `fpa_sign_in_failures` (
	`key` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fpa_sign_in_failures_window` ON `fpa_sign_in_failures` (`window_start`);--> statement-breakpoint
CREATE TABLE `fpa_user_areas` (
	`user_id` text NOT NULL,
	`area_id` text NOT NULL,
	PRIMARY KEY(`user_id`, `area_id`)
);
--> statement-breakpoint
CREATE INDEX `fpa_user_areas_area` ON `fpa_user_areas` (`area_id`);--> statement-breakpoint
CREATE TABLE `fpa_user_invites` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`purpose` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE INDEX `fpa_user_invites_user` ON `fpa_user_invites` (`user_id`);--> statement-breakpoint
CREATE TABLE `fpa_users` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`username_key` text NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`email_key` text,
	`role` text NOT NULL,
	`password_hash` text,
	`password_changed_at` integer,
	`disabled_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`created_by` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_users_username` ON `fpa_users` (`username_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_users_email` ON `fpa_users` (`email_key`);--> statement-breakpoint
CREATE INDEX `fpa_users_role` ON `fpa_users` (`role`);--> statement-breakpoint
DROP INDEX `fpa_enrollees_employee`;--> statement-breakpoint
CREATE INDEX `fpa_enrollees_name` ON `fpa_enrollees` ("display_name" collate nocase,`id`);--> statement-breakpoint
CREATE INDEX `fpa_enrollees_pin_number` ON `fpa_enrollees` (cast("device_pin" as integer),`id`);--> statement-breakpoint
CREATE INDEX `fpa_enrollees_created` ON `fpa_enrollees` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `fpa_enrollees_employee` ON `fpa_enrollees` (`employee_key`,`id`);--> statement-breakpoint
ALTER TABLE `fpa_audit_log` ADD `actor_kind` text;--> statement-breakpoint
ALTER TABLE `fpa_audit_log` ADD `actor_id` text;--> statement-breakpoint
CREATE INDEX `fpa_audit_actor` ON `fpa_audit_log` (`actor_kind`,`actor_id`);--> statement-breakpoint
ALTER TABLE `fpa_console_links` ADD `not_after` integer;--> statement-breakpoint
ALTER TABLE `fpa_console_links` ADD `actor_kind` text DEFAULT 'operator' NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_console_links` ADD `role` text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_console_links` ADD `areas` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_console_links` ADD `user_id` text;--> statement-breakpoint
ALTER TABLE `fpa_console_sessions` ADD `actor_kind` text DEFAULT 'operator' NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_console_sessions` ADD `role` text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_console_sessions` ADD `areas` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_console_sessions` ADD `user_id` text;--> statement-breakpoint
CREATE INDEX `fpa_console_sessions_user` ON `fpa_console_sessions` (`user_id`);--> statement-breakpoint
ALTER TABLE `fpa_punches` ADD `correction_reason` text;--> statement-breakpoint
-- Data (folded from the release's branches). Sessions opened by an embedding host's sign-in before accounts existed act as that host's actor.
UPDATE `fpa_console_sessions` SET `actor_kind` = 'host' WHERE `origin` = 'host';
--> statement-breakpoint
-- A correction's reason, kept on the punch from now on, is filled from the audit log for the corrections made before.
UPDATE `fpa_punches` SET `correction_reason` = (
  SELECT json_extract(l.`details`, '$.reason') FROM `fpa_audit_log` l
  WHERE l.`target_type` = 'punch' AND l.`target_id` = `fpa_punches`.`id` AND l.`action` IN ('punch.manual', 'punch.voided')
  ORDER BY l.`id` DESC LIMIT 1
) WHERE `id` IN (SELECT `target_id` FROM `fpa_audit_log` WHERE `target_type` = 'punch' AND `action` IN ('punch.manual', 'punch.voided'));
--> statement-breakpoint
-- Terminals approved before this release: the count they last reported is where completeness starts.
INSERT INTO `fpa_punch_counts` (`device_id`, `reported_count`, `reported_at`, `updated_at`)
SELECT `id`, `attendance_count`, `updated_at`, `updated_at` FROM `fpa_devices` WHERE `attendance_count` IS NOT NULL;
