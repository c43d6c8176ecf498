ALTER TABLE `fpa_punch_counts` ADD `reported_sequence` integer;--> statement-breakpoint
ALTER TABLE `fpa_punch_counts` ADD `cleared_at` integer;--> statement-breakpoint
ALTER TABLE `fpa_punch_counts` ADD `agreed_before_clear_at` integer;--> statement-breakpoint
ALTER TABLE `fpa_punch_counts` ADD `missing_at_clear` integer;