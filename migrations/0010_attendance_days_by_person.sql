CREATE TABLE `__new_fpa_attendance_days` (
	`enrollee_id` text NOT NULL,
	`employee_key` text NOT NULL,
	`date` text NOT NULL,
	`first_in` integer,
	`last_out` integer,
	`worked_seconds` integer NOT NULL,
	`punch_count` integer NOT NULL,
	`status` text NOT NULL,
	`flags` text NOT NULL,
	`schedule` text,
	`expected_seconds` integer DEFAULT 0 NOT NULL,
	`late_seconds` integer DEFAULT 0 NOT NULL,
	`early_leave_seconds` integer DEFAULT 0 NOT NULL,
	`overtime_seconds` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`enrollee_id`, `date`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_fpa_attendance_days` (`enrollee_id`, `employee_key`, `date`, `first_in`, `last_out`, `worked_seconds`, `punch_count`, `status`, `flags`, `schedule`, `expected_seconds`, `late_seconds`, `early_leave_seconds`, `overtime_seconds`, `updated_at`) SELECT `enrollee_id`, `employee_key`, `date`, `first_in`, `last_out`, `worked_seconds`, `punch_count`, `status`, `flags`, `schedule`, `expected_seconds`, `late_seconds`, `early_leave_seconds`, `overtime_seconds`, `updated_at` FROM `fpa_attendance_days` ORDER BY `enrollee_id`, `date`;
--> statement-breakpoint
DROP TABLE `fpa_attendance_days`;
--> statement-breakpoint
ALTER TABLE `__new_fpa_attendance_days` RENAME TO `fpa_attendance_days`;
--> statement-breakpoint
CREATE INDEX `fpa_days_date_enrollee` ON `fpa_attendance_days` ("date" desc,`enrollee_id`);
--> statement-breakpoint
CREATE INDEX `fpa_days_employee` ON `fpa_attendance_days` (`employee_key`,`date`);
