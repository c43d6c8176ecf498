import { and, asc, desc, eq, gt, gte, inArray, lt, lte, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { cursorOf, type Page, twoKeyCursor } from '../../platform/http/paging';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import { addDays, dateFilter, dayBounds, localDateOf, requireDate } from '../../platform/time/dates';
import { type CalendarEvents, type CalendarResume, type CalendarService, type ChangeTouches, recomputeInSteps, type Touch } from '../calendar';
import type { EnrolleeEvents, EnrolleeService } from '../enrollees';
import { type EventChannel, type EventLog, type FollowerStop, LogFollower, type LoggedEvent } from '../events';
import type { LoggedPunchEvents, PunchEvents, PunchService, PunchView } from '../punches';
import { punchesByDay, punchesOfDay } from './day-punches';
import type { AttendanceDayFilters } from './day-rows';
import { type AttendanceDayRow, attendanceDayView, localDates, readDays, writeDays } from './day-rows';
import type { AttendanceEvents } from './events';
import type { AttendanceDayView } from './model';
import { inRanges, PayPeriods } from './periods';
import { purgeDaysBefore, purgeResetClockDays } from './purge';
import { type DayRules, type RecomputeOut, recomputePerson, targetsOf } from './recompute-days';
import { attribute, type CountedPunch } from './rules';
import type { AttendanceRuntime } from './runtime';
import { attendanceDays, DAY_STATUSES, type DayStatus } from './tables';
import { AttendanceZones } from './zones';

/** Enrollees per read when days are recomputed. */
const READ_CHUNK = 500;
/** Enrollees per transaction of a recompute on request. */
const RECOMPUTE_GROUP = 100;
/** The longest range `POST attendance-days/recompute/` takes. */
const MAX_RECOMPUTE_DAYS = 366;

/** New or voided punches of one enrollee: their instants, and the employee key their events name. */
interface Changed {
  instants: number[];
  employee: string | null;
}

export class AttendanceService {
  readonly events: EventChannel<AttendanceEvents>;
  /** Days follow the log after the commit: a terminal's upload does not wait for them. */
  readonly follower: LogFollower;
  readonly periods: PayPeriods;
  readonly zones: AttendanceZones;
  readonly timeZone: string;
  private readonly repeatWindowMs: number;
  private readonly slackMs: number;
  private readonly overtimeMinimumMs: number;

  constructor(
    private readonly ctx: AttendanceRuntime,
    log: EventLog,
    private readonly punches: PunchService,
    private readonly enrollees: EnrolleeService,
    private readonly calendar: CalendarService,
  ) {
    this.events = log.channel<AttendanceEvents>();
    this.periods = new PayPeriods(ctx, this.events);
    this.zones = new AttendanceZones(ctx, calendar);
    this.follower = new LogFollower(ctx, log, {
      name: 'attendance',
      types: ['punch_received', 'punches_attributed', 'punch_voided', 'calendar_changed', 'enrollee_updated'],
      apply: (w, events, resume) => this.apply(w, events, resume as CalendarResume | null),
    });
    const s = ctx.settings;
    this.timeZone = s.ATTENDANCE_TIME_ZONE;
    this.repeatWindowMs = s.ATTENDANCE_REPEAT_PUNCH_WINDOW;
    this.slackMs = s.ATTENDANCE_SHIFT_SLACK;
    this.overtimeMinimumMs = s.ATTENDANCE_OVERTIME_MINIMUM;
  }

  /** The local date of an instant in the attendance zone. */
  dateOf(instantMs: number): string {
    return localDateOf(instantMs, this.timeZone);
  }

  today(): string {
    return this.dateOf(this.ctx.clock.now());
  }

  /** Reports: per enrollee and date from..to, the punches that count for the day (day-punches.ts). */
  dayPunches(enrolleeIds: readonly string[], from: string, to: string): Promise<Map<string, Map<string, CountedPunch[]>>> {
    return punchesByDay(this.daySources(), { orm: this.ctx.db.orm, execute: (s) => this.ctx.db.client.execute(s) }, enrolleeIds, from, to);
  }

  /** `GET attendance-days/{enrollee}/{date}/punches`: the punches the day is made of, deleted people's too (day-punches.ts). */
  punchesOfDay(enrolleeId: string, date: string, scope: AreaScope = EVERYWHERE): Promise<{ results: PunchView[] }> {
    return punchesOfDay({ ...this.daySources(), enrollees: this.enrollees }, this.ctx.db.orm, { enrolleeId, date }, scope);
  }

  private daySources() {
    return { calendar: this.calendar, punches: this.punches, timeZone: this.timeZone, slackMs: this.slackMs };
  }

  /**
   * Applies logged events to the days they touch (the follower's step, in its transaction);
   * calendar changes in steps of bounded size (calendar/steps.ts), from `resume` on.
   */
  private async apply(w: WriteContext, events: readonly LoggedEvent[], resume: CalendarResume | null): Promise<FollowerStop | undefined> {
    // Punches (new or voided): per enrollee, their instants; only the days they belong to change.
    const changed = new Map<string, Changed>();
    const touches: Touch[] = [];
    const calendarChanges: ChangeTouches[] = [];
    // A punch purged by retention since (null) has no day left to change.
    const punchAt = (punch: PunchView | null) => {
      if (!punch?.enrollee) return;
      const seen = changed.get(punch.enrollee);
      if (seen) seen.instants.push(Date.parse(punch.punched_at));
      else changed.set(punch.enrollee, { instants: [Date.parse(punch.punched_at)], employee: punch.employee });
    };
    for (const event of events) {
      if (event.type === 'punch_received') punchAt((event.data as LoggedPunchEvents['punch_received']).punch);
      else if (event.type === 'punch_voided') punchAt((event.data as LoggedPunchEvents['punch_voided']).punch);
      else if (event.type === 'punches_attributed') {
        const data = event.data as PunchEvents['punches_attributed'];
        const span =
          data.first_punched_at && data.last_punched_at
            ? { first: Date.parse(data.first_punched_at), last: Date.parse(data.last_punched_at) }
            : await this.punches.counted.spanOf(w.tx, data.enrollee);
        if (span) touches.push({ enrollees: new Set([data.enrollee]), from: this.dateOf(span.first), to: this.dateOf(span.last) });
      } else if (event.type === 'calendar_changed') {
        calendarChanges.push({ sequence: event.sequence, touches: await this.touchesOf(w, event.data as CalendarEvents['calendar_changed']) });
      } else if (event.type === 'enrollee_updated') {
        const moved = await this.moveTouch(w, event as LoggedEvent<string, EnrolleeEvents['enrollee_updated']>);
        if (moved) touches.push(moved);
      }
    }
    // A terminal's batch is many people on one or two dates: grouped by the range of their dates.
    const dateOf = localDates(this.timeZone);
    const byRange = new Map<string, Touch>();
    for (const [enrollee, { instants }] of changed) {
      let [from, to] = [dateOf(instants[0]!), dateOf(instants[0]!)];
      for (const at of instants) {
        const date = dateOf(at);
        [from, to] = [earlier(from, date), later(to, date)];
      }
      const key = `${from} ${to}`;
      const touch = byRange.get(key) ?? { enrollees: new Set<string>(), from, to };
      touch.enrollees.add(enrollee);
      byRange.set(key, touch);
    }
    // A punch's day is its local date or the date either side (a shift's window may hand it to either).
    for (const touch of byRange.values()) await this.recomputeIn(w, [...touch.enrollees], addDays(touch.from, -1), addDays(touch.to, 1), changed);
    for (const touch of touches) await this.recomputeIn(w, [...touch.enrollees], addDays(touch.from, -1), addDays(touch.to, 1));
    // The first change is the one the last step stopped in, when it did (`resume`); the steps
    // do the dates either side of each touch too (`margin`), for the same reason.
    return recomputeInSteps(
      calendarChanges,
      calendarChanges[0]?.sequence === events[0]?.sequence ? resume : null,
      (ids, from, to) => this.recomputeIn(w, ids, from, to),
      { margin: 1 },
    );
  }

  /**
   * A move to other areas changes the plans from its first date under them on (calendar/plan.ts
   * `areasOn`; the date after the move's), never those before: the person's days from that date
   * on, up to the newest stored day.
   */
  private async moveTouch(w: WriteContext, event: LoggedEvent<string, EnrolleeEvents['enrollee_updated']>): Promise<Touch | null> {
    const { areas } = event.data.changes;
    if (!areas) return null;
    // An event logged before the date was stored: from the move's own date (a day more, harmless).
    const from = areas.effective_from ?? this.dateOf(event.at);
    const span = await this.dataSpan(w);
    if (!span || span.to < from) return null;
    return { enrollees: new Set([event.data.enrollee.id]), from, to: span.to };
  }

  /**
   * Whose days and which dates a calendar change touches, limited to the dates that have data:
   * one touch per range of the change, in its order, nobody's when the range has no data. A step
   * that stops inside the change names its touch by that place (calendar/steps.ts), so the places
   * hold whatever the data are when the next step reads them again.
   */
  private async touchesOf(w: WriteContext, change: CalendarEvents['calendar_changed']): Promise<Touch[]> {
    const span = await this.dataSpan(w);
    if (!span) return change.ranges.map((range) => ({ enrollees: new Set<string>(), from: range.from, to: range.from }));
    const out: Touch[] = [];
    for (const range of change.ranges) {
      const from = later(range.from, span.from);
      const to = range.to === null ? span.to : earlier(range.to, span.to);
      out.push({ enrollees: new Set(from <= to ? await this.peopleOf(w, change, from, to) : []), from, to });
    }
    return out;
  }

  /** The people a calendar change names, or those of its areas, or everyone with data on from..to. */
  private async peopleOf(w: WriteContext, change: CalendarEvents['calendar_changed'], from: string, to: string): Promise<readonly string[]> {
    if (change.enrollees) return change.enrollees;
    // Those who were in the areas before a move too: their days of then are the areas' days.
    if (change.areas) {
      const { membership } = this.enrollees;
      return [...new Set([...(await membership.idsInAreas(w.tx, change.areas)), ...(await membership.idsFormerlyInAreas(w.tx, change.areas))])];
    }
    return this.enrolleesWithData(w.tx, from, to);
  }

  /** The first and last date that hold a day or a punch (null when there is nothing yet). */
  private async dataSpan(w: WriteContext): Promise<{ from: string; to: string } | null> {
    // Two scalar subqueries: SQLite answers a lone min() or max() from the index's edge, but
    // `min(date), max(date)` in one select reads the whole index (this runs in the writer's
    // transaction on every calendar change).
    const [days] = await w.tx
      .select({
        first: sql<string | null>`(select min(${attendanceDays.date}) from ${attendanceDays})`,
        last: sql<string | null>`(select max(${attendanceDays.date}) from ${attendanceDays})`,
      })
      .from(sql`(select 1)`);
    const punched = await this.punches.counted.datedSpan(
      w.tx,
      (instant) => this.dateOf(instant),
      (date) => dayBounds(date, this.timeZone).start,
    );
    const firsts = [days?.first, punched?.first].filter((d): d is string => typeof d === 'string');
    const lasts = [days?.last, punched?.last].filter((d): d is string => typeof d === 'string');
    if (firsts.length === 0) return null;
    return { from: firsts.sort()[0]!, to: lasts.sort()[lasts.length - 1]! };
  }

  /** Enrollees with a day or a punch on dates from..to (a punch's day may be the date before). */
  private async enrolleesWithData(q: Queryable, from: string, to: string): Promise<string[]> {
    const withDays = await q
      .selectDistinct({ id: attendanceDays.enrolleeId })
      .from(attendanceDays)
      .where(and(gte(attendanceDays.date, from), lte(attendanceDays.date, to)));
    const withPunches = await this.punches.counted.enrolleesWithPunches(
      q,
      dayBounds(addDays(from, -1), this.timeZone).start,
      dayBounds(addDays(to, 1), this.timeZone).end,
    );
    return [...new Set([...withDays.map((r) => r.id), ...withPunches])];
  }

  /**
   * Recomputes the days of these enrollees on dates from..to that have punches or a record —
   * or, given `changed` (instants of new or voided punches by enrollee), only the days those
   * punches belong to. Each day is computed against its plan from the punches that belong to it
   * (read from its local date and its shift's window), and only the days whose result changed
   * are written (with `attendance_day_changed`; a change of the stored punches alone quietly). A day of today or later that lost every punch
   * is removed; a past one becomes what its plan says (absent, holiday…). Locked dates are
   * skipped. Answers how many days were recomputed.
   */
  async recomputeIn(w: WriteContext, enrolleeIds: readonly string[], from: string, to: string, changed?: ReadonlyMap<string, Changed>): Promise<number> {
    const locked = await this.periods.lockedIn(w.tx, from, to);
    const [planFrom, planTo] = [addDays(from, -2), addDays(to, 1)];
    const rules: DayRules = {
      todayIn: (zone) => localDateOf(this.ctx.clock.now(), zone ?? this.timeZone),
      now: this.ctx.clock.now(),
      slackMs: this.slackMs,
      repeatWindowMs: this.repeatWindowMs,
      overtimeMinimumMs: this.overtimeMinimumMs,
    };
    // One planner for everyone: the calendar's rows are read once, not per chunk.
    const { people: everyone, planner } = await this.calendar.plannerFor(w.tx, enrolleeIds, planFrom, planTo);
    let count = 0;
    for (const people of chunks(everyone, READ_CHUNK)) {
      const { targets, allDates, start, end } = targetsOf(people, planner, { from, to, planFrom, planTo, locked, changed }, rules);
      if (targets.size === 0) continue;
      const ids = [...targets.keys()];
      const punchesOf = new Map<string, CountedPunch[]>();
      for (const p of await this.punches.counted.countedIn(w.execute, ids, start, end)) {
        const list = punchesOf.get(p.enrolleeId);
        if (list) list.push(p);
        else punchesOf.set(p.enrolleeId, [p]);
      }
      const stored = await readDays(w, ids, [...allDates]);
      // Employee keys of people without a stored day yet (a punch's event names it).
      const keys = await this.enrollees.byIds(
        w.tx,
        ids.filter((id) => !stored.has(id) && !changed?.get(id)?.employee),
      );
      const out: RecomputeOut = { writes: [], quiet: [], removed: [] };
      for (const target of targets.values()) {
        const id = target.person.id;
        const before = stored.get(id);
        const employeeKey = before?.values().next().value?.employeeKey ?? changed?.get(id)?.employee ?? keys.get(id)?.employeeKey ?? '';
        count += recomputePerson(target, punchesOf.get(id) ?? [], before, employeeKey, rules, out);
      }
      await writeDays(w, [...out.writes, ...out.quiet], out.removed);
      await this.announce(w, out.writes, out.removed);
    }
    return count;
  }

  /** `attendance_day_changed` for days written outside a recompute (generate-absences), in the writing transaction. */
  announceWritten(w: WriteContext, writes: readonly AttendanceDayRow[]): Promise<void> {
    return this.announce(w, writes, []);
  }

  /** `attendance_day_changed` for each day written, `attendance_day_removed` for each removed. */
  private async announce(w: WriteContext, writes: readonly AttendanceDayRow[], removed: readonly AttendanceDayRow[]): Promise<void> {
    await this.events.recordMany(
      w,
      'attendance_day_changed',
      writes.map((day) => ({ data: { day: attendanceDayView(day) } })),
    );
    await this.events.recordMany(
      w,
      'attendance_day_removed',
      removed.map((d) => ({ data: { enrollee: d.enrolleeId, employee: d.employeeKey, date: d.date } })),
    );
  }

  /** `POST attendance-days/recompute/`: the days of one enrollee, or of everyone with data, on dates from..to. */
  async recompute(input: { from: string; to: string; enrollee?: string }, scope: AreaScope = EVERYWHERE): Promise<{ recomputed: number }> {
    const from = requireDate(input.from, 'from');
    const to = requireDate(input.to, 'to');
    if (to < from || addDays(from, MAX_RECOMPUTE_DAYS - 1) < to) {
      throw new FpaError('validation_error', `from..to must be 1 to ${MAX_RECOMPUTE_DAYS} dates`, { fields: ['from', 'to'] });
    }
    await this.follower.catchUp();
    let ids: string[];
    if (input.enrollee) {
      const found = await this.enrollees.findByIdOrPin(this.ctx.db.orm, input.enrollee);
      if (!found || !(await this.enrollees.inScope(this.ctx.db.orm, found.id, scope)))
        throw new FpaError('not_found', 'enrollee not found', { enrollee: input.enrollee });
      ids = [found.id];
    } else ids = await this.enrollees.keepInScope(this.ctx.db.orm, await this.enrolleesWithData(this.ctx.db.orm, from, to), scope);
    // A transaction per group of people (the write queue leaves the event loop a turn after
    // each), so that terminals' uploads are not held up for long.
    let recomputed = 0;
    for (const group of chunks(ids, RECOMPUTE_GROUP)) recomputed += await this.ctx.db.write((w) => this.recomputeIn(w, group, from, to));
    return { recomputed };
  }

  /**
   * `POST pay-periods/{id}/lock/`: every punch recorded so far counts, then the period's days are
   * final. Most of the days are brought up to date before the lock's transaction; what came in
   * meanwhile is applied in it, or a punch stored in between would never count (its day locked
   * before the follower reached it, and the punch not flagged `after_lock` either).
   */
  async lockPeriod(id: string, by: string) {
    await this.follower.catchUp();
    const { earliest, earliestZone } = await this.zones.todays();
    return this.periods.lock(id, by, (w) => this.follower.applyAllIn(w), { date: earliest, zone: earliestZone });
  }

  /**
   * The punch flagger: `after_lock` for punches whose day is in a locked pay period. Punches two dates or more after the
   * last locked date cannot be (a shift's window reaches one date back at most): an upload costs one small query.
   */
  async afterLockFlags(w: WriteContext, rows: readonly { enrolleeId: string | null; punchedAt: number }[]): Promise<string[][] | null> {
    const last = await this.periods.lastLockedDate(w);
    if (last === null) return null;
    const threshold = dayBounds(addDays(last, 2), this.timeZone).start;
    const candidates = rows.flatMap((r, i) => (r.enrolleeId !== null && r.punchedAt < threshold ? [{ i, enrolleeId: r.enrolleeId, at: r.punchedAt }] : []));
    if (candidates.length === 0) return null;
    const dates = candidates.map((c) => this.dateOf(c.at)).sort();
    const [first, lastDate] = [addDays(dates[0]!, -2), addDays(dates[dates.length - 1]!, 1)];
    const locked = await this.periods.lockedIn(w.tx, first, lastDate);
    if (locked.length === 0) return null;
    // Stored whatever the host's calendar does: while it fails, by the service's own calendar (calendar/host-calendar.ts).
    const { people, planner } = await this.calendar.plannerFor(w.tx, [...new Set(candidates.map((c) => c.enrolleeId))], first, lastDate, 'lenient');
    const out: string[][] = rows.map(() => []);
    for (const person of people) {
      const own = candidates.filter((c) => c.enrolleeId === person.id);
      const plans = planner.plans(person, first, lastDate);
      attribute(
        own.map((c) => c.at),
        plans,
        this.slackMs,
        planner.datesOf(person),
      ).forEach((date, k) => {
        if (inRanges(date, locked)) out[own[k]!.i]!.push('after_lock');
      });
    }
    return out;
  }

  /** Retention: days before the local date `firstKeptDate` (purge.ts). */
  purgeBefore(firstKeptDate: string): Promise<number> {
    return purgeDaysBefore(this.ctx.db, firstKeptDate);
  }

  /** Retention: the days of a clock that started over of people who have no such punch left (purge.ts). */
  purgeResetClockDays(holders: ReadonlySet<string>): Promise<number> {
    return purgeResetClockDays(this.ctx.db, holders);
  }

  /** `GET attendance-days/`: newest date first, then by enrollee; cursor-paged. */
  async list(filters: AttendanceDayFilters, scope: AreaScope = EVERYWHERE): Promise<Page<AttendanceDayView>> {
    // Read your writes: every punch recorded so far counts.
    await this.follower.catchUp();
    const conditions: SQL[] = [];
    const member = this.enrollees.membership.enrolleeInScope(attendanceDays.enrolleeId, scope);
    if (member) conditions.push(member);
    if (filters.employee) conditions.push(eq(attendanceDays.employeeKey, filters.employee));
    if (filters.enrollee) conditions.push(inArray(attendanceDays.enrolleeId, [...new Set(filters.enrollee.split(','))]));
    if (filters.inactive) conditions.push(this.enrollees.membership.notActive(attendanceDays.enrolleeId));
    const { from, to } = dateFilter(filters);
    if (from) conditions.push(gte(attendanceDays.date, from));
    if (to) conditions.push(lte(attendanceDays.date, to));
    if (filters.status) {
      if (!(DAY_STATUSES as readonly string[]).includes(filters.status)) {
        throw new FpaError('validation_error', `status must be one of ${DAY_STATUSES.join(', ')}`, { field: 'status' });
      }
      conditions.push(eq(attendanceDays.status, filters.status as DayStatus));
    }
    const keys = twoKeyCursor('attendance-days', filters.cursor);
    const after = keys ? { date: keys[0], enrollee: keys[1] } : null;
    const limit = filters.limit ?? 100;
    const read = (extra: SQL | undefined, count: number) =>
      this.ctx.db.orm
        .select()
        .from(attendanceDays)
        .where(and(...conditions, extra))
        .orderBy(desc(attendanceDays.date), asc(attendanceDays.enrolleeId))
        .limit(count);
    // After a cursor, in two seeks (the rest of the cursor's date, then the dates before it)
    // rather than one `date < d or (date = d and enrollee > e)`, which SQLite can only answer by
    // walking the index from the newest date: every page would cost more than the one before.
    let rows =
      after === null
        ? await read(undefined, limit + 1)
        : await read(and(eq(attendanceDays.date, after.date), gt(attendanceDays.enrolleeId, after.enrollee)), limit + 1);
    if (after !== null && rows.length <= limit) rows = [...rows, ...(await read(lt(attendanceDays.date, after.date), limit + 1 - rows.length))];
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      results: page.map(attendanceDayView),
      next_cursor: rows.length > limit && last ? cursorOf('attendance-days', [last.date, last.enrolleeId]) : null,
    };
  }
}

export type { AttendanceDayView };

/** The earlier and the later of two dates `YYYY-MM-DD` (text order is date order). */
const earlier = (a: string, b: string) => (a < b ? a : b);
const later = (a: string, b: string) => (a > b ? a : b);
