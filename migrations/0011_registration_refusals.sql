CREATE TABLE `fpa_registration_refusals` (
	`limit_name` text PRIMARY KEY NOT NULL,
	`refused` integer NOT NULL,
	`last_serial` text NOT NULL,
	`last_ip` text,
	`first_at` integer NOT NULL,
	`last_at` integer NOT NULL
);
