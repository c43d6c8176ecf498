/**
 * What payroll takes away: `attendance-days/export.csv` (one row per employee and date, header
 * first) and `attendance-summary/` (per employee, totals of a range). Both read the stored days
 * after catching up with the log, so they show every punch recorded so far.
 */
import { and, asc, type Column, eq, gt, type SQL, sql } from 'drizzle-orm';
import { csvField, csvRow, csvText } from '../../platform/csv';
import { FpaError } from '../../platform/errors';
import { yieldToOthers } from '../../platform/event-loop';
import { type Page, pageOf, textCursor } from '../../platform/http/paging';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import { addDays, requireDates, requireOrdered } from '../../platform/time/dates';
import { formatLocalWallTime } from '../../platform/time/zone';
import { auditDownload } from '../audit';
import type { EnrolleeService } from '../enrollees';
import { countEmployees, countMatches, type DayTest, pageOfDays, rangeOf } from './day-pages';
import type { AttendanceDayRow } from './day-rows';
import type { SummaryView } from './model';
import type { AttendanceRuntime } from './runtime';
import type { AttendanceService } from './service';
import { attendanceDays } from './tables';

const EXPORT_COLUMNS = [
  'employee',
  'name',
  'date',
  'status',
  'schedule',
  'first_in',
  'last_out',
  'worked',
  'worked_seconds',
  'expected',
  'expected_seconds',
  'late',
  'late_seconds',
  'early_leave',
  'early_leave_seconds',
  'overtime',
  'overtime_seconds',
  'punches',
  'flags',
] as const;

/** Days read per page of an export: large enough that the per-query cost vanishes, small enough to stay a few hundred KB. */
const EXPORT_PAGE_ROWS = 1000;

/**
 * Pages of an export between two full garbage collections (100,000 days). JavaScriptCore lets
 * the garbage of a long stream pile up before it collects, and grows its heap meanwhile: with
 * its pages read as JSON (exportPage), a month for 50,000 people still left the server 100-135
 * MB larger, against 57-62 MB for 1,000 people. A collection every 100 pages, 15 in that month's
 * 10 s and each 30-40 ms of this thread, kept it to 82-84 MB at no measurable cost in time
 * (README, Performance, "At L").
 */
const PAGES_PER_COLLECTION = 100;

/** The longest range one export or summary covers. */
const MAX_DAYS = 366;

export class Reports {
  constructor(
    private readonly ctx: AttendanceRuntime,
    private readonly attendance: AttendanceService,
    private readonly enrollees: EnrolleeService,
  ) {}

