DROP INDEX `fpa_commands_supersede`;--> statement-breakpoint
CREATE INDEX `fpa_commands_supersede` ON `fpa_device_commands` (`device_id`,`supersede_key`);