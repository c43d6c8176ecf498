CREATE TABLE `fpa_agent_rate_windows` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `fpa_devices` ADD `clock_offset_minutes` integer;--> statement-breakpoint
ALTER TABLE `fpa_templates` ADD `duress` integer DEFAULT false NOT NULL;