  /**
   * The CSV of every stored day from..to (of one employee or all), by employee then date.
   * Times are local wall times of the zone the day was judged in (the person's on the row's date
   * then: their areas', else ATTENDANCE_TIME_ZONE; kept with the day, so a locked period's file
   * stays as it was when its area's zone changes): `YYYY-MM-DD HH:MM:SS`, the date shown
   * since an overnight shift ends on the next one); durations both as `H:MM` (whole minutes,
   * rounded down) and in seconds; flags separated by spaces.
   *
   * Streamed page by page (keyset on employee and date), so a month of a large company never sits
   * in memory as one string: the server's size stays flat whatever the export's. The range is
   * checked and the days caught up before the first byte, so a bad request is still a clean
   * error; each page is read as it is, so a day recomputed during a long download shows as it is
   * when its page is read. A download (`by`: who asked) is audited once checked, before the first
   * byte, in a write of its own: no write is held while it streams.
   */
  async exportCsv(
    filters: { from: string; to: string; employee?: string },
    options: { pageRows?: number; scope?: AreaScope; by?: string } = {},
  ): Promise<ReadableStream<Uint8Array>> {
    const member = this.enrollees.membership.enrolleeInScope(attendanceDays.enrolleeId, options.scope ?? EVERYWHERE);
    checkRange(filters.from, filters.to);
    if (filters.employee !== undefined) await this.requireEmployee(filters.employee, options.scope ?? EVERYWHERE);
    if (options.by !== undefined) await this.auditExport(filters, options.by);
    await this.attendance.follower.catchUp();
    const pageRows = options.pageRows ?? EXPORT_PAGE_ROWS;
    const encoder = new TextEncoder();
    let after: { employee: string; date: string } | null = null;
    let headerSent = false;
    let pages = 0;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (!headerSent) {
          headerSent = true;
          controller.enqueue(encoder.encode(csvRow([...EXPORT_COLUMNS])));
          return;
        }
        // A page at a time, each after a turn of the event loop: the pulls of a fast reader follow
        // each other as microtasks, and a month for 10,000 people held terminals' polls 1.6 s.
        await yieldToOthers();
        const page = await this.exportPage(filters, after, pageRows, member);
        if (page.last === null) {
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(page.text));
        after = page.last;
        if (++pages % PAGES_PER_COLLECTION === 0) Bun.gc(true);
      },
    });
  }

  /**
   * One employee's export or summary names someone the caller may see, or is a 404: a typo must
   * not hand payroll an empty file as if the employee had no days. Someone: an enrollee of that
   * key (deleted ones too), or a stored day of it in the scope (its enrollee since scrubbed).
   */
  /** `export.downloaded`: who, which dates, whose (the person's id too when the employee key names one person, for `audit-log/?target=`). */
  private async auditExport(filters: { from: string; to: string; employee?: string }, by: string): Promise<void> {
    const ids = filters.employee === undefined ? [] : await this.enrollees.idsOfEmployee(filters.employee);
    await auditDownload(this.ctx.db, this.ctx.clock.now(), {
      actor: by,
      action: 'export.downloaded',
      targetType: 'report',
      targetId: 'attendance-days/export.csv',
      details: {
        from: filters.from,
        to: filters.to,
        ...(filters.employee === undefined ? {} : { employee: filters.employee }),
        ...(ids.length === 1 ? { enrollee: ids[0] } : {}),
      },
    });
  }

  private async requireEmployee(employee: string, scope: AreaScope): Promise<void> {
    if (await this.enrollees.employeeEverInScope(employee, scope)) return;
    const d = attendanceDays;
    const [day] = await this.ctx.db.orm
      .select({ date: d.date })
      .from(d)
      .where(and(eq(d.employeeKey, employee), this.enrollees.membership.enrolleeInScope(d.enrolleeId, scope)))
      .limit(1);
    if (!day) throw new FpaError('not_found', 'employee not found', { employee });
  }

  /**
   * A condition on the days read by `days`: their person (`person`), or anyone of their employee
   * (`employee`: a sheet per employee), is in the scope; undefined for an unlimited scope. What
   * a report of an area reads is that area's days, not the whole company's.
   */
  inScope(scope: AreaScope, by: 'person' | 'employee'): SQL | undefined {
    const { membership } = this.enrollees;
    return by === 'person' ? membership.enrolleeInScope(attendanceDays.enrolleeId, scope) : membership.employeeEverInScope(attendanceDays.employeeKey, scope);
  }

  /**
   * The stored days from..to (of one employee or all), by employee then date, a page at a time:
   * what the report files (modules/reports) read, so a long range never sits in memory at once.
   * Checks the range and catches up with the log first.
   */
  async *days(filters: { from: string; to: string; employee?: string }, pageRows = EXPORT_PAGE_ROWS, member?: SQL): AsyncGenerator<AttendanceDayRow[]> {
    checkRange(filters.from, filters.to);
    await this.attendance.follower.catchUp();
    let after: { employee: string; date: string } | null = null;
    for (;;) {
      // A turn of the event loop before each page after the first: a report reads on this thread.
      if (after !== null) await yieldToOthers();
      const rows = await this.readPage(filters, after, pageRows, member);
      if (rows.length === 0) return;
      yield rows;
      const last = rows[rows.length - 1]!;
      after = { employee: last.employeeKey, date: last.date };
    }
  }

  /**
   * How many employees have days from..to (those `member` admits), counted up to `atMost`: a
   * report's people, known before it is drawn. Checks the range and catches up with the log first.
   */
  async countEmployees(filters: { from: string; to: string }, member: SQL | undefined, atMost: number): Promise<number> {
    checkRange(filters.from, filters.to);
    await this.attendance.follower.catchUp();
    return countEmployees(this.ctx.db.orm, filters, member, atMost);
  }

  /**
   * How many times the days from..to (those `member` admits) meet `tests` (a day counted once
   * per test it meets), up to `atMost`: an exceptions report's rows, known before it is drawn.
   */
  async countMatches(filters: { from: string; to: string }, member: SQL | undefined, tests: readonly DayTest[], atMost: number): Promise<number> {
    checkRange(filters.from, filters.to);
    await this.attendance.follower.catchUp();
    return countMatches(this.ctx.db.orm, filters, member, tests, atMost);
  }

  private async readPage(
    filters: { from: string; to: string; employee?: string },
    after: { employee: string; date: string } | null,
    pageRows: number,
    member: SQL | undefined,
  ): Promise<AttendanceDayRow[]> {
    const d = attendanceDays;
    return this.ctx.db.orm
      .select()
      .from(d)
      .where(pageOfDays(filters, after, member))
      .orderBy(asc(d.employeeKey), asc(d.date))
      .limit(pageRows);
  }

  /**
   * One page of the export as CSV text. The page comes back from SQLite as one JSON value, each
   * day an array of what the CSV shows, the name included. Read as a row object a day, with each
   * page's enrollee rows read beside it, a month for 50,000 people grew the server's heap three
   * times as much as a month for 1,000, and took 40-60 % longer. Answers the page's last
   * (employee, date), where the next page starts.
   */
  private async exportPage(
    filters: { from: string; to: string; employee?: string },
    after: { employee: string; date: string } | null,
    pageRows: number,
    member: SQL | undefined,
  ): Promise<{ last: { employee: string; date: string } | null; text: string }> {
    const d = attendanceDays;
    const page = this.ctx.db.orm
      .select({
        day: sql<string>`json_array(${d.employeeKey}, ${this.enrollees.displayNameOf(d.enrolleeId)}, ${d.date}, ${d.status}, ${d.schedule}, ${d.firstIn}, ${d.lastOut},
          ${d.workedSeconds}, ${d.expectedSeconds}, ${d.lateSeconds}, ${d.earlyLeaveSeconds}, ${d.overtimeSeconds}, ${d.punchCount}, json(${d.flags}), ${d.zone})`.as(
          'day',
        ),
        employeeKey: d.employeeKey,
        date: d.date,
        enrolleeId: d.enrolleeId,
      })
      .from(d)
      .where(pageOfDays(filters, after, member))
      .orderBy(asc(d.employeeKey), asc(d.date))
      .limit(pageRows);
    // The aggregate keeps the page's order itself: SQLite promises no order to an aggregate of a subquery.
    const [found] = await this.ctx.db.orm.all<{ days: string }>(
      sql`select json_group_array(json_insert(json(day), '$[#]', enrollee_id) order by employee_key, date) as days from ${page}`,
    );
    const days = JSON.parse(found?.days ?? '[]') as [...ExportDay, string][];
    const lastDay = days[days.length - 1];
    if (!lastDay) return { last: null, text: '' };
    // Each row's wall times in the zone its day was judged in (a day stored before that was kept: its person's zone now).
    const zoneOf = await this.attendance.zones.ofDays(days.map((day) => ({ enrolleeId: day[15], zone: day[14] })));
    let text = '';
    for (const day of days) text += exportRow(day, zoneOf({ enrolleeId: day[15], date: day[2], zone: day[14] }));
    return { last: { employee: lastDay[0], date: lastDay[2] }, text };
  }

  /** `attendance-summary/`: per employee, by employee key, cursor-paged. */
  async summary(
    filters: { from: string; to: string; employee?: string; cursor?: string; limit: number },
    scope: AreaScope = EVERYWHERE,
  ): Promise<Page<SummaryView>> {
    checkRange(filters.from, filters.to);
    if (filters.employee !== undefined) await this.requireEmployee(filters.employee, scope);
    await this.attendance.follower.catchUp();
    const after = textCursor('attendance-summary', filters.cursor);
    const d = attendanceDays;
    const count = (condition: SQL) => sql<number>`sum(case when ${condition} then 1 else 0 end)`;
    const flagged = (flag: string) => sql`${d.flags} like ${`%"${flag}"%`}`;
    const total = (column: Column) => sql<number>`sum(${column})`;
    const rows = await this.ctx.db.orm
      .select({
        employee: d.employeeKey,
        enrollee: sql<string>`max(${d.enrolleeId})`,
        days: sql<number>`count(*)`,
        days_present: count(eq(d.status, 'present')),
        days_incomplete: count(eq(d.status, 'incomplete')),
        days_absent: count(eq(d.status, 'absent')),
        days_on_leave: count(eq(d.status, 'on_leave')),
        days_holiday: count(eq(d.status, 'holiday')),
        days_off: count(eq(d.status, 'non_working_day')),
        days_late: count(flagged('late')),
        days_early_leave: count(flagged('early_leave')),
        days_worked_off: count(sql`(${flagged('worked_on_off_day')} or ${flagged('worked_on_holiday')} or ${flagged('worked_on_leave')})`),
        days_manual: count(flagged('manual')),
        worked_seconds: total(d.workedSeconds),
        expected_seconds: total(d.expectedSeconds),
        overtime_seconds: total(d.overtimeSeconds),
        late_seconds: total(d.lateSeconds),
        early_leave_seconds: total(d.earlyLeaveSeconds),
      })
      .from(d)
      .where(
        // Pages of everyone walk the (employee, date) index from the cursor (`+date`, as pageOfDays):
        // on the date index each page grouped and sorted the whole range again (a month for
        // 10,000 people, 20 pages: 18 s).
        and(
          filters.employee ? rangeOf(filters) : and(sql`+${d.date} >= ${filters.from}`, sql`+${d.date} <= ${filters.to}`),
          after === null ? undefined : gt(d.employeeKey, after),
          this.enrollees.membership.enrolleeInScope(d.enrolleeId, scope),
        ),
      )
      .groupBy(d.employeeKey)
      .orderBy(asc(d.employeeKey))
      .limit(filters.limit + 1);
    const names = await this.enrollees.byIds(
      this.ctx.db.orm,
      rows.map((r) => r.enrollee),
    );
    return pageOf(
      'attendance-summary',
      rows,
      filters.limit,
      (r) => r.employee,
      (page) => page.map((r) => ({ ...r, name: names.get(r.enrollee)?.displayName ?? null })),
    );
  }
}

