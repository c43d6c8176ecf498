/**
 * The stored attendance days: read and written with raw statements (attendance recomputes days
 * with every batch of punches, where the query builder costs more than the queries), compared,
 * and shown as the API's view.
 */
import type { InValue } from '@libsql/client';
import { and, eq, getTableName } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { WriteContext } from '../../platform/db/client';
import { placeholders } from '../../platform/db/placeholders';
import type { AttendanceDayView } from './model';
import { attendanceDays, type DayStatus } from './tables';

export type AttendanceDayRow = typeof attendanceDays.$inferSelect;

/** Days per upsert (17 columns a row). */
const WRITE_CHUNK = 300;
const DAY_COLUMNS = [
  'enrollee_id',
  'employee_key',
  'date',
  'first_in',
  'last_out',
  'worked_seconds',
  'punch_count',
  'status',
  'flags',
  'schedule',
  'expected_seconds',
  'late_seconds',
  'early_leave_seconds',
  'overtime_seconds',
  'updated_at',
  'punches',
  'zone',
] as const;
const upsertSqlByCount = new Map<number, string>();

function upsertDaysSql(count: number): string {
  let text = upsertSqlByCount.get(count);
  if (!text) {
    const row = `(${placeholders(DAY_COLUMNS.length)})`;
    const set = DAY_COLUMNS.filter((c) => c !== 'enrollee_id' && c !== 'date')
      .map((c) => `${c} = excluded.${c}`)
      .join(', ');
    text = `insert into ${getTableName(attendanceDays)} (${DAY_COLUMNS.join(', ')}) values ${Array.from({ length: count }, () => row).join(', ')} on conflict (enrollee_id, date) do update set ${set}`;
    upsertSqlByCount.set(count, text);
  }
  return text;
}

function dayArgs(d: AttendanceDayRow): InValue[] {
  return [
    d.enrolleeId,
    d.employeeKey,
    d.date,
    d.firstIn,
    d.lastOut,
    d.workedSeconds,
    d.punchCount,
    d.status,
    JSON.stringify(d.flags),
    d.schedule,
    d.expectedSeconds,
    d.lateSeconds,
    d.earlyLeaveSeconds,
    d.overtimeSeconds,
    d.updatedAt,
    d.punches === null ? null : JSON.stringify(d.punches),
    d.zone,
  ];
}

/** A stored day from a raw row of DAY_COLUMNS. */
function dayOfRow(r: Record<string, unknown>): AttendanceDayRow {
  const num = (v: unknown) => (v === null ? null : Number(v));
  return {
    enrolleeId: String(r.enrollee_id),
    employeeKey: String(r.employee_key),
    date: String(r.date),
    firstIn: num(r.first_in),
    lastOut: num(r.last_out),
    workedSeconds: Number(r.worked_seconds),
    punchCount: Number(r.punch_count),
    status: String(r.status) as DayStatus,
    flags: JSON.parse(String(r.flags)) as string[],
    schedule: r.schedule === null ? null : String(r.schedule),
    expectedSeconds: Number(r.expected_seconds),
    lateSeconds: Number(r.late_seconds),
    earlyLeaveSeconds: Number(r.early_leave_seconds),
    overtimeSeconds: Number(r.overtime_seconds),
    updatedAt: Number(r.updated_at),
    punches: r.punches === null ? null : (JSON.parse(String(r.punches)) as { at: number; corrected: boolean }[]),
    zone: r.zone === null || r.zone === undefined ? null : String(r.zone),
  };
}

/**
 * The stored days of these enrollees on these dates, by enrollee then date. Raw (the columns
 * in DAY_COLUMNS order): it runs with every batch of punches.
 */
