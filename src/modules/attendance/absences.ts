/**
 * generate-absences: for each enrollee active now and created before a date ended, writes the
 * day its plan says where the date has no record yet: `absent` on a workday (expecting its
 * shift), `non_working_day`, `holiday` or `on_leave`. A day with punches always has a record,
 * so it is never overwritten; dates of a locked pay period are left alone; running twice
 * changes nothing. One date (default: yesterday in ATTENDANCE_TIME_ZONE) or a range (`to`
 * defaults to yesterday: a day is not absent before it is over).
 */
import { chunks } from '../../platform/chunks';
import { FpaError } from '../../platform/errors';
import { addDays, dayBounds, requireDate } from '../../platform/time/dates';
import type { CalendarService } from '../calendar';
import type { EnrolleeService } from '../enrollees';
import { inRanges } from './periods';
import { computeDay } from './rules';
import type { AttendanceRuntime } from './runtime';
import type { AttendanceService } from './service';
import { attendanceDays, type DayStatus } from './tables';

export type AbsenceResult = {
  from: string;
  to: string;
  absent: number;
  non_working_day: number;
  holiday: number;
  on_leave: number;
  /** Days of active enrollees that already had a record (punches, or an earlier run), or were locked. */
  unchanged: number;
};

/** Enrollees written per transaction, so the writer is never held long. */
const ABSENCE_CHUNK = 500;
const MAX_DAYS = 366;

export class Absences {
  constructor(
    private readonly ctx: AttendanceRuntime,
    private readonly attendance: AttendanceService,
    private readonly calendar: CalendarService,
    private readonly enrollees: EnrolleeService,
  ) {}

  async generate(params: { date?: string; from?: string; to?: string } = {}): Promise<AbsenceResult> {
    // Days with punches first, so an absence is never written over a day not yet computed.
    await this.attendance.follower.catchUp();
    const zone = this.attendance.timeZone;
    const today = this.attendance.today();
    const given = (v: string | undefined) => v !== undefined && v !== '';
    const single = given(params.date) ? requireDate(params.date!, 'date') : addDays(today, -1);
    const from = given(params.from) ? requireDate(params.from!, 'from') : single;
    const to = given(params.to) ? requireDate(params.to!, 'to') : given(params.from) ? addDays(today, -1) : single;
    if (to < from || addDays(from, MAX_DAYS - 1) < to) throw new FpaError('validation_error', `from..to must be 1 to ${MAX_DAYS} dates`, { from, to });
    if (to > today) throw new FpaError('validation_error', 'absences cannot be generated for a future date', { date: to, today });
    const result: AbsenceResult = { from, to, absent: 0, non_working_day: 0, holiday: 0, on_leave: 0, unchanged: 0 };
    const candidates = await this.enrollees.activeCreatedBefore(this.ctx.db.orm, dayBounds(to, zone).end);
    const locked = await this.attendance.periods.lockedIn(this.ctx.db.orm, from, to);
    for (const chunk of chunks(candidates, ABSENCE_CHUNK)) {
      await this.ctx.db.write(async ({ tx }) => {
        const now = this.ctx.clock.now();
        const { people, planner } = await this.calendar.plannerFor(
          tx,
          chunk.map((e) => e.id),
          from,
          to,
        );
        const createdAt = await this.enrollees.byIds(
          tx,
          chunk.map((e) => e.id),
        );
        const rows: (typeof attendanceDays.$inferInsert)[] = [];
        chunk.forEach((e, i) => {
          for (const plan of planner.plans(people[i]!, from, to)) {
            // Not before the person was enrolled, never in a locked period.
            if (inRanges(plan.date, locked) || (createdAt.get(e.id)?.createdAt ?? 0) >= dayBounds(plan.date, zone).end) continue;
            rows.push({ enrolleeId: e.id, employeeKey: e.employeeKey, date: plan.date, ...computeDay(plan, [], 0), updatedAt: now });
          }
        });
        for (const part of chunks(rows, 300)) {
          const inserted = await tx.insert(attendanceDays).values(part).onConflictDoNothing().returning({ status: attendanceDays.status });
          for (const { status } of inserted) result[status as Exclude<DayStatus, 'present' | 'incomplete'>]++;
        }
      });
    }
    const dates = Math.round((dayBounds(to, 'UTC').start - dayBounds(from, 'UTC').start) / 86_400_000) + 1;
    result.unchanged = candidates.length * dates - result.absent - result.non_working_day - result.holiday - result.on_leave;
    return result;
  }
}
