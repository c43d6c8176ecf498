ALTER TABLE `fpa_webhook_deliveries` RENAME COLUMN "outbox_id" TO "message_id";--> statement-breakpoint
CREATE TABLE `fpa_events` (
	`sequence` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`at` integer NOT NULL,
	`data` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `fpa_log_followers` (
	`name` text PRIMARY KEY NOT NULL,
	`position` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `fpa_webhook_messages` (
	`endpoint_id` text NOT NULL,
	`event_sequence` integer NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`event_at` integer NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_until` integer,
	`claim_token` text,
	`last_error` text,
	`created_at` integer NOT NULL,
	`delivered_at` integer,
	PRIMARY KEY(`endpoint_id`, `event_sequence`)
);
--> statement-breakpoint
CREATE INDEX `fpa_webhook_messages_due` ON `fpa_webhook_messages` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `fpa_webhook_messages_status` ON `fpa_webhook_messages` (`endpoint_id`,`status`,`event_sequence`);--> statement-breakpoint
DROP TABLE `fpa_webhook_outbox`;--> statement-breakpoint
ALTER TABLE `fpa_webhook_deliveries` ADD `count` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `start_sequence` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `position` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `next_attempt_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `lease_until` integer;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `claim_token` text;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `last_error` text;--> statement-breakpoint
ALTER TABLE `fpa_webhook_endpoints` ADD `last_delivered_at` integer;