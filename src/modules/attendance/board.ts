/**
 * `GET attendance/today/` (API.md "HR at a glance"): everyone's status on a date, live for today.
 * The stored days (computed by ./rules.ts as punches arrive) say who came in, when, and late;
 * the calendar's planner says who is expected, on leave, on holiday or off; ./board-rules.ts
 * decides the rest from the time now. One read of each: 10,000 people answer in tens of ms.
 */
import { getTableName } from 'drizzle-orm';
import { selectAsJson } from '../../platform/db/json-results';
import { FpaError } from '../../platform/errors';
import { compareKeys } from '../../platform/name-key';
import { addDays, dayBounds, localDateOf, requireDate } from '../../platform/time/dates';
import { areasOn, type CalendarService, type DayPlan, type Person, zoneOfAreas } from '../calendar';
import type { EnrolleeService, RosterEntry } from '../enrollees';
import {
  addTo,
  BOARD_COUNTS,
  type BoardCount,
  type BoardCounts,
  type BoardDay,
  type BoardEntry,
  type BoardStatus,
  boardEntry,
  countsOf,
  emptyCounts,
  inCount,
  runningEntry,
  shiftRunning,
} from './board-rules';
import type { TodayBoardView } from './model';
import type { AttendanceRuntime } from './runtime';
import type { AttendanceService } from './service';
import { startsBeforeEnrolment } from './starts';
import { attendanceDays } from './tables';

/** Where the board puts someone without a stored day, for the reports' daily row (`TodayBoard.live`). */
export interface LiveDay {
  status: BoardStatus;
  schedule: string | null;
  /** What the date's plan expects of them: the shift's length minus its break on a workday, else 0. */
  expectedSeconds: number;
}

export interface BoardQuery {
  date?: string;
  area?: string;
  status?: BoardStatus;
  /** Only the people this count is made of (as its tile lists them). */
  count?: BoardCount;
  /** At most this many people listed, the first by name. */
  limit?: number;
  /** Only these people listed (`enrollee=`, ids separated by commas). */
  enrollee?: string;
  /** The caller's areas (names); empty: everywhere. */
  scope: readonly string[];
}

const iso = (instant: number | null) => (instant === null ? null : new Date(instant).toISOString());

/** Adds one person to the counts of each of their areas the caller may see. */
function countInAreas(byArea: Map<string, BoardCounts>, areas: readonly string[], scope: readonly string[], of: readonly BoardCount[]): void {
  for (const area of areas) {
    if (scope.length > 0 && !scope.includes(area)) continue;
    let counts = byArea.get(area);
    if (!counts) {
      counts = emptyCounts();
      byArea.set(area, counts);
    }
    addTo(counts, of);
  }
}

export class TodayBoard {
  constructor(
    private readonly ctx: AttendanceRuntime,
    private readonly attendance: AttendanceService,
    private readonly calendar: CalendarService,
    private readonly enrollees: EnrolleeService,
  ) {}

  async board(query: BoardQuery): Promise<TodayBoardView> {
    const { date, now, counts, byArea, entries, zoned } = await this.read(query);
    // Listed by name: the roster comes in that order (enrollees/roster.ts), and so do they.
    // A board is read again as people punch: the console asks for one count's first page (10,000
    // people are about 3 MB of JSON, a page of 200 is 60 kB) and for the rest when asked.
    const listed = query.limit === undefined ? entries : entries.slice(0, query.limit);
    // A date asked for: each stored day's times in the zone it was judged in (a locked day as it was locked).
    const judged = query.date === undefined || listed.length === 0 ? new Map<string, string>() : await this.judgedZones(query.date);
    return {
      date,
      as_of: new Date(now).toISOString(),
      counts,
      areas: [...byArea.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([area, c]) => ({ area, counts: c })),
      people: listed.map(({ person, entry, workday, date: own, zone }) => {
        const kept = judged.get(person.id) ?? zone;
        return { ...personView(person, entry, workday), ...(zoned || kept !== zone ? { date: own, time_zone: kept } : {}) };
      }),
      people_total: entries.length,
    };
  }

