CREATE TABLE `fpa_device_user_departures` (
	`device_id` text NOT NULL,
	`enrollee_id` text NOT NULL,
	`left_at` integer NOT NULL,
	PRIMARY KEY(`device_id`, `enrollee_id`)
);
--> statement-breakpoint
CREATE INDEX `fpa_device_user_departures_left` ON `fpa_device_user_departures` (`left_at`);