/**
 * generate-absences: for each enrollee active now, from the date their attendance starts (the
 * earliest of the day they were enrolled, their first day with punches, and the first day of a
 * schedule assigned to them alone: a company going live mid-period backdates people that way),
 * writes the day its plan says where the date has no record yet: `absent` on a workday
 * (expecting its shift), `non_working_day`, `holiday` or `on_leave`. A day with punches always has a record,
 * so it is never overwritten; dates of a locked pay period are left alone (counted as `locked`,
 * not `unchanged`: whether they have a day is not even looked at); running twice
 * changes nothing. One date (default: yesterday) or a range (`to` defaults to yesterday: a day
 * is not absent before it is over). Each person's dates are those of their own time zone
 * (calendar/plan.ts `zoneOf`): with areas in several zones, "yesterday" is yesterday in each of
 * them, the run covers the dates from the westmost zone's yesterday to the eastmost's, and a
 * person gets no day of a date not over yet where they are. Each day written is announced
 * (`attendance_day_changed`, in the transaction that writes it), as every other written day is;
 * a day that was there already is not.
 */

import { chunks } from '../../platform/chunks';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { addDays, localDateOf, requireDate, requireOrdered } from '../../platform/time/dates';
import type { CalendarService } from '../calendar';
import type { EnrolleeService } from '../enrollees';
import { type AttendanceDayRow, insertNewDays } from './day-rows';
import { inRanges } from './periods';
import { computeDay } from './rules';
import type { AttendanceRuntime } from './runtime';
import type { AttendanceService } from './service';
import { startsBeforeEnrolment } from './starts';
import type { DayStatus } from './tables';

export type AbsenceResult = {
  from: string;
  to: string;
  absent: number;
  non_working_day: number;
  holiday: number;
  on_leave: number;
  /** Days of active enrollees that already had a record (punches, or an earlier run). */
  unchanged: number;
  /** Person-dates in a locked pay period: left as they were locked, whatever they hold (none, when nothing is locked). */
  locked: number;
};

/** The job's parameters (`params` of `POST jobs/generate-absences/run/`, the options of `fpa:generate-absences`). */
export const ABSENCE_PARAMS = ['date', 'from', 'to'] as const;
export type AbsenceParams = Partial<Record<(typeof ABSENCE_PARAMS)[number], string>>;

/** Dates from..to, both included. */
type DateRange = { from: string; to: string };

/** Enrollees written per transaction at most (a run of one date: the nightly run). */
const ABSENCE_CHUNK = 500;
/**
 * Person-dates per transaction at most: each is a day and its event to write, so a range's run
 * takes fewer people at a time (a month: 96) and never holds the writer long.
 */
const DAYS_PER_WRITE = 3000;
const MAX_DAYS = 366;

export class Absences {
  constructor(
    private readonly ctx: AttendanceRuntime,
    private readonly attendance: AttendanceService,
    private readonly calendar: CalendarService,
    private readonly enrollees: EnrolleeService,
  ) {}

  /**
   * The dates a run covers, or a validation_error naming the value that cannot be: a date that is
   * none, `date` with `from`/`to` (one date or a range), a range backwards or over MAX_DAYS, a day
   * not over yet. The job checks it before it runs (runner.ts), so a typo is refused, not a failed run.
   */
  async range(params: AbsenceParams = {}): Promise<{ from: string; to: string }> {
    // The eastmost zone's today: a date from it on is over nowhere (all one date without zoned areas).
    const { earliest, latest: today } = await this.attendance.zones.todays();
    const given = (v: string | undefined) => v !== undefined && v !== '';
    if (given(params.date) && (given(params.from) || given(params.to))) {
      throw new FpaError('validation_error', 'date and from/to exclude each other: give one date, or a range', { ...params });
    }
    const single = given(params.date) ? requireDate(params.date!, 'date') : addDays(today, -1);
    // Yesterday in every zone: from the westmost zone's on (one date without zoned areas).
    const from = given(params.from) ? requireDate(params.from!, 'from') : given(params.date) ? single : addDays(earliest, -1);
    const to = given(params.to) ? requireDate(params.to!, 'to') : given(params.from) ? addDays(today, -1) : single;
    requireOrdered(from, to);
    if (addDays(from, MAX_DAYS - 1) < to) throw new FpaError('validation_error', `from ${from} to ${to} is more than ${MAX_DAYS} dates`, { from, to });
    // Today is not over: its shifts (a night shift ends tomorrow) may still be worked.
    if (to >= today) {
      throw new FpaError('validation_error', `absences cannot be generated for a date not over yet: ${to} (today is ${today})`, { date: to, today });
    }
    return { from, to };
  }

  /**
   * What a scheduled run covers: from the date the run of the previous slot covered (so a night
   * whose run failed is covered again) to yesterday, the nights a machine
   * switched off missed included; yesterday alone when no run came before. Dates covered twice
   * change nothing.
   */
  async scheduledParams(previousSlot: number | null): Promise<AbsenceParams> {
    if (previousSlot === null) return {};
    const { latest, zones } = await this.attendance.zones.todays();
    const yesterday = addDays(latest, -1);
    // The date the previous run covered in the westmost zone.
    const from = addDays(zones.map((z) => localDateOf(previousSlot, z)).sort()[0]!, -1);
    return from > yesterday ? {} : this.runOver({ from, to: yesterday });
  }

