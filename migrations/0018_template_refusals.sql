ALTER TABLE `fpa_template_sync` ADD `refusal` text;--> statement-breakpoint
ALTER TABLE `fpa_template_sync` ADD `refused_at` integer;--> statement-breakpoint
ALTER TABLE `fpa_template_sync` ADD `refused_code` integer;--> statement-breakpoint
-- Refusals standing before this migration, read as the diagnostics read them until now: their
-- time is the last answer's (the first one was not kept). Those a retry had already reset to
-- `pending` were forgotten then; the terminal's next refusal records them again.
UPDATE `fpa_template_sync` SET `refusal` = 'incompatible', `refused_at` = `updated_at`,
  `refused_code` = CASE WHEN `detail` LIKE 'Return=-30 %' THEN -30 END
WHERE `status` = 'incompatible';--> statement-breakpoint
UPDATE `fpa_template_sync` SET `refusal` = 'full', `refused_at` = `updated_at`, `refused_code` = -1001
WHERE `status` = 'failed' AND (`detail` LIKE '%-1001%' OR `detail` LIKE '%full%');
