ALTER TABLE `fpa_webhook_endpoints` ADD `previous_secret` text;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `previous_secret_until` integer;--> statement-breakpoint
ALTER TABLE `fpa_webhook_messages` ADD `failing_since` integer;
