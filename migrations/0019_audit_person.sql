DROP INDEX `fpa_audit_target`;--> statement-breakpoint
CREATE INDEX `fpa_audit_person` ON `fpa_audit_log` (json_extract("details", '$.enrollee'));--> statement-breakpoint
CREATE INDEX `fpa_audit_target` ON `fpa_audit_log` (`target_id`);