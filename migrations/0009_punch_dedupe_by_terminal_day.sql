DROP INDEX `fpa_punches_dedup`;--> statement-breakpoint
CREATE UNIQUE INDEX `fpa_punches_dedup` ON `fpa_punches` (`device_id`,substr("local_time", 1, 10),`device_pin`,`local_time`);
