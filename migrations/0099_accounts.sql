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
-- Sessions opened by an embedding host's sign-in before accounts existed act as that host's actor.
UPDATE `fpa_console_sessions` SET `actor_kind` = 'host' WHERE `origin` = 'host';