CREATE TABLE `fpa_agents` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`algorithm_version` text NOT NULL,
	`key_prefix` text NOT NULL,
	`key_digest` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	`last_used_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_agents_key_prefix_unique` ON `fpa_agents` (`key_prefix`);--> statement-breakpoint
CREATE TABLE `fpa_areas` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_areas_name_unique` ON `fpa_areas` (`name`);--> statement-breakpoint
CREATE TABLE `fpa_attendance_days` (
	`enrollee_id` text NOT NULL,
	`employee_key` text NOT NULL,
	`date` text NOT NULL,
	`first_in` integer,
	`last_out` integer,
	`worked_seconds` integer NOT NULL,
	`punch_count` integer NOT NULL,
	`status` text NOT NULL,
	`flags` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`enrollee_id`, `date`)
);
--> statement-breakpoint
CREATE INDEX `fpa_days_date` ON `fpa_attendance_days` (`date`);--> statement-breakpoint
CREATE INDEX `fpa_days_employee` ON `fpa_attendance_days` (`employee_key`,`date`);--> statement-breakpoint
CREATE TABLE `fpa_audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text,
	`details` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fpa_audit_target` ON `fpa_audit_log` (`target_type`,`target_id`);--> statement-breakpoint
CREATE INDEX `fpa_audit_created` ON `fpa_audit_log` (`created_at`);--> statement-breakpoint
CREATE TABLE `fpa_consents` (
	`id` text PRIMARY KEY NOT NULL,
	`enrollee_id` text NOT NULL,
	`version` text NOT NULL,
	`method` text NOT NULL,
	`given_by` text NOT NULL,
	`given_at` integer NOT NULL,
	`withdrawn_at` integer,
	`withdrawn_by` text
);
--> statement-breakpoint
CREATE INDEX `fpa_consents_enrollee` ON `fpa_consents` (`enrollee_id`);--> statement-breakpoint
CREATE TABLE `fpa_counters` (
	`name` text PRIMARY KEY NOT NULL,
	`value` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `fpa_device_areas` (
	`device_id` text NOT NULL,
	`area_id` text NOT NULL,
	PRIMARY KEY(`device_id`, `area_id`)
);
--> statement-breakpoint
CREATE INDEX `fpa_device_areas_area` ON `fpa_device_areas` (`area_id`);--> statement-breakpoint
CREATE TABLE `fpa_device_commands` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`device_id` text NOT NULL,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`supersede_key` text,
	`session_id` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`sent_at` integer,
	`ack_deadline` integer,
	`not_before` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`completed_at` integer,
	`return_code` integer,
	`result` text
);
--> statement-breakpoint
CREATE INDEX `fpa_commands_queue` ON `fpa_device_commands` (`device_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `fpa_commands_status` ON `fpa_device_commands` (`status`,`ack_deadline`);--> statement-breakpoint
CREATE INDEX `fpa_commands_supersede` ON `fpa_device_commands` (`device_id`,`supersede_key`,`status`);--> statement-breakpoint
CREATE TABLE `fpa_device_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`device_id` text NOT NULL,
	`kind` text NOT NULL,
	`message` text NOT NULL,
	`details` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fpa_device_events_device` ON `fpa_device_events` (`device_id`,`id`);--> statement-breakpoint
