-- The sort by name orders people by their name folded as the search folds it, ignoring accents and
-- case (platform/name-key.ts: `Ångström` under A, not after `Zoë`), on an index of its own: the
-- folded name is stored with the name (`name_key`), since SQLite folds neither accents nor
-- non-ASCII case (the index on `display_name collate nocase` it replaces sorted `Å` after `z`).
-- A column added with its default (no table rebuild: the roster triggers of 0013 stay), then the
-- names of plain printable ASCII keyed here (their key is their lower case); the others are keyed
-- by the server at its start (a SQL migration cannot fold accents: enrollees/changes.ts
-- `keyNames`). One pass over the people, and one index build.
DROP INDEX `fpa_enrollees_name`;--> statement-breakpoint
ALTER TABLE `fpa_enrollees` ADD `name_key` text DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE `fpa_enrollees` SET `name_key` = lower(`display_name`) WHERE `display_name` NOT GLOB '*[^ -~]*';--> statement-breakpoint
CREATE INDEX `fpa_enrollees_name_key` ON `fpa_enrollees` (`name_key`,`id`);
