-- punch_received and punch_voided keep a reference to their punch, not a copy of it
-- (src/modules/punches/logged.ts): readers see the punch as it is, and what retention purges
-- from the punches is gone from the log as well. `by` and `reason` stay.
UPDATE `fpa_events` SET `data` = json_set(json_remove(`data`, '$.punch', '$.sender'), '$.punch_sequence', json_extract(`data`, '$.punch.sequence'))
WHERE `type` IN ('punch_received', 'punch_voided') AND json_type(`data`, '$.punch') = 'object';
