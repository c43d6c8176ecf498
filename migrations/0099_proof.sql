CREATE TABLE `fpa_deletion_proofs` (
	`enrollee_id` text PRIMARY KEY NOT NULL,
	`employee` text,
	`pin` text,
	`area_ids` text NOT NULL,
	`reason` text NOT NULL,
	`requested_at` integer NOT NULL,
	`templates_destroyed` integer NOT NULL,
	`destroyed_at` integer NOT NULL,
	`completed_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fpa_deletion_proofs_requested` ON `fpa_deletion_proofs` (`requested_at`);--> statement-breakpoint
CREATE TABLE `fpa_deletion_proof_terminals` (
	`enrollee_id` text NOT NULL,
	`device_id` text NOT NULL,
	`serial_number` text NOT NULL,
	`status` text NOT NULL,
	`awaiting` text NOT NULL,
	`command` text,
	`confirmed_at` integer,
	PRIMARY KEY(`enrollee_id`, `device_id`)
);
--> statement-breakpoint
CREATE INDEX `fpa_deletion_proof_terminals_device` ON `fpa_deletion_proof_terminals` (`device_id`,`status`);--> statement-breakpoint
CREATE TABLE `fpa_proof_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`public_jwk` text NOT NULL,
	`private_sealed` text NOT NULL,
	`created_at` integer NOT NULL,
	`retired_at` integer
);
