ALTER TABLE `fpa_template_sync` ADD `held_version` integer;--> statement-breakpoint
-- What the terminals confirmed before this migration: the version a `present` row is about. A
-- row overwritten by a later version (`pending`, `failed`, `incompatible`) did not keep the
-- version it had confirmed: those stay unknown until the terminal confirms one again.
UPDATE `fpa_template_sync` SET `held_version` = `template_version` WHERE `status` = 'present';
