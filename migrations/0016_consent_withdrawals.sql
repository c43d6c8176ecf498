ALTER TABLE `fpa_consents` ADD `templates_destroyed` integer;--> statement-breakpoint
-- Withdrawals before this migration: the count their audit entry kept (written at the same instant).
UPDATE `fpa_consents` SET `templates_destroyed` = (
  SELECT json_extract(a.`details`, '$.templates_destroyed') FROM `fpa_audit_log` a
  WHERE a.`target_type` = 'enrollee' AND a.`target_id` = `fpa_consents`.`enrollee_id`
    AND a.`action` = 'consent.withdrawn' AND a.`created_at` = `fpa_consents`.`withdrawn_at`
  ORDER BY a.`id` DESC LIMIT 1
) WHERE `withdrawn_at` IS NOT NULL;
