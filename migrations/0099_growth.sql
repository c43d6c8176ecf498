DROP INDEX `fpa_days_date`;--> statement-breakpoint
CREATE INDEX `fpa_days_date_enrollee` ON `fpa_attendance_days` ("date" desc,`enrollee_id`);
