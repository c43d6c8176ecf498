-- The punches a terminal sent from an address other than the one it is pinned to (flagged
-- `new_address`), by person and time: attendance marks the days they count for
-- (`unconfirmed_terminal`). One pass over the punches; the index holds only the flagged ones.
-- Days stored before are not recomputed here: they get the flag when they are computed again.
CREATE INDEX `fpa_punches_new_address` ON `fpa_punches` (`enrollee_id`,`punched_at`) WHERE flags like '%"new_address"%';