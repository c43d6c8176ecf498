ALTER TABLE `fpa_deletion_proofs` ADD `requests` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
UPDATE `fpa_deletion_proofs` SET `requests` = json_array(json_object('reason', `reason`, 'at', `requested_at`, 'templatesDestroyed', `templates_destroyed`));
