/**
 * Stored days read a page at a time in the export's keyset order (employee, then date), and
 * counted so: how many people or rows a report will have, known before it is drawn (a PDF past
 * its limit is refused before any of it is drawn; an Excel timesheet of many people is one
 * sheet). Counting pages too, with a turn of the event loop between pages: a local libSQL
 * statement runs on this thread, and one count of a month for 10,000 people would hold it.
 */
import { and, asc, eq, gte, inArray, lte, not, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { yieldToOthers } from '../../platform/event-loop';
import type { AttendanceDayRow } from './day-rows';
import { attendanceDays } from './tables';

/** Employees per page of a count (their keys only, on the (employee, date) index). */
const EMPLOYEES_PER_PAGE = 1000;
/** Days per page of a count of days (three small values each). */
const DAYS_PER_PAGE = 2000;

export function rangeOf(filters: { from: string; to: string; employee?: string }): SQL | undefined {
  return and(
    gte(attendanceDays.date, filters.from),
    lte(attendanceDays.date, filters.to),
    filters.employee ? eq(attendanceDays.employeeKey, filters.employee) : undefined,
  );
}

/**
 * The days of a page after `after` (employee, date). A row value: SQLite seeks the (employee,
 * date) index to it. For everyone the dates are written `+date` so that the planner does not
 * take the date index instead and sort the whole range again for every page (quadratic: a month
 * for 10,000 people took 33 s).
 */
export function pageOfDays(
  filters: { from: string; to: string; employee?: string },
  after: { employee: string; date: string } | null,
  member: SQL | undefined,
): SQL | undefined {
  const d = attendanceDays;
  const next = after === null ? undefined : sql`(${d.employeeKey}, ${d.date}) > (${after.employee}, ${after.date})`;
  return and(filters.employee ? rangeOf(filters) : and(sql`+${d.date} >= ${filters.from}`, sql`+${d.date} <= ${filters.to}`), next, member);
}

/** After every date of an employee: where the next employee's days start. */
const AFTER_EVERY_DATE = '9999-12-31';

/**
 * The employees with days from..to that `member` admits, counted up to `atMost` (the count
 * stops there: it answers whether there are more, not how many more).
 */
export async function countEmployees(q: Queryable, filters: { from: string; to: string }, member: SQL | undefined, atMost: number): Promise<number> {
  const d = attendanceDays;
  let counted = 0;
  let after: string | null = null;
  while (counted < atMost) {
    const limit = Math.min(EMPLOYEES_PER_PAGE, atMost - counted);
    const keys: { employee: string }[] = await q
      .selectDistinct({ employee: d.employeeKey })
      .from(d)
      .where(pageOfDays(filters, after === null ? null : { employee: after, date: AFTER_EVERY_DATE }, member))
      .orderBy(asc(d.employeeKey))
      .limit(limit);
    counted += keys.length;
    if (keys.length < limit) break;
    after = keys[keys.length - 1]!.employee;
    await yieldToOthers();
  }
  return counted;
}

/**
 * What makes a stored day count (countMatches): a flag it carries; its status, except on the
 * dates (of the people) `except` names; overtime.
 */
export type DayTest =
  | { flag: string }
  | { status: AttendanceDayRow['status']; except?: readonly { date: string; enrollees?: readonly string[] }[] }
  | { overtime: true };

function matches(test: DayTest): SQL {
  const d = attendanceDays;
  if ('flag' in test) return sql`${d.flags} like ${`%"${test.flag}"%`}`;
  if ('overtime' in test) return sql`${d.overtimeSeconds} > 0`;
  const except = (test.except ?? []).flatMap((e) => {
    if (e.enrollees === undefined) return [eq(d.date, e.date)];
    return e.enrollees.length === 0 ? [] : [and(eq(d.date, e.date), inArray(d.enrolleeId, [...e.enrollees]))!];
  });
  return and(eq(d.status, test.status), ...except.map((e) => not(e)))!;
}

/**
 * The days from..to that `member` admits, each counted once for every test it meets (a day late
 * and with overtime counts 2: two rows of the exceptions report), up to `atMost` (the count stops
 * there). A page of days at a time.
 */
export async function countMatches(
  q: Queryable,
  filters: { from: string; to: string },
  member: SQL | undefined,
  tests: readonly DayTest[],
  atMost: number,
): Promise<number> {
  if (tests.length === 0) return 0;
  const d = attendanceDays;
  const met = sql.join(
    tests.map((t) => sql`(case when ${matches(t)} then 1 else 0 end)`),
    sql` + `,
  );
  let counted = 0;
  let after: { employee: string; date: string } | null = null;
  while (counted < atMost) {
    const page: { employee: string; date: string; met: number }[] = await q
      .select({ employee: d.employeeKey, date: d.date, met: sql<number>`${met}` })
      .from(d)
      .where(pageOfDays(filters, after, member))
      .orderBy(asc(d.employeeKey), asc(d.date))
      .limit(DAYS_PER_PAGE);
    for (const day of page) counted += Number(day.met);
    if (page.length < DAYS_PER_PAGE) break;
    const last = page[page.length - 1]!;
    after = { employee: last.employee, date: last.date };
    await yieldToOthers();
  }
  return counted;
}
