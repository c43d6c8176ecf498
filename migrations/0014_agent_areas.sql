CREATE TABLE `fpa_agent_areas` (
	`agent_id` text NOT NULL,
	`area_id` text NOT NULL,
	PRIMARY KEY(`agent_id`, `area_id`)
);
--> statement-breakpoint
CREATE INDEX `fpa_agent_areas_area` ON `fpa_agent_areas` (`area_id`);