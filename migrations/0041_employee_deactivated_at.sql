-- When an employee of the built-in directory became inactive (`PATCH employees/{id}/`, or a person
-- deleted in the console): retention erases a leaver's directory entry once it has been inactive
-- past the horizon (RETENTION_PUNCHES_DAYS) and no person names them. Before this release an
-- employee could only be inactive by being created so (`POST employees/ {"active": false}`): those
-- have been inactive since they were created. A column added, then one pass over the directory.
ALTER TABLE `fpa_employees` ADD `deactivated_at` integer;--> statement-breakpoint
UPDATE `fpa_employees` SET `deactivated_at` = `created_at` WHERE `active` = 0;