  /**
   * The reports' daily row of someone without a stored day (reports/rows.ts): by enrollee, where
   * the board puts them on the date's own plan (a night still running from the day before is that
   * date's row, not this one's), the schedule it shows, and the time the date's plan expects of
   * them (the shift's length minus its break on a workday, else 0), as generate-absences will store it.
   */
  async live(query: Omit<BoardQuery, 'status' | 'count' | 'limit' | 'enrollee'>): Promise<Map<string, LiveDay>> {
    const { entries } = await this.read(query, { ownShifts: true });
    return new Map(entries.map(({ person, entry, expectedSeconds }) => [person.id, { status: entry.status, schedule: entry.schedule, expectedSeconds }]));
  }

  /**
   * Everyone's entry on the board of a date (those of `query.status` / `query.count`), and the
   * counts of all. `ownShifts`: each on the date's own plan, never on a night still running from
   * the day before (the daily report's rows).
   */
  private async read(query: BoardQuery, options: { ownShifts?: boolean } = {}) {
    const now = this.ctx.clock.now();
    if (query.date !== undefined) requireDate(query.date, 'date');
    // Read your writes: every punch recorded so far is on its day.
    await this.attendance.follower.catchUp();
    if (query.area !== undefined && query.scope.length > 0 && !query.scope.includes(query.area)) {
      throw new FpaError('not_found', 'area not found', { area: query.area });
    }
    const fallback = this.attendance.timeZone;
    const zones = await this.calendar.areaZones(this.ctx.db.orm);
    if (zones.size === 0) return this.readIn(query, options, { zone: fallback, now });
    // Each person on their own today (their zone's: calendar/plan.ts `zoneOf`), the people of
    // one zone read together; the board's date is the area's today with `area`, else the attendance zone's.
    const areaZone = query.area === undefined ? null : [...zones.values()].find((a) => a.name === query.area)?.zone;
    const boardZone = areaZone ?? fallback;
    const zoneOfPerson = await this.zonesNow();
    const parts = [];
    for (const zone of new Set([boardZone, ...zoneOfPerson.values()])) {
      parts.push(await this.readIn(query, options, { zone, now, only: (id) => (zoneOfPerson.get(id) ?? boardZone) === zone }));
    }
    const counts = emptyCounts();
    const byArea = new Map<string, BoardCounts>();
    for (const part of parts) {
      for (const count of BOARD_COUNTS) counts[count] += part.counts[count];
      for (const [area, c] of part.byArea) {
        const into = byArea.get(area) ?? emptyCounts();
        for (const count of BOARD_COUNTS) into[count] += c[count];
        byArea.set(area, into);
      }
    }
    const entries = parts.flatMap((p) => p.entries).sort((a, b) => compareKeys(a.person.nameKey, b.person.nameKey) || (a.person.id < b.person.id ? -1 : 1));
    return { date: query.date ?? localDateOf(now, boardZone), now, counts, byArea, entries, zoned: true };
  }

  /**
   * The board of the people of one zone (`only`: whose zone it is; all without zoned areas),
   * their today being that zone's.
   */
  private async readIn(query: BoardQuery, options: { ownShifts?: boolean }, at: { zone: string; now: number; only?: (id: string) => boolean }) {
    const { now, zone } = at;
    const today = localDateOf(now, zone);
    const date = query.date ?? today;
    const { end } = dayBounds(date, zone);
    const stored = await this.daysOn(date);
    const people = (await this.peopleOn(query, stored, { date, end })).filter((p) => !at.only || at.only(p.id));
    // Today's board plans yesterday too: the night that began then may still be running (board-rules.ts `runningEntry`).
    const from = date === today && !options.ownShifts ? addDays(date, -1) : date;
    // The planner for everyone, with the areas of each date (the roster's, and the moves of those who moved).
    const persons = await this.datedPersons(people, from);
    const planner = await this.calendar.plannerOf(this.ctx.db.orm, persons, from, date);
    // `plans` shares the plans of everyone with the same areas and no rows of their own.
    const plans = people.map((_, i) => planner.plans(persons[i]!, from, date));
    const shown = await this.shownOn(date, { today, now, zone, ownShifts: options.ownShifts ?? false }, stored, plans);
    const counts = emptyCounts();
    const byArea = new Map<string, BoardCounts>();
    const only = query.enrollee ? new Set(query.enrollee.split(',')) : null;
    const entries: { person: RosterEntry; entry: BoardEntry; workday: boolean; expectedSeconds: number; date: string; zone: string }[] = [];
    for (const [i, person] of people.entries()) {
      const { plan, entry } = shown(person.id, plans[i]!);
      const workday = plan.dayType === 'workday';
      const of = countsOf(entry, workday);
      addTo(counts, of);
      countInAreas(byArea, person.areaNames, query.scope, of);
      if ((!query.status || query.status === entry.status) && (!query.count || inCount(entry, workday, query.count)) && (!only || only.has(person.id)))
        entries.push({ person, entry, workday, expectedSeconds: plan.schedule?.expectedSeconds ?? 0, date, zone });
    }
    return { date, now, counts, byArea, entries, zoned: false };
  }

