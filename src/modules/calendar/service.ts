/**
 * The working calendar: holidays, area weekends, leaves (./days-off.ts), work schedules and
 * their assignments (./schedules.ts), resolved per person and date by ./plan.ts. Settings stay
 * the defaults where no row says otherwise: DEFAULT_SCHEDULE, WEEKEND_DAYS, HOLIDAYS.
 *
 * A host may keep leave or rosters itself: a provider (`addProvider`) adds them to every plan,
 * and `calendarChanged` tells attendance which days to recompute when they change. A provider
 * runs inside attendance's write transactions, so it must answer from memory or a cache. One
 * that fails never stops a punch from being stored (./host-calendar.ts).
 */
import { and, eq, gte, inArray, isNotNull, lte, or, type SQL, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { chunks } from '../../platform/chunks';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { cursorOf, twoKeyCursor } from '../../platform/http/paging';
import { type AreaScope, coversAny, EVERYWHERE } from '../../platform/scope';
import { addDays, isCalendarDate, localDateOf, requireDates, requireOrdered, secondsOfClock } from '../../platform/time/dates';
import { anyAreaZoned, areaIdOf, areaZones } from '../areas';
import { type EnrolleeService, membersOfArea } from '../enrollees';
import type { EventChannel, EventLog } from '../events';
import { DaysOff } from './days-off';
import type { CalendarEvents } from './events';
import { type CalendarProvider, type HostCalendarNeed, HostCalendars } from './host-calendar';
import type { CalendarDayView } from './model';
import {
  type AreaZone,
  type AssignmentDef,
  type CalendarData,
  type DayPlan,
  type LeaveDef,
  type Person,
  Planner,
  type ScheduleDef,
  zoneOf,
  zonesOfAreas,
} from './plan';
import type { CalendarRuntime } from './runtime';
import { Schedules } from './schedules';
import { areaWeekends, holidays, leaves, shiftAssignments } from './tables';

/** Which of the calendar's tables hold rows (providers count as assignments and leaves). */
interface InUse {
  holidays: boolean;
  assignments: boolean;
  leaves: boolean;
  weekends: boolean;
  /** Whether a row is scoped to areas: the people's areas are needed then. */
  areaScoped: boolean;
  /** Whether an area has a time zone of its own: the people's areas are needed then too. */
  zoned: boolean;
}

/** The longest range `GET calendar/` answers at once. */
const MAX_CALENDAR_DAYS = 366;

export class CalendarService {
  readonly events: EventChannel<CalendarEvents>;
  readonly daysOff: DaysOff;
  readonly schedules: Schedules;
  private readonly host: HostCalendars;
  private readonly defaultSchedule: ScheduleDef | null;

  constructor(
    private readonly ctx: CalendarRuntime,
    log: EventLog,
    private readonly enrollees: EnrolleeService,
  ) {
    this.events = log.channel<CalendarEvents>();
    this.daysOff = new DaysOff(ctx, this.events, enrollees);
    this.schedules = new Schedules(ctx, this.events, this.daysOff);
    this.host = new HostCalendars(ctx.log);
    const s = ctx.settings.DEFAULT_SCHEDULE;
    if (s && (secondsOfClock(s.start) === null || secondsOfClock(s.end) === null)) {
      // A malformed schedule given in code must never make attendance fail.
      ctx.log.warn('DEFAULT_SCHEDULE is malformed; days without an assigned schedule expect none', { start: s.start, end: s.end });
    }
    this.defaultSchedule =
      s && secondsOfClock(s.start) !== null && secondsOfClock(s.end) !== null
        ? { id: 'DEFAULT_SCHEDULE', name: 'default', start: s.start, end: s.end, graceInMs: s.graceMs, graceOutMs: s.graceMs, breakMs: 0, weekdays: null }
        : null;
  }

  addProvider(provider: CalendarProvider): void {
    this.host.add(provider);
  }

  /** Punches on dates from..to were stored while the host's calendar failed (`lenient` plans): said when it answers again. */
  storedWithoutHostCalendar(from: string, to: string, punches: number): void {
    this.host.unchecked(from, to, punches);
  }

  /**
   * A host's own calendar changed (leave or rosters from a provider): records `calendar_changed`
   * so that attendance recomputes those days, for these enrollees or everyone.
   */
  async calendarChanged(range: { from: string; to?: string | null }, options: { enrollees?: string[]; by?: string } = {}): Promise<void> {
    for (const d of [range.from, range.to]) if (d && !isCalendarDate(d)) throw new FpaError('validation_error', 'not a calendar date', { value: d });
    await this.ctx.db.write(async (w) => {
      await this.events.record(w, 'calendar_changed', {
        kind: 'host',
        id: null,
        ...(options.enrollees ? { enrollees: options.enrollees } : {}),
        ranges: [{ from: range.from, to: range.to ?? null }],
        by: options.by ?? 'host',
      });
    });
  }

  /**
   * The time zones attendance judges someone in: ATTENDANCE_TIME_ZONE first, then each area's
   * own (calendar/plan.ts `zoneOf`), each once. A date is over everywhere once it is over in all.
   */
  async zonesInUse(q: Queryable): Promise<string[]> {
    return [...new Set([this.ctx.settings.ATTENDANCE_TIME_ZONE, ...[...(await areaZones(q)).values()].map((a) => a.zone)])];
  }

  /**
   * An area's time zone changed: its people's days (those of people who were in it before a
   * move too) are recomputed from `from` on, as a schedule change's are; attendance skips the
   * dates of locked pay periods.
   */
  async areaZoneChanged(w: WriteContext, areaId: string, by: string, from: string): Promise<void> {
    await this.events.record(w, 'calendar_changed', { kind: 'area_zone', id: areaId, areas: [areaId], ranges: [{ from, to: null }], by });
  }

  /** The people of these areas now, and those who were in them before a move (their days of then are the areas'). */
  async membersOfAreas(q: Queryable, areaIds: readonly string[]): Promise<string[]> {
    const { membership } = this.enrollees;
    return [...new Set([...(await membership.idsInAreas(q, areaIds)), ...(await membership.idsFormerlyInAreas(q, areaIds))])];
  }

  /** How many people of an area are also in another area whose own zone differs (each is judged in the first by name: plan.ts `zoneOf`). */
  async peopleInSeveralZones(q: Queryable, areaId: string): Promise<number> {
    const zones = await areaZones(q);
    if (zones.size < 2) return 0;
    const { membership } = this.enrollees;
    const areasOf = await membership.areaIdsByEnrollee(q, await membership.idsInAreas(q, [areaId]));
    return [...areasOf.values()].filter((ids) => zonesOfAreas(ids, zones).length > 1).length;
  }

  /**
   * The zone of each of these people on a date (plan.ts `zoneOf`), for what reads a wall time
   * as theirs (a manual punch, an import): ATTENDANCE_TIME_ZONE for everyone while no area has a
   * zone of its own, without reading their areas.
   */
  async zonesFor(q: Queryable, enrolleeIds: readonly string[]): Promise<(enrolleeId: string, date: string) => string> {
    const fallback = this.ctx.settings.ATTENDANCE_TIME_ZONE;
    const zones = await areaZones(q);
    if (zones.size === 0 || enrolleeIds.length === 0) return () => fallback;
    const people = new Map((await this.people(q, enrolleeIds)).map((p) => [p.id, p]));
    return (id, date) => {
      const person = people.get(id);
      return person ? zoneOf(person, date, zones, fallback) : fallback;
    };
  }

  /** The areas with a time zone of their own, by id (none: everyone is judged in ATTENDANCE_TIME_ZONE). */
  areaZones(q: Queryable): Promise<Map<string, AreaZone>> {
    return areaZones(q);
  }

  /** The people (with their areas) the planner needs, by enrollee id. */
  async people(q: Queryable, enrolleeIds: readonly string[]): Promise<Person[]> {
    const areas = await this.enrollees.membership.areaIdsByEnrollee(q, enrolleeIds);
    const changes = await this.enrollees.membership.areaChangesByEnrollee(q, enrolleeIds);
    const zone = this.ctx.settings.ATTENDANCE_TIME_ZONE;
    return enrolleeIds.map((id) => {
      // A move takes effect on its stored date (the local date after the move's; derived so for
      // moves recorded before it was stored): the dates before it keep the areas of then.
      const moves = changes.get(id)?.map((c) => ({ until: c.from ?? addDays(localDateOf(c.at, zone), 1), areaIds: c.areaIds }));
      return moves ? { id, areaIds: areas.get(id) ?? [], moves } : { id, areaIds: areas.get(id) ?? [] };
    });
  }

  /**
   * The people (with their areas, when an area has a row) and a planner for them on dates
   * from..to. Attendance asks this with every batch of punches, so one query first finds which
   * of the calendar's tables hold rows, and the others are not read: a service without a
   * calendar pays one small query. While a host's provider fails, `require` (the default) is a
   * 503 and `lenient` plans without the host's part, `hostCalendar: false` (host-calendar.ts).
   */
  async plannerFor(
    q: Queryable,
    enrolleeIds: readonly string[],
    from: string,
    to: string,
    need: HostCalendarNeed = 'require',
  ): Promise<{ people: Person[]; planner: Planner; hostCalendar: boolean }> {
    const used = await this.inUse(q);
    const people = used.areaScoped ? await this.people(q, enrolleeIds) : enrolleeIds.map((id) => ({ id, areaIds: [] }));
    const { planner, hostCalendar } = await this.plannerWith(q, people, from, to, used, need);
    return { people, planner, hostCalendar };
  }

  /** A planner for people whose areas the caller already knows (the Today board), reading only the tables in use. */
  async plannerOf(q: Queryable, people: readonly Person[], from: string, to: string): Promise<Planner> {
    return this.planner(q, people, from, to, await this.inUse(q));
  }

  /** Which of the calendar's tables hold rows, and whether any row is scoped to areas. */
  private async inUse(q: Queryable): Promise<InUse> {
    const exists = (table: SQLiteTable, where?: SQL) => sql<number>`exists (select 1 from ${table}${where ? sql` where ${where}` : sql``})`;
    const [row] = await q
      .select({
        holidays: exists(holidays),
        assignments: exists(shiftAssignments),
        leaves: exists(leaves),
        weekends: exists(areaWeekends),
        areaHolidays: exists(holidays, sql`${holidays.areaIds} <> '[]'`),
        areaAssignments: exists(shiftAssignments, isNotNull(shiftAssignments.areaId)),
        zoned: anyAreaZoned,
      })
      .from(sql`(select 1)`);
    const r = row!;
    return {
      holidays: Boolean(r.holidays),
      assignments: Boolean(r.assignments) || this.host.count > 0,
      leaves: Boolean(r.leaves) || this.host.count > 0,
      weekends: Boolean(r.weekends),
      areaScoped: Boolean(r.weekends || r.areaHolidays || r.areaAssignments || r.zoned),
      zoned: Boolean(r.zoned),
    };
  }

  /** A planner holding every row that can apply to these people on dates from..to (503 while a host's provider fails). */
  async planner(q: Queryable, people: readonly Person[], from: string, to: string, used?: InUse): Promise<Planner> {
    return (await this.plannerWith(q, people, from, to, used, 'require')).planner;
  }

  private async plannerWith(q: Queryable, people: readonly Person[], from: string, to: string, used: InUse | undefined, need: HostCalendarNeed) {
    const ids = people.map((p) => p.id);
    const areaIds = [...new Set(people.flatMap((p) => [...p.areaIds, ...(p.moves ?? []).flatMap((m) => m.areaIds)]))];
    const schedules = used && !used.assignments ? new Map<string, ScheduleDef>() : await this.schedules.definitions(q);
    const stored = used && !used.assignments ? [] : await this.schedules.assignmentsFor(q, { enrollees: ids, areas: areaIds }, from, to);
    const assignments: AssignmentDef[] = stored.map((a) => ({
      id: a.id,
      scheduleId: a.scheduleId,
      enrolleeId: a.enrolleeId,
      areaId: a.areaId,
      from: a.fromDate,
      to: a.toDate,
      priority: a.priority,
      createdAt: a.createdAt,
    }));
    const leaveDefs = await this.storedLeaves(q, used && !used.leaves ? [] : ids, from, to);
    const hostCalendar = await this.host.addTo({ enrollees: ids, from, to }, schedules, { assignments, leaves: leaveDefs }, need);
    const holidayRows =
      used && !used.holidays
        ? []
        : await q
            .select()
            .from(holidays)
            .where(or(eq(holidays.recurring, true), and(gte(holidays.date, from), lte(holidays.date, to))));
    const weekendRows = used && !used.weekends ? [] : await q.select().from(areaWeekends);
    const s = this.ctx.settings;
    const data: CalendarData = {
      timeZone: s.ATTENDANCE_TIME_ZONE,
      areaZones: used && !used.zoned ? new Map() : await areaZones(q),
      defaults: { schedule: this.defaultSchedule, weekend: s.WEEKEND_DAYS, holidays: s.HOLIDAYS },
      holidays: holidayRows.map((h) => ({
        date: h.date,
        name: h.name,
        recurring: h.recurring,
        cancelled: h.cancelled,
        areaIds: h.areaIds,
        enrolleeId: h.enrolleeId,
      })),
      schedules,
      assignments,
      leaves: leaveDefs,
      weekends: weekendRows.map((w) => ({ areaId: w.areaId, from: w.fromDate, days: w.days })),
    };
    return { planner: new Planner(data), hostCalendar };
  }

  /** The leaves of these people that overlap from..to. */
  private async storedLeaves(q: Queryable, ids: readonly string[], from: string, to: string): Promise<LeaveDef[]> {
    const leaveDefs: LeaveDef[] = [];
    for (const chunk of chunks(ids, 500)) {
      const rows = await q
        .select()
        .from(leaves)
        .where(and(inArray(leaves.enrolleeId, chunk), lte(leaves.fromDate, to), gte(leaves.toDate, from)));
      for (const l of rows) leaveDefs.push({ enrolleeId: l.enrolleeId, from: l.fromDate, to: l.toDate, kind: l.kind });
    }
    return leaveDefs;
  }

  /** `GET calendar/`: the resolved plan of one person, per date, from the planner attendance uses. */
  async calendarOf(query: { enrollee?: string; employee?: string; from: string; to: string }, scope: AreaScope = EVERYWHERE) {
    const { from, to } = query;
    requireDates(from, to);
    requireOrdered(from, to);
    if (addDays(from, MAX_CALENDAR_DAYS - 1) < to) {
      throw new FpaError('validation_error', `from..to must be 1 to ${MAX_CALENDAR_DAYS} dates`, { fields: ['from', 'to'] });
    }
    const q = this.ctx.db.orm;
    if (!query.enrollee && !query.employee) throw new FpaError('validation_error', 'give enrollee or employee', { fields: ['enrollee', 'employee'] });
    // A person outside a limited caller's areas answers as a missing one does.
    let enrollee = query.enrollee ? await this.enrollees.findByIdOrPin(q, query.enrollee) : null;
    if (!enrollee && query.employee) enrollee = (await this.enrollees.byEmployeeKeys(q, [query.employee])).get(query.employee) ?? null;
    if (enrollee && !(await this.enrollees.inScope(q, enrollee.id, scope))) enrollee = null;
    if (!enrollee) throw new FpaError('not_found', 'enrollee not found', { enrollee: query.enrollee ?? null, employee: query.employee ?? null });
    const [person] = await this.people(q, [enrollee.id]);
    const planner = await this.planner(q, [person!], from, to);
    return { enrollee: enrollee.id, employee: enrollee.employeeKey, results: planner.plans(person!, from, to).map(calendarDayView) };
  }

  /**
   * `GET calendar/roster/`: who works when in an area, one row per person (by name, paged) with
   * the plan of each date; outside the caller's areas (`scope`) the area does not exist.
   */
  async rosterOf(query: { area: string; from: string; to: string; cursor?: string; limit: number }, scope: AreaScope = EVERYWHERE) {
    const { from, to } = query;
    requireDates(from, to);
    requireOrdered(from, to);
    if (addDays(from, MAX_ROSTER_DAYS - 1) < to) {
      throw new FpaError('validation_error', `from..to must be 1 to ${MAX_ROSTER_DAYS} dates`, { fields: ['from', 'to'] });
    }
    const q = this.ctx.db.orm;
    const areaId = coversAny(scope, [query.area]) ? await areaIdOf(q, query.area) : null;
    if (!areaId) throw new FpaError('not_found', 'area not found', { area: query.area });
    const found = await membersOfArea(q, areaId, { after: twoKeyCursor('roster-by-name-key', query.cursor), limit: query.limit });
    const people = await this.people(
      q,
      found.rows.map((r) => r.id),
    );
    const planner = await this.planner(q, people, from, to);
    const results = found.rows.map((row, i) => ({
      enrollee: row.id,
      employee: row.employeeKey,
      display_name: row.displayName,
      days: planner.plans(people[i]!, from, to).map(calendarDayView),
    }));
    const last = found.rows[found.rows.length - 1];
    return { results, next_cursor: found.more && last ? cursorOf('roster-by-name-key', [last.nameKey, last.id]) : null };
  }
}

/** The longest range `GET calendar/roster/` answers at once (six weeks). */
const MAX_ROSTER_DAYS = 42;

function calendarDayView(plan: DayPlan): CalendarDayView {
  const s = plan.schedule;
  return {
    date: plan.date,
    day_type: plan.dayType,
    schedule: s
      ? {
          name: s.name,
          expected_start: new Date(s.start).toISOString(),
          expected_end: new Date(s.end).toISOString(),
          expected_seconds: s.expectedSeconds,
          grace_in_seconds: Math.floor(s.graceInMs / 1000),
          grace_out_seconds: Math.floor(s.graceOutMs / 1000),
          break_seconds: Math.floor(s.breakMs / 1000),
        }
      : null,
    holiday: plan.holiday,
    leave: plan.leave,
  };
}
