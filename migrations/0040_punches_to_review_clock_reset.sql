-- The punches whose day HR is to review now include those of a terminal clock that started over
-- (`clock_reset`: dated before 2001, a flat clock battery), flagged so as they were stored in every
-- release: the index of 0037 is made again with them. One pass over the punches; the index holds
-- only the flagged ones. Days stored before are not recomputed here: they get the day flag
-- `clock_reset` when they are computed again.
DROP INDEX `fpa_punches_to_review`;--> statement-breakpoint
CREATE INDEX `fpa_punches_to_review` ON `fpa_punches` (`enrollee_id`,`punched_at`) WHERE (flags like '%"new_address"%' or flags like '%"clock_ahead"%' or flags like '%"dst_overlap"%' or flags like '%"clock_reset"%');