  /**
   * How the board of `date` shows a person, given their plans (from `read`'s first date to
   * `date`): the shift running now from yesterday when there is one (board-rules.ts
   * `runningEntry`), on today's board and on yesterday's alike; otherwise the date's own plan.
   * Reads the other date's days that takes: today's board, yesterday's (all of them only while
   * someone's night runs, else the open ones: an in still carried); yesterday's, today's.
   */
  private async shownOn(
    date: string,
    at: { today: string; now: number; zone: string; ownShifts: boolean },
    stored: ReadonlyMap<string, BoardDay>,
    plans: readonly (readonly DayPlan[])[],
  ): Promise<(id: string, dated: readonly DayPlan[]) => { plan: DayPlan; entry: BoardEntry }> {
    const { today, now } = at;
    const own = (id: string, dated: readonly DayPlan[]) => {
      const plan = dated[dated.length - 1]!;
      return { plan, entry: boardEntry(plan, stored.get(id) ?? null, { now, today }) };
    };
    const yesterday = addDays(today, -1);
    if (at.ownShifts || (date !== today && date !== yesterday)) return own;
    const when = { now, dayStart: dayBounds(today, at.zone).start };
    const slackMs = this.ctx.settings.ATTENDANCE_SHIFT_SLACK;
    if (date === yesterday) {
      const todays = await this.daysOn(today);
      return (id, dated) => {
        const plan = dated[0]!;
        const entry = runningEntry(plan, stored.get(id) ?? null, todays.get(id) ?? null, when, slackMs);
        return entry ? { plan, entry } : own(id, dated);
      };
    }
    // Between midnight and the end of a night shift only, every day of yesterday; else only those still open.
    const anyRunning = plans.some((dated) => shiftRunning(dated[0]!, when));
    const before = await this.daysOn(yesterday, { openOnly: !anyRunning });
    return (id, dated) => {
      const previous = dated[0]!;
      const entry = runningEntry(previous, before.get(id) ?? null, stored.get(id) ?? null, when, slackMs);
      return entry ? { plan: previous, entry } : own(id, dated);
    };
  }

  /**
   * The people still in from last night's shift now, as the live board carries them
   * (board-rules.ts `overnightEntry`): their day of yesterday is open and its shift's window
   * still runs. Reports read that day as `in_now`, not as a missing punch, until the window ends.
   */
  async stillInFromLastNight(): Promise<ReadonlySet<string>> {
    await this.attendance.follower.catchUp();
    // Each person's last night is their zone's (README "Time zones"): the people of one zone together.
    const zoneOf = await this.zonesNow();
    const roster = await this.enrollees.roster.read();
    const stillIn = new Set<string>();
    for (const zone of new Set([this.attendance.timeZone, ...zoneOf.values()])) {
      for (const id of await this.stillInIn(
        zone,
        roster.filter((p) => zoneOf.get(p.id) === zone),
      ))
        stillIn.add(id);
    }
    return stillIn;
  }

