ALTER TABLE `fpa_template_sync` ADD `held_version` integer;--> statement-breakpoint
-- What the terminals confirmed before this migration: the version a `present` row is about. A
-- row overwritten by a later version (`pending`, `failed`, `incompatible`) did not keep the
-- version it had confirmed: those stay unknown until the terminal confirms one again.
UPDATE `fpa_template_sync` SET `held_version` = `template_version` WHERE `status` = 'present';
--> statement-breakpoint
-- A later version the terminal refused itself (`Return=-30`, say after a firmware update changed
-- its algorithm) overwrote the row of the version it held: that terminal is taken to hold the
-- version before, so a withdrawal still deletes it there and the proof waits for it. A delete of
-- what it turns out not to hold is answered as done; a delete never sent would leave it there.
UPDATE `fpa_template_sync` SET `held_version` = `template_version` - 1
WHERE `status` = 'incompatible' AND `refused_code` IS NOT NULL AND `template_version` > 1;