  /** The parameters of a run over these dates, the last MAX_DAYS of them at most (earlier dates' nights have long run). */
  runOver(dates: { from: string; to: string }): AbsenceParams {
    const earliest = addDays(dates.to, -(MAX_DAYS - 1));
    return { from: [dates.from, earliest].sort().at(-1), to: dates.to };
  }

  async generate(params: AbsenceParams = {}): Promise<AbsenceResult> {
    // Days with punches first, so an absence is never written over a day not yet computed.
    await this.attendance.follower.catchUp();
    const { from, to } = await this.range(params);
    const result: AbsenceResult = { from, to, absent: 0, non_working_day: 0, holiday: 0, on_leave: 0, unchanged: 0, locked: 0 };
    // Everyone active: someone enrolled today may have days to fill before (see startsOf).
    const candidates = await this.enrollees.activeCreatedBefore(this.ctx.db.orm, Number.MAX_SAFE_INTEGER);
    const locked = await this.attendance.periods.lockedIn(this.ctx.db.orm, from, to);
    /** Person-dates from the start of each person's attendance outside locked periods (written now, or kept as they were). */
    let counted = 0;
    const perWrite = Math.max(1, Math.min(ABSENCE_CHUNK, Math.floor(DAYS_PER_WRITE / daysBetween(from, to))));
    for (const chunk of chunks(candidates, perWrite)) {
      const done = await this.ctx.db.write((w) => this.writeChunk(w, chunk, { from, to }, locked));
      counted += done.counted;
      result.locked += done.locked;
      for (const { status } of done.written) result[status as Exclude<DayStatus, 'present' | 'incomplete'>]++;
    }
    result.unchanged = counted - result.absent - result.non_working_day - result.holiday - result.on_leave;
    return result;
  }

  /**
   * The days without a record of these people's dates from..to (not before their attendance
   * starts, not in a locked period), written and announced. `counted`: their person-dates
   * outside locked periods; `locked`: those in one.
   */
  private async writeChunk(
    w: WriteContext,
    chunk: readonly { id: string; employeeKey: string }[],
    range: DateRange,
    locked: readonly DateRange[],
  ): Promise<{ counted: number; locked: number; written: AttendanceDayRow[] }> {
    const { from, to } = range;
    const now = this.ctx.clock.now();
    const todays = new Map<string | undefined, string>();
    const todayIn = (zone: string | undefined) => {
      const known = todays.get(zone);
      if (known !== undefined) return known;
      const today = localDateOf(now, zone ?? this.ctx.settings.ATTENDANCE_TIME_ZONE);
      todays.set(zone, today);
      return today;
    };
    const ids = chunk.map((e) => e.id);
    const { people, planner } = await this.calendar.plannerFor(w.tx, ids, from, to);
    // An enrolment's date is read where the person works (their zone on it: calendar/plan.ts).
    const dates = new Map(ids.map((id, i) => [id, planner.datesOf(people[i]!)]));
    const starts = await this.startsOf(w.tx, ids, from, (id, at) => dates.get(id)?.(at) ?? localDateOf(at, this.attendance.timeZone));
    let counted = 0;
    let lockedDates = 0;
    const rows: AttendanceDayRow[] = [];
    chunk.forEach((e, i) => {
      const start = starts.get(e.id) ?? from;
      for (const plan of planner.plans(people[i]!, from, to)) {
        // Not before the person's attendance starts, nor a date not over yet in their zone, never in a locked period.
        if (plan.date < start || plan.date >= todayIn(plan.zone)) continue;
        if (inRanges(plan.date, locked)) {
          lockedDates++;
          continue;
        }
        counted++;
        rows.push({
          enrolleeId: e.id,
          employeeKey: e.employeeKey,
          date: plan.date,
          ...computeDay(plan, [], 0),
          punches: [],
          updatedAt: now,
          zone: plan.zone ?? null,
        });
      }
    });
    // Only the days inserted come back: a date that had one already is neither counted nor announced.
    const written = await insertNewDays(w, rows);
    await this.attendance.announceWritten(w, written);
    return { counted, locked: lockedDates, written };
  }

  /**
   * The date each person's attendance starts, for those enrolled after `from` (anyone enrolled
   * before counts from `from` anyway): the earliest of their enrolment's date, their first day
   * with punches and the first day of a schedule assigned to them alone (starts.ts, the rule the
   * Today board and the daily report list people by too). `dateOf`: an instant's date for a
   * person (in their zone).
   */
  private async startsOf(q: Queryable, ids: readonly string[], from: string, dateOf: (id: string, at: number) => string): Promise<Map<string, string>> {
    const starts = new Map<string, string>();
    for (const [id, row] of await this.enrollees.byIds(q, ids)) {
      const enrolled = dateOf(id, row.createdAt);
      if (enrolled > from) starts.set(id, enrolled);
    }
    if (starts.size === 0) return starts;
    for (const [id, date] of await startsBeforeEnrolment(q, [...starts.keys()])) if (date < starts.get(id)!) starts.set(id, date);
    return starts;
  }
}

/** How many dates from..to holds, both included (`YYYY-MM-DD` parses as UTC midnight: no zone in it). */
const daysBetween = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;
