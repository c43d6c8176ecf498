/** Schedules assigned to one person alone (not through an area): when each person's first begins. */
import { and, inArray, isNotNull, min } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable } from '../../platform/db/client';
import { shiftAssignments } from './tables';

/** The first date of a schedule assigned to each of these people alone, where there is one. */
export async function ownScheduleStarts(q: Queryable, enrolleeIds: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const ids of chunks(enrolleeIds, 500)) {
    const rows = await q
      .select({ enrolleeId: shiftAssignments.enrolleeId, from: min(shiftAssignments.fromDate) })
      .from(shiftAssignments)
      .where(and(isNotNull(shiftAssignments.enrolleeId), inArray(shiftAssignments.enrolleeId, ids)))
      .groupBy(shiftAssignments.enrolleeId);
    for (const r of rows) if (r.enrolleeId && r.from) out.set(r.enrolleeId, r.from);
  }
  return out;
}