export async function readDays(w: WriteContext, enrolleeIds: readonly string[], dates: readonly string[]): Promise<Map<string, Map<string, AttendanceDayRow>>> {
  const out = new Map<string, Map<string, AttendanceDayRow>>();
  const { rows } = await w.execute({
    sql: `select ${DAY_COLUMNS.join(', ')} from ${getTableName(attendanceDays)} where enrollee_id in (${placeholders(enrolleeIds.length)}) and date in (${placeholders(dates.length)})`,
    args: [...enrolleeIds, ...dates],
  });
  for (const r of rows) {
    const row = dayOfRow(r);
    const own = out.get(row.enrolleeId) ?? new Map<string, AttendanceDayRow>();
    own.set(row.date, row);
    out.set(row.enrolleeId, own);
  }
  return out;
}

/**
 * Inserts the days that have no record yet and answers those it inserted, as stored; a day
 * already there is left as it is and not answered (generate-absences). Raw, as writeDays: a
 * month of absences for 10,000 people is 310,000 rows, and the query builder's insert took half
 * as long again (37 s against 56 s, on a busy machine).
 */
export async function insertNewDays(w: WriteContext, days: readonly AttendanceDayRow[]): Promise<AttendanceDayRow[]> {
  const out: AttendanceDayRow[] = [];
  for (const chunk of chunks(days, WRITE_CHUNK)) {
    const row = `(${placeholders(DAY_COLUMNS.length)})`;
    const { rows } = await w.execute({
      sql: `insert into ${getTableName(attendanceDays)} (${DAY_COLUMNS.join(', ')}) values ${Array.from({ length: chunk.length }, () => row).join(', ')} on conflict (enrollee_id, date) do nothing returning ${DAY_COLUMNS.join(', ')}`,
      args: chunk.flatMap(dayArgs),
    });
    out.push(...rows.map(dayOfRow));
  }
  return out;
}

/** Upserts the days written (raw multi-row statements) and deletes the days removed. */
export async function writeDays(w: WriteContext, writes: readonly AttendanceDayRow[], removed: readonly AttendanceDayRow[]): Promise<void> {
  for (const chunk of chunks(writes, WRITE_CHUNK)) await w.execute({ sql: upsertDaysSql(chunk.length), args: chunk.flatMap(dayArgs) });
  for (const day of removed) await w.tx.delete(attendanceDays).where(and(eq(attendanceDays.enrolleeId, day.enrolleeId), eq(attendanceDays.date, day.date)));
}

/**
 * Whether two rows of a day show the same result (`updated_at` aside): all a subscriber sees of
 * it (`attendanceDayView`), so a day that differs only in its stored punches (`samePunches`) is
 * the same day to them.
 */
export function sameDay(a: AttendanceDayRow, b: AttendanceDayRow): boolean {
  return (
    a.firstIn === b.firstIn &&
    a.lastOut === b.lastOut &&
    a.workedSeconds === b.workedSeconds &&
    a.punchCount === b.punchCount &&
    a.status === b.status &&
    a.schedule === b.schedule &&
    a.expectedSeconds === b.expectedSeconds &&
    a.lateSeconds === b.lateSeconds &&
    a.earlyLeaveSeconds === b.earlyLeaveSeconds &&
    a.overtimeSeconds === b.overtimeSeconds &&
    a.employeeKey === b.employeeKey &&
    a.flags.length === b.flags.length &&
    a.flags.every((f, i) => f === b.flags[i])
  );
}

/** Whether two rows of a day list the same punches (none: null, or an empty list). */
export function samePunches(a: AttendanceDayRow, b: AttendanceDayRow): boolean {
  return JSON.stringify(a.punches ?? []) === JSON.stringify(b.punches ?? []);
}

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
    schedule: row.schedule,
    expected_seconds: row.expectedSeconds,
    late_seconds: row.lateSeconds,
    early_leave_seconds: row.earlyLeaveSeconds,
    overtime_seconds: row.overtimeSeconds,
  };
}

export { localDates } from '../../platform/time/local-dates';

/** The filters of `attendance-days/`. */
export interface AttendanceDayFilters {
  employee?: string;
  /** One enrollee id, or several separated by commas. */
  enrollee?: string;
  /** Only the days of people not active now (deactivated or deleted since). */
  inactive?: boolean;
  from?: string;
  to?: string;
  status?: string;
  cursor?: string;
  limit?: number;
}
