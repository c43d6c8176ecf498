CREATE TABLE `fpa_command_claims` (
	`device_id` text PRIMARY KEY NOT NULL,
	`claims` text NOT NULL
);
