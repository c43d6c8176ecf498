/**
 * Attendance days: one row per enrollee and local date of ATTENDANCE_TIME_ZONE, recomputed in
 * the same transaction as the punches that change it (late uploads included: it reacts to
 * `punch_received`), and when earlier punches are attributed to an enrollee. Absences are written by generate-absences.
 * The rules themselves are in ./rules.ts.
 */

import type { InValue } from '@libsql/client';
import { and, asc, desc, eq, getTableName, gte, inArray, lt, lte, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { WriteContext } from '../../platform/db/client';
import { deleteInBatches } from '../../platform/db/purge';
import { FpaError } from '../../platform/errors';
import { decodeCursor, encodeCursor } from '../../platform/http/cursor';
import type { Page } from '../../platform/http/paging';
import type { Runtime } from '../../platform/runtime';
import { addDays, dayBounds, localDateOf, requireDate, secondsOfClock } from '../../platform/time/dates';
import type { EnrolleeService } from '../enrollees';
import { type EventChannel, type EventLog, LogFollower, type LoggedEvent } from '../events';
import type { PunchEvents, PunchService } from '../punches';
import { isWorkingDay } from './calendar';
import type { AttendanceEvents } from './events';
import type { AttendanceDayView } from './model';
import { computeDay, type DayRules } from './rules';
import { attendanceDays, DAY_STATUSES, type DayStatus } from './tables';

export type AttendanceDayRow = typeof attendanceDays.$inferSelect;

export interface AttendanceDayFilters {
  employee?: string;
  enrollee?: string;
  from?: string;
  to?: string;
  status?: string;
  cursor?: string;
  limit?: number;
}

export type AbsenceResult = {
  date: string;
  working_day: boolean;
  absent: number;
  non_working_day: number;
  /** Active enrollees that already had a row for the date (punches, or an earlier run). */
  unchanged: number;
};

/** Enrollees written per transaction by generate-absences, so the writer is never held long. */
const ABSENCE_CHUNK = 500;
/** Enrollees per read and days per upsert when punches are recomputed (10 columns a row). */
const RECOMPUTE_CHUNK = 400;

const DAY_COLUMNS = ['enrollee_id', 'employee_key', 'date', 'first_in', 'last_out', 'worked_seconds', 'punch_count', 'status', 'flags', 'updated_at'] as const;
const upsertSqlByCount = new Map<number, string>();

function upsertDaysSql(count: number): string {
  let text = upsertSqlByCount.get(count);
  if (!text) {
    const row = `(${DAY_COLUMNS.map(() => '?').join(', ')})`;
    const set = DAY_COLUMNS.filter((c) => c !== 'enrollee_id' && c !== 'date')
      .map((c) => `${c} = excluded.${c}`)
      .join(', ');
    text = `insert into ${getTableName(attendanceDays)} (${DAY_COLUMNS.join(', ')}) values ${Array.from({ length: count }, () => row).join(', ')} on conflict (enrollee_id, date) do update set ${set}`;
    upsertSqlByCount.set(count, text);
  }
  return text;
}

export class AttendanceService {
  readonly rules: DayRules;

  readonly events: EventChannel<AttendanceEvents>;
  /** Days follow the log after the commit: a terminal's upload does not wait for them. */
  readonly follower: LogFollower;

  constructor(
    private readonly ctx: Runtime,
    log: EventLog,
    private readonly punches: PunchService,
    private readonly enrollees: EnrolleeService,
  ) {
    this.events = log.channel<AttendanceEvents>();
    this.follower = new LogFollower(ctx, log, {
      name: 'attendance',
      types: ['punch_received', 'punches_attributed'],
      apply: (w, events) => this.apply(w, events),
    });
    const s = ctx.settings;
    let schedule = s.DEFAULT_SCHEDULE;
    if (schedule && (secondsOfClock(schedule.start) === null || secondsOfClock(schedule.end) === null)) {
      // A malformed schedule given in code must never make punch ingestion fail.
      ctx.log.warn('DEFAULT_SCHEDULE is malformed; late / early_leave flags are off', { start: schedule.start, end: schedule.end });
      schedule = null;
    }
    this.rules = {
      timeZone: s.ATTENDANCE_TIME_ZONE,
      schedule,
      weekendDays: s.WEEKEND_DAYS,
      holidays: s.HOLIDAYS,
      repeatWindowMs: s.ATTENDANCE_REPEAT_PUNCH_WINDOW,
    };
  }

  /** Applies logged events to the days they touch (the follower's step, in its transaction). */
  private async apply(w: WriteContext, events: readonly LoggedEvent[]): Promise<void> {
    const punchesSeen: { enrolleeId: string | null; employeeKey: string | null; punchedAt: number }[] = [];
    for (const event of events) {
      if (event.type === 'punch_received') {
        const { punch } = event.data as PunchEvents['punch_received'];
        punchesSeen.push({ enrolleeId: punch.enrollee, employeeKey: punch.employee, punchedAt: Date.parse(punch.punched_at) });
      } else if (event.type === 'punches_attributed') {
        const data = event.data as PunchEvents['punches_attributed'];
        await this.recomputeEnrollee(w, { id: data.enrollee, employeeKey: data.employee });
      }
    }
    await this.recomputeForPunches(w, punchesSeen);
  }

  /** The local date of an instant in the attendance zone. */
  dateOf(instantMs: number): string {
    return localDateOf(instantMs, this.rules.timeZone);
  }

  /**
   * Punch hook: recomputes every (enrollee, date) the new rows touch. A terminal batch is
   * typically many enrollees on one or two dates, so punches are read with one query per date
   * (and chunk of enrollees) and the days written with one multi-row upsert, not two
   * statements per day: this runs inside the ingest transaction, on the hottest write path.
   */
  async recomputeForPunches(w: WriteContext, rows: readonly { enrolleeId: string | null; employeeKey: string | null; punchedAt: number }[]): Promise<void> {
    type Day = { employeeKey: string; instants: number[] };
    const byDate = new Map<string, { start: number; end: number; days: Map<string, Day> }>();
    // The local date is found through the bounds of a date already seen where possible: the
    // zone arithmetic costs far more than the comparison, and a batch spans few dates.
    let last: { date: string; start: number; end: number; days: Map<string, Day> } | null = null;
    for (const row of rows) {
      if (!row.enrolleeId || !row.employeeKey) continue;
      if (!last || row.punchedAt < last.start || row.punchedAt >= last.end) {
        const date = this.dateOf(row.punchedAt);
        let entry = byDate.get(date);
        if (!entry) {
          entry = { ...dayBounds(date, this.rules.timeZone), days: new Map() };
          byDate.set(date, entry);
        }
        last = { date, ...entry };
      }
      last.days.set(row.enrolleeId, { employeeKey: row.employeeKey, instants: [] });
    }
    const recomputed: { enrolleeId: string; employeeKey: string; date: string; instants: number[] }[] = [];
    for (const [date, { start, end, days }] of byDate) {
      for (const f of await this.punches.instantsIn(w.execute, [...days.keys()], start, end)) days.get(f.enrolleeId)?.instants.push(f.at);
      for (const [enrolleeId, day] of days) recomputed.push({ enrolleeId, date, ...day });
    }
    await this.upsertDays(w, recomputed);
  }

  /**
   * Writes recomputed days with one raw multi-row upsert per chunk (the query builder's cost for
   * hundreds of rows exceeds the upsert's own), and records `attendance_day_changed` for each
   * day whose result differs from what was stored.
   */
  private async upsertDays(w: WriteContext, days: readonly { enrolleeId: string; employeeKey: string; date: string; instants: number[] }[]): Promise<void> {
    const now = this.ctx.clock.now();
    const rows = days.filter((d) => d.instants.length > 0);
    const changed: AttendanceDayView[] = [];
    for (const chunk of chunks(rows, RECOMPUTE_CHUNK)) {
      const before = await this.storedDays(w, chunk);
      const args: InValue[] = [];
      for (const d of chunk) {
        const day = computeDay(d.date, d.instants, this.rules);
        args.push(d.enrolleeId, d.employeeKey, d.date, day.firstIn, day.lastOut, day.workedSeconds, day.punchCount, day.status, JSON.stringify(day.flags), now);
        const view = attendanceDayView({ enrolleeId: d.enrolleeId, employeeKey: d.employeeKey, date: d.date, ...day, updatedAt: now });
        if (JSON.stringify(view) !== before.get(`${d.enrolleeId} ${d.date}`)) changed.push(view);
      }
      await w.execute({ sql: upsertDaysSql(chunk.length), args });
    }
    await this.events.recordMany(
      w,
      'attendance_day_changed',
      changed.map((day) => ({ data: { day } })),
    );
  }

  /** The stored views of these (enrollee, date) days, by `enrollee date`, as JSON for comparison. */
  private async storedDays(w: WriteContext, days: readonly { enrolleeId: string; date: string }[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (days.length === 0) return out;
    const rows = await w.tx
      .select()
      .from(attendanceDays)
      .where(
        and(
          inArray(attendanceDays.enrolleeId, [...new Set(days.map((d) => d.enrolleeId))]),
          inArray(attendanceDays.date, [...new Set(days.map((d) => d.date))]),
        ),
      );
    for (const row of rows) out.set(`${row.enrolleeId} ${row.date}`, JSON.stringify(attendanceDayView(row)));
    return out;
  }

  /** Recomputes every day of one enrollee from all its punches (after earlier punches were linked). */
  async recomputeEnrollee(w: WriteContext, enrollee: { id: string; employeeKey: string }): Promise<number> {
    const byDate = new Map<string, number[]>();
    for (const at of await this.punches.instantsOf(w.tx, enrollee.id)) {
      const date = this.dateOf(at);
      const list = byDate.get(date);
      if (list) list.push(at);
      else byDate.set(date, [at]);
    }
    await this.upsertDays(
      w,
      [...byDate].map(([date, instants]) => ({ enrolleeId: enrollee.id, employeeKey: enrollee.employeeKey, date, instants })),
    );
    return byDate.size;
  }

  /**
   * generate-absences: for each enrollee active now and created before the date ended, writes
   * `absent` (working day) or `non_working_day` where the date has no row yet. A day with
   * punches always has a row, so it is never overwritten; running twice changes nothing.
   */
  async generateAbsences(params: { date?: string } = {}): Promise<AbsenceResult> {
    // Days with punches first, so an absence is never written over a day not yet computed.
    await this.follower.catchUp();
    const zone = this.rules.timeZone;
    const today = this.dateOf(this.ctx.clock.now());
    const date = params.date === undefined || params.date === '' ? addDays(today, -1) : requireDate(params.date, 'date');
    if (date > today) throw new FpaError('validation_error', 'absences cannot be generated for a future date', { date, today });
    const working = isWorkingDay(date, this.rules);
    const status: DayStatus = working ? 'absent' : 'non_working_day';
    const { end } = dayBounds(date, zone);
    const candidates = await this.enrollees.activeCreatedBefore(this.ctx.db.orm, end);
    let written = 0;
    for (const chunk of chunks(candidates, ABSENCE_CHUNK)) {
      written += await this.ctx.db.write(async ({ tx }) => {
        const now = this.ctx.clock.now();
        const inserted = await tx
          .insert(attendanceDays)
          .values(
            chunk.map((e) => ({
              enrolleeId: e.id,
              employeeKey: e.employeeKey,
              date,
              firstIn: null,
              lastOut: null,
              workedSeconds: 0,
              punchCount: 0,
              status,
              flags: [],
              updatedAt: now,
            })),
          )
          .onConflictDoNothing()
          .returning({ id: attendanceDays.enrolleeId });
        return inserted.length;
      });
    }
    return {
      date,
      working_day: working,
      absent: working ? written : 0,
      non_working_day: working ? 0 : written,
      unchanged: candidates.length - written,
    };
  }

  /** Retention: days before the local date `firstKeptDate`. */
  purgeBefore(firstKeptDate: string): Promise<number> {
    return deleteInBatches(this.ctx.db, attendanceDays, lt(attendanceDays.date, firstKeptDate));
  }

  /** `GET attendance-days/`: newest date first, then by enrollee; cursor-paged. */
  async list(filters: AttendanceDayFilters): Promise<Page<AttendanceDayView>> {
    // Read your writes: every punch recorded so far counts.
    await this.follower.catchUp();
    const conditions: SQL[] = [];
    if (filters.employee) conditions.push(eq(attendanceDays.employeeKey, filters.employee));
    if (filters.enrollee) conditions.push(eq(attendanceDays.enrolleeId, filters.enrollee));
    if (filters.from) conditions.push(gte(attendanceDays.date, requireDate(filters.from, 'from')));
    if (filters.to) conditions.push(lte(attendanceDays.date, requireDate(filters.to, 'to')));
    if (filters.status) {
      if (!(DAY_STATUSES as readonly string[]).includes(filters.status)) {
        throw new FpaError('validation_error', `status must be one of ${DAY_STATUSES.join(', ')}`, { field: 'status' });
      }
      conditions.push(eq(attendanceDays.status, filters.status as DayStatus));
    }
    if (filters.cursor) {
      const decoded = decodeCursor(filters.cursor);
      const [date, enrollee] = decoded ?? [];
      if (typeof date !== 'string' || typeof enrollee !== 'string') throw new FpaError('invalid_cursor', 'the cursor is not valid', {});
      conditions.push(sql`(${attendanceDays.date} < ${date} or (${attendanceDays.date} = ${date} and ${attendanceDays.enrolleeId} > ${enrollee}))`);
    }
    const limit = filters.limit ?? 100;
    const rows = await this.ctx.db.orm
      .select()
      .from(attendanceDays)
      .where(conditions.length ? and(...conditions) : undefined)
      .orderBy(desc(attendanceDays.date), asc(attendanceDays.enrolleeId))
      .limit(limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      results: page.map(attendanceDayView),
      next_cursor: rows.length > limit && last ? encodeCursor([last.date, last.enrolleeId]) : null,
    };
  }
}

export type { AttendanceDayView };

export function attendanceDayView(row: AttendanceDayRow): AttendanceDayView {
  return {
    employee: row.employeeKey,
    enrollee: row.enrolleeId,
    date: row.date,
    first_in: row.firstIn === null ? null : new Date(row.firstIn).toISOString(),
    last_out: row.lastOut === null ? null : new Date(row.lastOut).toISOString(),
    worked_seconds: row.workedSeconds,
    punch_count: row.punchCount,
    status: row.status,
    flags: row.flags,
  };
}
