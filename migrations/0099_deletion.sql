-- Terminals removed by an administrator, by serial: a removed terminal that makes contact again
-- registers under its old id, so what it holds and the deletes it owes are its own again.
CREATE TABLE `fpa_removed_devices` (
	`serial_number` text PRIMARY KEY NOT NULL,
	`device_id` text NOT NULL,
	`removed_at` integer NOT NULL,
	`removed_by` text NOT NULL,
	`facts` text NOT NULL
);
--> statement-breakpoint
-- `enrollee_deleted` no longer keeps the deleted person's name, PIN and card in the log (only
-- the id and employee key, src/modules/enrollees/service.ts): the events recorded before lose them.
UPDATE `fpa_events` SET `data` = json_remove(`data`, '$.enrollee.device_pin', '$.enrollee.display_name', '$.enrollee.card')
WHERE `type` = 'enrollee_deleted';