function checkRange(from: string, to: string): void {
  requireDates(from, to);
  requireOrdered(from, to);
  if (addDays(from, MAX_DAYS - 1) < to) throw new FpaError('validation_error', `from..to must be 1 to ${MAX_DAYS} dates`, { fields: ['from', 'to'] });
}

/** Whole minutes as `H:MM` (seconds rounded down): 8 h 5 min 59 s is `8:05`. */
function hoursMinutes(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}

/** One day's row of the export, its wall times in `zone`. */
function exportRow(day: [...ExportDay, string], zone: string): string {
  const [employee, name, date, status, schedule, firstIn, lastOut, worked, expected, late, earlyLeave, overtime, punches, flags] = day;
  const local = (ms: number | null) => (ms === null ? '' : formatLocalWallTime(new Date(ms), zone));
  return csvRow([
    csvText(employee),
    csvText(name ?? ''),
    date,
    status,
    csvText(schedule ?? ''),
    local(firstIn),
    local(lastOut),
    hoursMinutes(worked),
    String(worked),
    hoursMinutes(expected),
    String(expected),
    hoursMinutes(late),
    String(late),
    hoursMinutes(earlyLeave),
    String(earlyLeave),
    hoursMinutes(overtime),
    String(overtime),
    String(punches),
    csvField(flags.join(' ')),
  ]);
}

/** A day as the export reads it (exportPage's `json_array`, in that order). */
type ExportDay = [
  employee: string,
  name: string | null,
  date: string,
  status: string,
  schedule: string | null,
  firstIn: number | null,
  lastOut: number | null,
  worked: number,
  expected: number,
  late: number,
  earlyLeave: number,
  overtime: number,
  punches: number,
  flags: string[],
  zone: string | null,
];
