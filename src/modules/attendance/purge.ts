/**
 * Retention of attendance days: the days before the horizon, and the days of a clock that started
 * over (dated before 2001: punches/tables.ts RESET_CLOCK_DATED_BEFORE) once their punches are gone.
 */
import { and, asc, gt, gte, inArray, lt, notInArray } from 'drizzle-orm';
import type { Database } from '../../platform/db/client';
import { PurgePace } from '../../platform/db/purge';
import { yieldToOthers } from '../../platform/event-loop';
import { attendanceDays } from './tables';

/** People of the first batch of the retention purge (all their days before the horizon at once); then PurgePace. */
const PURGE_PEOPLE = 100;

/**
 * The dates of a clock that started over: every punch dated before 2001 is one (its day is to be
 * reviewed: `clock_reset`), so its date says nothing of its age.
 */
const FIRST_REAL_DATE = '2001-01-01';

/** Days before the local date `firstKeptDate`, but those of a clock that started over; returns how many. */
export async function purgeDaysBefore(db: Database, firstKeptDate: string): Promise<number> {
  // A few people at a time, all their old days at once (by the primary key, enrollee then
  // date): a batch dirties one run of each index per person, not a page per day across every
  // index (in date order, the cost of a row grew with the size of the table).
  // The people are found in enrollee order from where the last batch ended (the primary key
  // again): a batch reads the days of its own people only.
  const old = and(gte(attendanceDays.date, FIRST_REAL_DATE), lt(attendanceDays.date, firstKeptDate));
  let total = 0;
  let after = '';
  const pace = new PurgePace(PURGE_PEOPLE, 5);
  for (;;) {
    const people = await db.orm
      .selectDistinct({ id: attendanceDays.enrolleeId })
      .from(attendanceDays)
      .where(and(gt(attendanceDays.enrolleeId, after), old))
      .orderBy(asc(attendanceDays.enrolleeId))
      .limit(pace.size);
    if (people.length === 0) return total;
    const ids = people.map((p) => p.id);
    after = ids[ids.length - 1]!;
    total += await pace.write(db, async ({ tx }) => {
      const done = await tx.delete(attendanceDays).where(and(inArray(attendanceDays.enrolleeId, ids), old));
      return done.rowsAffected;
    });
    await yieldToOthers();
  }
}

/** The days of a clock that started over of everyone but `holders` (who still have such punches); returns how many. */
export async function purgeResetClockDays(db: Database, holders: ReadonlySet<string>): Promise<number> {
  return db.write(async ({ tx }) => {
    const done = await tx.delete(attendanceDays).where(and(lt(attendanceDays.date, FIRST_REAL_DATE), notInArray(attendanceDays.enrolleeId, [...holders])));
    return done.rowsAffected;
  });
}
