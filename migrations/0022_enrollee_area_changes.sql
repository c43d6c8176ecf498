CREATE TABLE `fpa_enrollee_area_changes` (
	`enrollee_id` text NOT NULL,
	`changed_at` integer NOT NULL,
	`areas_before` text NOT NULL,
	PRIMARY KEY(`enrollee_id`, `changed_at`)
);
