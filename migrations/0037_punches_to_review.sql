DROP INDEX `fpa_punches_new_address`;--> statement-breakpoint
-- A terminal's punch dated after it arrived (its clock ran ahead) is flagged `clock_ahead` as it is
-- stored from this release on; those stored before get the flag here, by the same rule with the
-- default tolerance (DEVICE_CLOCK_DRIFT_MAX, 2 minutes): dated more than that after their
-- `received_at`. One pass over the punches; only those few are rewritten. A punch of a terminal's
-- log uploaded after its time is not ahead of its arrival, and is left as it is.
UPDATE `fpa_punches` SET `flags` = json_insert(`flags`, '$[#]', 'clock_ahead')
WHERE `source` = 'device' AND `punched_at` > `received_at` + 120000 AND `flags` NOT LIKE '%"clock_ahead"%';--> statement-breakpoint
-- The punches whose day HR is to review, by person and time: from an unconfirmed address
-- (`unconfirmed_terminal`, the index 0034 made for them alone), dated after they arrived
-- (`clock_ahead`), at a wall time the fall-back night showed twice (`dst_overlap`). One pass over
-- the punches; the index holds only the flagged ones. Days stored before are not recomputed here:
-- they get the flags when they are computed again.
CREATE INDEX `fpa_punches_to_review` ON `fpa_punches` (`enrollee_id`,`punched_at`) WHERE (flags like '%"new_address"%' or flags like '%"clock_ahead"%' or flags like '%"dst_overlap"%');
