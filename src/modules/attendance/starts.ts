/**
 * When a person's attendance starts, besides their enrolment (README "Attendance rules"): their
 * first day with punches (a terminal's backlog of the weeks before) or the first day of a
 * schedule assigned to them alone, whichever is earlier. generate-absences, and so a pay-period
 * lock, writes a person's days from the earliest of these and their enrolment; the Today board
 * and the daily report list someone on a date by the same rule, so that a date reads the same
 * before its period is locked and after.
 */
import { and, gt, inArray, lte, min } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable } from '../../platform/db/client';
import { ownScheduleStarts } from '../calendar';
import { attendanceDays } from './tables';

/** People per read: each read is one seek per person on the days' primary key (enrollee, date). */
const PER_READ = 500;

/**
 * By enrollee, the earlier of their first day with punches and their own schedule's first day,
 * where either is (none: their attendance starts at their enrolment). `by`: only a start on or
 * before that date is looked for (the days read are those up to it: a board of a date long ago
 * does not read the year since of everyone hired after it). Two reads per 500 people, never one
 * per person.
 */
export async function startsBeforeEnrolment(q: Queryable, ids: readonly string[], by?: string): Promise<Map<string, string>> {
  const starts = await ownScheduleStarts(q, ids);
  if (by !== undefined) for (const [id, date] of starts) if (date > by) starts.delete(id);
  for (const chunk of chunks(ids, PER_READ)) {
    const firsts = await q
      .select({ id: attendanceDays.enrolleeId, date: min(attendanceDays.date) })
      .from(attendanceDays)
      .where(and(inArray(attendanceDays.enrolleeId, chunk), gt(attendanceDays.punchCount, 0), by === undefined ? undefined : lte(attendanceDays.date, by)))
      .groupBy(attendanceDays.enrolleeId);
    for (const { id, date } of firsts) {
      const known = starts.get(id);
      if (date !== null && (known === undefined || date < known)) starts.set(id, date);
    }
  }
  return starts;
}
