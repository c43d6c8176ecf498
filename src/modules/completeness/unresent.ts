/**
 * What diagnostics read of completeness (`punches_not_resent`): which re-upload commands
 * (`reupload_logs`) were asked for a gap of the counts, and that gap while it is still open. A
 * refused re-upload of a gap is said until the gap closes (the terminal's USB file imported, the
 * terminal re-sending them at last, its log cleared), not for a day after.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { punchCounts, punchRecoveries } from './tables';

/** A gap of a terminal's counts, open: since when, how many punches missing. */
export interface OpenGap {
  since: number;
  missing: number;
}

/**
 * Of these commands, the re-uploads asked for a gap: each with that gap while it is open, null once
 * it closed (another gap open since is not theirs). A command not in the answer was no gap's
 * re-upload (asked after an outage, or by hand).
 */
export async function gapsOfReuploads(q: Queryable, commandIds: readonly number[]): Promise<Map<number, OpenGap | null>> {
  if (commandIds.length === 0) return new Map();
  const rows = await q
    .select({ command: punchRecoveries.commandId, queuedAt: punchRecoveries.queuedAt, since: punchCounts.gapSince, missing: punchCounts.gapMissing })
    .from(punchRecoveries)
    .leftJoin(punchCounts, eq(punchCounts.deviceId, punchRecoveries.deviceId))
    .where(and(eq(punchRecoveries.reason, 'count_mismatch'), inArray(punchRecoveries.commandId, [...commandIds])));
  return new Map(
    rows.flatMap((r) =>
      r.command === null ? [] : [[r.command, r.since !== null && r.queuedAt >= r.since ? { since: r.since, missing: r.missing ?? 0 } : null] as const],
    ),
  );
}
