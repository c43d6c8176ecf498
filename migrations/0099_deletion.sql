-- Terminals removed by an administrator, by serial: a removed terminal that makes contact again
-- registers under its old id, so what it holds and the deletes it owes are its own again.
CREATE TABLE `fpa_removed_devices` (
	`serial_number` text PRIMARY KEY NOT NULL,
	`device_id` text NOT NULL,
	`removed_at` integer NOT NULL,
	`removed_by` text NOT NULL,
	`facts` text NOT NULL
);
