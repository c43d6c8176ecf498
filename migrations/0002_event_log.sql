CREATE TABLE `fpa_events` (
	`sequence` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`at` integer NOT NULL,
	`data` text NOT NULL
);
