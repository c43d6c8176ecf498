ALTER TABLE `fpa_devices` ADD `device_type` text;