CREATE INDEX `fpa_device_events_created` ON `fpa_device_events` (`created_at`);--> statement-breakpoint
CREATE TABLE `fpa_devices` (
	`id` text PRIMARY KEY NOT NULL,
	`serial_number` text NOT NULL,
	`name` text,
	`status` text NOT NULL,
	`time_zone` text,
	`algorithm_version` text,
	`algorithm_source` text,
	`face_algorithm_version` text,
	`push_version` text,
	`firmware` text,
	`ip_address` text,
	`language` text,
	`user_count` integer,
	`fingerprint_count` integer,
	`attendance_count` integer,
	`speaks_biodata` integer DEFAULT false NOT NULL,
	`parameters` text,
	`registry_code` text,
	`last_seen_at` integer,
	`online` integer DEFAULT false NOT NULL,
	`approved_at` integer,
	`approved_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_devices_serial_number_unique` ON `fpa_devices` (`serial_number`);--> statement-breakpoint
CREATE INDEX `fpa_devices_status` ON `fpa_devices` (`status`);--> statement-breakpoint
CREATE TABLE `fpa_employees` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `fpa_enrollee_areas` (
	`enrollee_id` text NOT NULL,
	`area_id` text NOT NULL,
	PRIMARY KEY(`enrollee_id`, `area_id`)
);
--> statement-breakpoint
CREATE INDEX `fpa_enrollee_areas_area` ON `fpa_enrollee_areas` (`area_id`);--> statement-breakpoint
CREATE TABLE `fpa_enrollees` (
	`id` text PRIMARY KEY NOT NULL,
	`employee_key` text NOT NULL,
	`device_pin` text NOT NULL,
	`display_name` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`deactivated_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_enrollees_device_pin_unique` ON `fpa_enrollees` (`device_pin`);--> statement-breakpoint
CREATE INDEX `fpa_enrollees_employee` ON `fpa_enrollees` (`employee_key`);--> statement-breakpoint
CREATE TABLE `fpa_enrollment_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`enrollee_id` text NOT NULL,
	`agent_id` text,
	`device_id` text,
	`fingers_requested` text NOT NULL,
	`fingers_captured` text NOT NULL,
	`status` text NOT NULL,
	`reason` text,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`claimed_at` integer,
	`closed_at` integer,
	`expires_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fpa_sessions_agent` ON `fpa_enrollment_sessions` (`agent_id`,`status`);--> statement-breakpoint
CREATE INDEX `fpa_sessions_device` ON `fpa_enrollment_sessions` (`device_id`,`status`);--> statement-breakpoint
CREATE INDEX `fpa_sessions_status` ON `fpa_enrollment_sessions` (`status`,`expires_at`);--> statement-breakpoint
CREATE TABLE `fpa_job_leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text,
	`lease_until` integer,
	`last_started_at` integer,
	`last_finished_at` integer,
	`last_status` text,
	`last_result` text,
	`last_holder` text
);
--> statement-breakpoint
CREATE TABLE `fpa_meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `fpa_punches` (
	`sequence` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`device_id` text NOT NULL,
	`device_serial` text NOT NULL,
	`device_pin` text NOT NULL,
	`enrollee_id` text,
	`employee_key` text,
	`punched_at` integer NOT NULL,
	`local_time` text NOT NULL,
	`utc_offset_minutes` integer NOT NULL,
	`state` integer NOT NULL,
	`verify_type` integer NOT NULL,
	`work_code` text NOT NULL,
	`raw` text NOT NULL,
	`flags` text NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_punches_id_unique` ON `fpa_punches` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_punches_dedup` ON `fpa_punches` (`device_id`,`device_pin`,`local_time`);--> statement-breakpoint
CREATE INDEX `fpa_punches_enrollee` ON `fpa_punches` (`enrollee_id`,`punched_at`);--> statement-breakpoint
CREATE INDEX `fpa_punches_pin` ON `fpa_punches` (`device_pin`);--> statement-breakpoint
CREATE INDEX `fpa_punches_time` ON `fpa_punches` (`punched_at`);--> statement-breakpoint
CREATE TABLE `fpa_staged_templates` (
	`session_id` text NOT NULL,
	`finger_index` integer NOT NULL,
	`algorithm_version` text NOT NULL,
	`ciphertext` blob NOT NULL,
	`key_id` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`quality` integer,
	`revision` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`session_id`, `finger_index`)
);
--> statement-breakpoint
CREATE INDEX `fpa_staged_key` ON `fpa_staged_templates` (`key_id`);--> statement-breakpoint
CREATE TABLE `fpa_template_sync` (
	`template_id` text NOT NULL,
	`device_id` text NOT NULL,
	`status` text NOT NULL,
	`template_version` integer NOT NULL,
	`command_id` integer,
	`detail` text,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`template_id`, `device_id`)
);
--> statement-breakpoint
CREATE INDEX `fpa_template_sync_device` ON `fpa_template_sync` (`device_id`);--> statement-breakpoint
CREATE TABLE `fpa_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`enrollee_id` text NOT NULL,
	`finger_index` integer NOT NULL,
	`algorithm_version` text NOT NULL,
	`version` integer NOT NULL,
	`ciphertext` blob NOT NULL,
	`key_id` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`quality` integer,
	`source` text NOT NULL,
	`source_device_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_templates_finger` ON `fpa_templates` (`enrollee_id`,`finger_index`,`algorithm_version`);--> statement-breakpoint
CREATE INDEX `fpa_templates_key` ON `fpa_templates` (`key_id`);--> statement-breakpoint
CREATE TABLE `fpa_webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`outbox_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`status_code` integer,
	`error` text,
	`duration_ms` integer NOT NULL,
	`next_retry_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fpa_deliveries_endpoint` ON `fpa_webhook_deliveries` (`endpoint_id`,`id`);--> statement-breakpoint
CREATE INDEX `fpa_deliveries_created` ON `fpa_webhook_deliveries` (`created_at`);--> statement-breakpoint
CREATE TABLE `fpa_webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`secret` text NOT NULL,
	`events` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`disabled_reason` text,
	`failing_since` integer,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `fpa_webhook_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`endpoint_id` text NOT NULL,
	`event_type` text NOT NULL,
	`payload` text NOT NULL,
	`punch_sequence` integer,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_until` integer,
	`claim_token` text,
	`last_error` text,
	`created_at` integer NOT NULL,
	`delivered_at` integer
);
--> statement-breakpoint
CREATE INDEX `fpa_outbox_due` ON `fpa_webhook_outbox` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `fpa_outbox_endpoint` ON `fpa_webhook_outbox` (`endpoint_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_outbox_punch` ON `fpa_webhook_outbox` (`endpoint_id`,`punch_sequence`);