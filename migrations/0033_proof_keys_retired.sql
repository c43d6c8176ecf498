PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_fpa_proof_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`public_jwk` text NOT NULL,
	`private_sealed` text,
	`created_at` integer NOT NULL,
	`retired_at` integer
);
--> statement-breakpoint
INSERT INTO `__new_fpa_proof_keys`("kid", "public_jwk", "private_sealed", "created_at", "retired_at") SELECT "kid", "public_jwk", "private_sealed", "created_at", "retired_at" FROM `fpa_proof_keys`;--> statement-breakpoint
DROP TABLE `fpa_proof_keys`;--> statement-breakpoint
ALTER TABLE `__new_fpa_proof_keys` RENAME TO `fpa_proof_keys`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
UPDATE `fpa_proof_keys` SET `private_sealed` = NULL WHERE `retired_at` IS NOT NULL;