  /**
   * Each person's zone now, by enrollee (calendar/plan.ts `zoneOfAreas` over the areas they are
   * in today, else ATTENDANCE_TIME_ZONE): what the board, last night's check and the reports'
   * "today" group people by. Today is ATTENDANCE_TIME_ZONE's, the zone moves are dated in: someone
   * moved "from tomorrow" works today where they were.
   */
  async zonesNow(): Promise<Map<string, string>> {
    const q = this.ctx.db.orm;
    const zones = await this.calendar.areaZones(q);
    const fallback = this.attendance.timeZone;
    const roster = await this.enrollees.roster.read();
    if (zones.size === 0) return new Map(roster.map((p) => [p.id, fallback]));
    // The roster holds the latest areas: the few with a move taking effect after today have theirs of today.
    const today = localDateOf(this.ctx.clock.now(), fallback);
    const moved = await this.enrollees.membership.idsMovedAfter(q, today);
    const then = new Map(moved.length === 0 ? [] : (await this.calendar.people(q, moved)).map((p) => [p.id, areasOn(p, today)]));
    return new Map(roster.map((p) => [p.id, zoneOfAreas(then.get(p.id) ?? p.areaIds, zones) ?? fallback]));
  }

  /** The zone each stored day of a date was judged in, by enrollee (the days that know it: tables.ts `zone`). */
  private async judgedZones(date: string): Promise<Map<string, string>> {
    const sql = `select enrollee_id, zone from ${getTableName(attendanceDays)} where date = ? and zone is not null`;
    return new Map(await selectAsJson<[string, string]>((statement) => this.ctx.db.client.execute(statement), ['enrollee_id', 'zone'], sql, [date]));
  }

  /** Of these people (of one zone), those still in from last night's shift there. */
  private async stillInIn(zone: string, roster: readonly RosterEntry[]): Promise<string[]> {
    const now = this.ctx.clock.now();
    const today = localDateOf(now, zone);
    const yesterday = addDays(today, -1);
    const open = await this.daysOn(yesterday, { openOnly: true });
    if (open.size === 0 || roster.length === 0) return [];
    const todays = await this.daysOn(today);
    const people = await this.datedPersons(
      roster.filter((p) => open.has(p.id)),
      yesterday,
    );
    const planner = await this.calendar.plannerOf(this.ctx.db.orm, people, yesterday, yesterday);
    const when = { now, dayStart: dayBounds(today, zone).start };
    const slackMs = this.ctx.settings.ATTENDANCE_SHIFT_SLACK;
    const stillIn: string[] = [];
    for (const person of people) {
      const [plan] = planner.plans(person, yesterday, yesterday);
      if (plan && runningEntry(plan, open.get(person.id) ?? null, todays.get(person.id) ?? null, when, slackMs)?.inNow) stillIn.push(person.id);
    }
    return stillIn;
  }

  /**
   * The planner's people: the roster's areas, and for the few with a move that takes effect
   * after `from`, their moves too (calendar `people`), so the dates from `from` on plan with the
   * areas of each date, as attendance judged them (the night of someone moved today is carried
   * on their old area's shift). Which people and areas the board shows is today's membership.
   */
  private async datedPersons(roster: readonly RosterEntry[], from: string): Promise<Person[]> {
    const q = this.ctx.db.orm;
    const moved = new Set(await this.enrollees.membership.idsMovedAfter(q, from));
    const ids = roster.filter((p) => moved.has(p.id)).map((p) => p.id);
    const dated = new Map(ids.length === 0 ? [] : (await this.calendar.people(q, ids)).map((p) => [p.id, p]));
    return roster.map((p) => dated.get(p.id) ?? { id: p.id, areaIds: p.areaIds });
  }

  /**
   * Who is on the board: the active people whose attendance had started by the end of the date
   * (enrolled by then, or enrolled since but with punches before it or a schedule of their own
   * from it: `startedBeforeEnrolment`), and anyone with a day stored on it (deactivated, or
   * deleted since: the reports count their days too), in the caller's areas (and the area asked
   * for), by name.
   */
  private async peopleOn(query: BoardQuery, stored: ReadonlyMap<string, BoardDay>, on: { date: string; end: number }): Promise<readonly RosterEntry[]> {
    const shown = (p: RosterEntry) =>
      (query.scope.length === 0 || p.areaNames.some((a) => query.scope.includes(a))) && (query.area === undefined || p.areaNames.includes(query.area));
    // Which people an area lists is the latest membership, as in the reports and the scopes
    // ("Area membership is dated by its moves"); the dates are judged with the areas of each.
    const roster = await this.enrollees.roster.read();
    // Enrolled after the date and without a day on it: rare but for a company gone live since (none on today's board).
    const started = await this.startedBeforeEnrolment(
      on,
      roster.filter((p) => p.createdAt >= on.end && !stored.has(p.id) && shown(p)),
    );
    let withDays = 0;
    const people = roster.filter((p) => {
      const hasDay = stored.has(p.id);
      if (hasDay) withDays++;
      return ((p.active && p.createdAt < on.end) || hasDay || started.has(p.id)) && shown(p);
    });
    // Days of people the roster no longer holds (deleted): rare, so looked for only then.
    if (withDays === stored.size) return people;
    const listed = new Set(roster.map((p) => p.id));
    const deleted = (await this.enrollees.roster.deletedAmong([...stored.keys()].filter((id) => !listed.has(id)))).filter(shown);
    return [...people, ...deleted].sort((a, b) => compareKeys(a.nameKey, b.nameKey) || (a.id < b.id ? -1 : 1));
  }

