CREATE TABLE `fpa_user_totp` (
	`user_id` text PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	`created_at` integer NOT NULL,
	`confirmed_at` integer,
	`last_step` integer
);
--> statement-breakpoint
CREATE TABLE `fpa_recovery_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE INDEX `fpa_recovery_codes_user` ON `fpa_recovery_codes` (`user_id`);--> statement-breakpoint
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
CREATE TABLE `fpa_required_factor_roles` (
	`role` text PRIMARY KEY NOT NULL,
	`set_by` text NOT NULL,
	`set_at` integer NOT NULL
);
