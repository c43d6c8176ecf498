DROP INDEX `fpa_punches_enrollee`;--> statement-breakpoint
CREATE INDEX `fpa_punches_enrollee_day` ON `fpa_punches` ("punched_at" / 86400000,`enrollee_id`,`punched_at`,`voided`,`source`);