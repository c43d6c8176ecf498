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