  /**
   * Of the active people enrolled after `end` (the end of `date`; `among`: of these only, else
   * everyone), those whose attendance had started by `date` all the same: with a day with
   * punches on or before it, or a schedule of their own from it or before (starts.ts), as
   * generate-absences and a pay-period lock write their days. A company that goes live mid-period
   * enrolls everyone today and the terminals upload the weeks before: the board and the daily
   * report of those dates list them as the locked period will. Two reads per 500 such people,
   * none when there are none (today's board).
   */
  async startedBeforeEnrolment(on: { date: string; end: number }, among?: readonly RosterEntry[]): Promise<ReadonlySet<string>> {
    const late = (among ?? (await this.enrollees.roster.read())).filter((p) => p.active && p.createdAt >= on.end);
    if (late.length === 0) return new Set();
    const starts = await startsBeforeEnrolment(
      this.ctx.db.orm,
      late.map((p) => p.id),
      on.date,
    );
    return new Set(starts.keys());
  }

  /**
   * The stored days of a date (`openOnly`: those left open, an in without its out), by enrollee, by the index by date: raw, and answered as one JSON
   * value (json-results.ts), since the driver's row objects cost more than the rows' look-ups
   * (10,000 people: 10-12 ms a read against 21-24 ms).
   */
  private async daysOn(date: string, options: { openOnly?: boolean } = {}): Promise<Map<string, BoardDay>> {
    const days = await selectAsJson<[string, BoardDay['status'], number | null, number | null, number, number, string | null]>(
      (statement) => this.ctx.db.client.execute(statement),
      BOARD_DAY_COLUMNS,
      boardDaysSql(options.openOnly ?? false),
      [date],
    );
    const out = new Map<string, BoardDay>();
    for (const [enrollee, status, firstIn, lastOut, lateSeconds, punchCount, schedule] of days) {
      // The rules give late seconds exactly when they flag the day late.
      out.set(enrollee, { status, late: lateSeconds > 0, firstIn, lastOut, lateSeconds, punchCount, schedule });
    }
    return out;
  }
}

/** What the board reads of each stored day of a date. */
export const BOARD_DAY_COLUMNS = ['enrollee_id', 'status', 'first_in', 'last_out', 'late_seconds', 'punch_count', 'schedule'];

/**
 * The read of a date's stored days (`openOnly`: those left open), one date's run of the index by
 * date, which carries every column it reads (tables.ts): test/modules/attendance/board-reads.test.ts
 * holds it to that plan, for today's and for last night's days alike.
 */
export function boardDaysSql(openOnly: boolean): string {
  return `select ${BOARD_DAY_COLUMNS.join(', ')} from ${getTableName(attendanceDays)} where date = ?${openOnly ? ` and status = 'incomplete'` : ''}`;
}

function personView(person: RosterEntry, entry: BoardEntry, workday: boolean): TodayBoardView['people'][number] {
  return {
    employee: person.employeeKey,
    enrollee: person.id,
    display_name: person.displayName,
    areas: [...person.areaNames],
    status: entry.status,
    expected: workday,
    schedule: entry.schedule,
    expected_start: iso(entry.expectedStart),
    expected_end: iso(entry.expectedEnd),
    first_in: iso(entry.firstIn),
    last_out: iso(entry.lastOut),
    late_seconds: entry.lateSeconds,
    in_now: entry.inNow,
    in_now_date: entry.inNowDate,
  };
}
