DROP INDEX `fpa_days_date_enrollee`;--> statement-breakpoint
CREATE INDEX `fpa_days_date_enrollee` ON `fpa_attendance_days` ("date" desc,`enrollee_id`,`status`,`first_in`,`last_out`,`late_seconds`,`punch_count`,`schedule`);--> statement-breakpoint
-- The roster's version (enrollees/roster.ts): every change to what the Today board's roster
-- holds (who, their names and keys, their areas and the areas' names) counts it up in the same
-- transaction, whichever instance writes, so a cached roster knows when it is stale. Written by
-- hand: drizzle has no word for triggers.
INSERT INTO `fpa_counters` (`name`, `value`) VALUES ('roster_version', 0) ON CONFLICT (`name`) DO NOTHING;--> statement-breakpoint
CREATE TRIGGER `fpa_roster_enrollee_added` AFTER INSERT ON `fpa_enrollees` BEGIN UPDATE `fpa_counters` SET `value` = `value` + 1 WHERE `name` = 'roster_version'; END;--> statement-breakpoint
CREATE TRIGGER `fpa_roster_enrollee_changed` AFTER UPDATE OF `id`, `employee_key`, `display_name`, `status`, `created_at` ON `fpa_enrollees` BEGIN UPDATE `fpa_counters` SET `value` = `value` + 1 WHERE `name` = 'roster_version'; END;--> statement-breakpoint
CREATE TRIGGER `fpa_roster_enrollee_removed` AFTER DELETE ON `fpa_enrollees` BEGIN UPDATE `fpa_counters` SET `value` = `value` + 1 WHERE `name` = 'roster_version'; END;--> statement-breakpoint
CREATE TRIGGER `fpa_roster_membership_added` AFTER INSERT ON `fpa_enrollee_areas` BEGIN UPDATE `fpa_counters` SET `value` = `value` + 1 WHERE `name` = 'roster_version'; END;--> statement-breakpoint
CREATE TRIGGER `fpa_roster_membership_changed` AFTER UPDATE ON `fpa_enrollee_areas` BEGIN UPDATE `fpa_counters` SET `value` = `value` + 1 WHERE `name` = 'roster_version'; END;--> statement-breakpoint
CREATE TRIGGER `fpa_roster_membership_removed` AFTER DELETE ON `fpa_enrollee_areas` BEGIN UPDATE `fpa_counters` SET `value` = `value` + 1 WHERE `name` = 'roster_version'; END;--> statement-breakpoint
CREATE TRIGGER `fpa_roster_area_added` AFTER INSERT ON `fpa_areas` BEGIN UPDATE `fpa_counters` SET `value` = `value` + 1 WHERE `name` = 'roster_version'; END;--> statement-breakpoint
CREATE TRIGGER `fpa_roster_area_changed` AFTER UPDATE OF `id`, `name` ON `fpa_areas` BEGIN UPDATE `fpa_counters` SET `value` = `value` + 1 WHERE `name` = 'roster_version'; END;--> statement-breakpoint
CREATE TRIGGER `fpa_roster_area_removed` AFTER DELETE ON `fpa_areas` BEGIN UPDATE `fpa_counters` SET `value` = `value` + 1 WHERE `name` = 'roster_version'; END;
