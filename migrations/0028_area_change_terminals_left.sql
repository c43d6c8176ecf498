ALTER TABLE `fpa_enrollee_area_changes` ADD `terminals_left_at` integer;--> statement-breakpoint
-- Moves recorded before this migration took the person off the terminals of the areas left at
-- once, when they were made.
UPDATE `fpa_enrollee_area_changes` SET `terminals_left_at` = `changed_at`;--> statement-breakpoint
CREATE INDEX `fpa_enrollee_area_changes_pending` ON `fpa_enrollee_area_changes` (`effective_from`) WHERE terminals_left_at is null;
