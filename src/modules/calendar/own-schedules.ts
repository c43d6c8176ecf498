/** Schedules assigned to one person alone (not through an area): when each person's first begins, and who has one over some dates. */
import { and, gte, inArray, isNotNull, isNull, lte, min, or } from 'drizzle-orm';
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

/**
 * How many of these people have a schedule of their own on some date from..to (open-ended: `to`
 * null): one assigned to their area does not apply to them there, since their own goes first.
 */
export async function withOwnScheduleWithin(q: Queryable, enrolleeIds: readonly string[], from: string, to: string | null): Promise<number> {
  let n = 0;
  for (const ids of chunks(enrolleeIds, 500)) {
    const rows = await q
      .selectDistinct({ id: shiftAssignments.enrolleeId })
      .from(shiftAssignments)
      .where(
        and(
          inArray(shiftAssignments.enrolleeId, ids),
          or(isNull(shiftAssignments.toDate), gte(shiftAssignments.toDate, from)),
          to === null ? undefined : lte(shiftAssignments.fromDate, to),
        ),
      );
    n += rows.length;
  }
  return n;
}
