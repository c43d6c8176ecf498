/**
 * The plan of a person's day, as a pure function of the calendar's rows: what kind of day it is
 * and which shift is expected. `GET calendar/` answers it and attendance computes days against
 * it, so the two never disagree.
 *
 * - Holiday: a row matching the date (its own date, or its month and day in a later year when
 *   recurring) whose scope holds the person (everyone, one of the person's areas, or the person);
 *   a matching cancelled row in scope means no holiday. HOLIDAYS (settings) are holidays for
 *   everyone that a cancelled row can cancel too.
 * - Shift: the person's own assignment covering the date beats an area's; then the higher
 *   priority; then the newest. Without one, DEFAULT_SCHEDULE (settings), or no shift at all.
 * - Day off: the shift's weekdays when it names them, else the person's weekend: for each of
 *   the person's areas, its weekend row in force on the date; several areas: the days off in
 *   all of them; none: WEEKEND_DAYS (settings).
 * - Day type, first that applies: `holiday`, `weekend` (a day off), `leave`, `workday`.
 *   A workday expects its shift; the other types expect nothing, but keep the shift the date
 *   would have (`shift`): punches worked on a day off still fall in its window.
 * - A shift starts on its date; an end not after the start is on the next date (overnight).
 * - The person's areas are those of the date (`areasOn`): a move to another area plans the dates
 *   from its first date under them on (the date after the move's) with the new areas, and the
 *   dates before it, the move's own date too, with the areas of then.
 */
import { addDays, instantOn, secondsOfClock, weekdayOf } from '../../platform/time/dates';
import { type LocalDates, localDates } from '../../platform/time/local-dates';

export const DAY_TYPES = ['workday', 'weekend', 'holiday', 'leave'] as const;
type DayType = (typeof DAY_TYPES)[number];

export interface ScheduleDef {
  id: string;
  name: string;
  /** Wall times `HH:MM`. */
  start: string;
  end: string;
  graceInMs: number;
  graceOutMs: number;
  breakMs: number;
  /** Weekdays the shift starts on (0 = Sunday); null: every day but the person's weekend. */
  weekdays: readonly number[] | null;
}

interface HolidayDef {
  date: string;
  name: string;
  recurring: boolean;
  cancelled: boolean;
  /** Empty (and no enrollee): everyone. */
  areaIds: readonly string[];
  enrolleeId: string | null;
}

export interface AssignmentDef {
  id: string;
  scheduleId: string;
  enrolleeId: string | null;
  areaId: string | null;
  from: string;
  to: string | null;
  priority: number;
  createdAt: number;
}

export interface LeaveDef {
  enrolleeId: string;
  from: string;
  to: string;
  kind: string;
}

interface WeekendDef {
  areaId: string;
  /** First date it applies to (tables.ts `ALWAYS` for every date). */
  from: string;
  days: readonly number[];
}

/** An area with a time zone of its own. */
export interface AreaZone {
  name: string;
  zone: string;
}

export interface CalendarData {
  /** ATTENDANCE_TIME_ZONE: the zone of a person in no zoned area. */
  timeZone: string;
  /** The areas (by id) that have a time zone of their own; absent or empty: none. */
  areaZones?: ReadonlyMap<string, AreaZone>;
  /** DEFAULT_SCHEDULE, WEEKEND_DAYS and HOLIDAYS: what applies where no row says otherwise. */
  defaults: { schedule: ScheduleDef | null; weekend: readonly number[]; holidays: readonly string[] };
  holidays: readonly HolidayDef[];
  schedules: ReadonlyMap<string, ScheduleDef>;
  assignments: readonly AssignmentDef[];
  leaves: readonly LeaveDef[];
  weekends: readonly WeekendDef[];
}

/** A shift on a date: its expected instants (ms since the epoch) and its rules. */
export interface Shift {
  name: string;
  start: number;
  end: number;
  graceInMs: number;
  graceOutMs: number;
  breakMs: number;
  /** end − start − break, in whole seconds (a DST night is an hour shorter or longer). */
  expectedSeconds: number;
}

export interface DayPlan {
  date: string;
  /** The person's time zone on this date (zoneOf): the shift's wall times are read in it (the planner always says it). */
  zone?: string;
  dayType: DayType;
  holiday: string | null;
  leave: string | null;
  /** The shift expected on this date: workdays only. */
  schedule: Shift | null;
  /** The shift this date has if it is worked, on days off too: its window claims punches. */
  shift: Shift | null;
}

export interface Person {
  id: string;
  /** The areas now. */
  areaIds: readonly string[];
  /** Moves between areas, oldest first: the areas held on the dates before `until`. */
  moves?: readonly { until: string; areaIds: readonly string[] }[];
}

/** The areas a person had on a date: those before the first move after it, else the areas now. */
export function areasOn(person: Person, date: string): readonly string[] {
  for (const move of person.moves ?? []) if (date < move.until) return move.areaIds;
  return person.areaIds;
}

/**
 * A person's time zone on a date: the zone of the areas they are in on that date (areasOn); of
 * several zoned areas, the first by name; in no zoned area, `fallback` (ATTENDANCE_TIME_ZONE).
 */
export function zoneOf(person: Person, date: string, areaZones: ReadonlyMap<string, AreaZone> | undefined, fallback: string): string {
  if (!areaZones || areaZones.size === 0) return fallback;
  return zoneOfAreas(areasOn(person, date), areaZones) ?? fallback;
}

/** The zone of the first zoned area of these (by name), or null. */
export function zoneOfAreas(areaIds: readonly string[], areaZones: ReadonlyMap<string, AreaZone>): string | null {
  let first: AreaZone | null = null;
  for (const id of areaIds) {
    const z = areaZones.get(id);
    if (z && (first === null || z.name < first.name)) first = z;
  }
  return first?.zone ?? null;
}

/** The different zones of these areas (zoned ones only): more than one is a conflict the admin is told of. */
export function zonesOfAreas(areaIds: readonly string[], areaZones: ReadonlyMap<string, AreaZone>): string[] {
  return [...new Set(areaIds.flatMap((id) => (areaZones.has(id) ? [areaZones.get(id)!.zone] : [])))];
}

export class Planner {
  private readonly shifts = new Map<string, Shift>();
  /** People with rows of their own (assignments, leaves, holidays); the others plan like their areas. */
  private readonly ownRows: Set<string>;
  private readonly byAreas = new Map<string, DayPlan[]>();
  private readonly zoneDates = new Map<string, LocalDates>();

  constructor(readonly data: CalendarData) {
    this.ownRows = new Set([
      ...data.assignments.flatMap((a) => (a.enrolleeId ? [a.enrolleeId] : [])),
      ...data.leaves.map((l) => l.enrolleeId),
      ...data.holidays.flatMap((h) => (h.enrolleeId ? [h.enrolleeId] : [])),
    ]);
  }

  /** The plans of one person for every date from `from` to `to`, inclusive (shared, not to be changed). */
  plans(person: Person, from: string, to: string): readonly DayPlan[] {
    // Most people have no row of their own: their plans are their areas', computed once.
    // With the areas of each date: those before each move inside from..to, then the last ones.
    const areasOf = (areaIds: readonly string[]) => [...areaIds].sort().join(',');
    const spans = (person.moves ?? [])
      .filter((m) => m.until > from && m.until <= to)
      .map((m) => `${areasOf(areasOn(person, addDays(m.until, -1)))}<${m.until} `)
      .join('');
    const key = this.ownRows.has(person.id) ? null : `${spans}${areasOf(areasOn(person, to))} ${from} ${to}`;
    const known = key === null ? undefined : this.byAreas.get(key);
    if (known) return known;
    const out: DayPlan[] = [];
    let areaIds = areasOn(person, from);
    let own = this.rowsOf({ id: person.id, areaIds });
    let zone = this.zoneOfAreaIds(areaIds);
    for (let date = from; date <= to; date = addDays(date, 1)) {
      if (areasOn(person, date) !== areaIds) {
        areaIds = areasOn(person, date);
        own = this.rowsOf({ id: person.id, areaIds });
        zone = this.zoneOfAreaIds(areaIds);
      }
      out.push(this.planWith(own, date, zone));
    }
    if (key !== null) this.byAreas.set(key, out);
    return out;
  }

  plan(person: Person, date: string): DayPlan {
    const areaIds = areasOn(person, date);
    return this.planWith(this.rowsOf({ id: person.id, areaIds }), date, this.zoneOfAreaIds(areaIds));
  }

  /** The person's time zone on a date (see `zoneOf`). */
  zoneOf(person: Person, date: string): string {
    return zoneOf(person, date, this.data.areaZones, this.data.timeZone);
  }

  /** Whether any area has a zone of its own: without, every zone is ATTENDANCE_TIME_ZONE. */
  get zoned(): boolean {
    return (this.data.areaZones?.size ?? 0) > 0;
  }

  /** Local dates (and their bounds) in one zone, shared. */
  datesIn(zone: string): LocalDates {
    let dates = this.zoneDates.get(zone);
    if (!dates) {
      dates = localDates(zone);
      this.zoneDates.set(zone, dates);
    }
    return dates;
  }

  /**
   * A person's local dates: an instant's date in the zone the person has on it, and a date's
   * bounds in the zone of that date. Where a move changes the zone, the instant's date is read in
   * the zone of the date it falls on there.
   */
  datesOf(person: Person): LocalDates {
    const base = this.datesIn(this.data.timeZone);
    if (!this.zoned) return base;
    const zones = new Set([person.areaIds, ...(person.moves ?? []).map((m) => m.areaIds)].map((ids) => this.zoneOfAreaIds(ids)));
    if (zones.size === 1) return this.datesIn([...zones][0]!);
    const dateOf = (instant: number) => {
      const first = this.zoneOf(person, base(instant));
      const date = this.datesIn(first)(instant);
      const zone = this.zoneOf(person, date);
      return zone === first ? date : this.datesIn(zone)(instant);
    };
    return Object.assign(dateOf, { bounds: (date: string) => this.datesIn(this.zoneOf(person, date)).bounds(date) });
  }

  private zoneOfAreaIds(areaIds: readonly string[]): string {
    const zones = this.data.areaZones;
    return (zones && zones.size > 0 ? zoneOfAreas(areaIds, zones) : null) ?? this.data.timeZone;
  }

  /** The rows that can apply to this person, filtered once. */
  private rowsOf(person: Person) {
    const areas = new Set(person.areaIds);
    const { data } = this;
    return {
      holidays: data.holidays.filter((h) => (h.enrolleeId ? h.enrolleeId === person.id : h.areaIds.length === 0 || h.areaIds.some((a) => areas.has(a)))),
      assignments: data.assignments
        .filter((a) => (a.enrolleeId ? a.enrolleeId === person.id : a.areaId !== null && areas.has(a.areaId)))
        .sort(
          (a, b) =>
            Number(b.enrolleeId !== null) - Number(a.enrolleeId !== null) || b.priority - a.priority || b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1),
        ),
      leaves: data.leaves.filter((l) => l.enrolleeId === person.id),
      weekends: person.areaIds.map((areaId) => data.weekends.filter((w) => w.areaId === areaId).sort((a, b) => (a.from < b.from ? 1 : -1))),
    };
  }

  private planWith(own: ReturnType<Planner['rowsOf']>, date: string, zone: string): DayPlan {
    const holiday = holidayOn(own.holidays, this.data.defaults.holidays, date);
    const leave = own.leaves.find((l) => l.from <= date && date <= l.to)?.kind ?? null;
    const weekday = weekdayOf(date);
    const assigned = this.assignedOn(own.assignments, date, weekday);
    const def = (assigned && this.data.schedules.get(assigned.scheduleId)) ?? this.data.defaults.schedule;
    const off = def?.weekdays ? !def.weekdays.includes(weekday) : weekendOf(own.weekends, this.data.defaults.weekend, date).includes(weekday);
    const dayType: DayType = holiday !== null ? 'holiday' : off ? 'weekend' : leave !== null ? 'leave' : 'workday';
    const shift = def ? this.shiftOn(def, date, zone) : null;
    return { date, zone, dayType, holiday, leave, schedule: dayType === 'workday' ? shift : null, shift };
  }

  /**
   * The assignment that decides a date: of the first level covering it (the person's own, else
   * their areas'), by priority, the first whose shift starts on this weekday. Two schedules split
   * by weekdays (Monday to Thursday, a short Friday) each decide their own days; when none of the
   * level starts on it, the first decides, and the date is off (a part-timer's own Monday to
   * Thursday keeps Friday off, whatever their area works).
   */
  private assignedOn(sorted: readonly AssignmentDef[], date: string, weekday: number): AssignmentDef | undefined {
    const covering = sorted.filter((a) => a.from <= date && (a.to === null || date <= a.to));
    const first = covering[0];
    if (!first) return undefined;
    const level = covering.filter((a) => (a.enrolleeId !== null) === (first.enrolleeId !== null));
    return level.find((a) => this.data.schedules.get(a.scheduleId)?.weekdays?.includes(weekday) ?? true) ?? first;
  }

  private shiftOn(def: ScheduleDef, date: string, zone: string): Shift {
    const key = `${def.id} ${date} ${zone}`;
    let shift = this.shifts.get(key);
    if (!shift) {
      const overnight = (secondsOfClock(def.end) ?? 0) <= (secondsOfClock(def.start) ?? 0);
      const start = instantOn(date, def.start, zone);
      const end = instantOn(overnight ? addDays(date, 1) : date, def.end, zone);
      shift = {
        name: def.name,
        start,
        end,
        graceInMs: def.graceInMs,
        graceOutMs: def.graceOutMs,
        breakMs: def.breakMs,
        expectedSeconds: Math.max(0, Math.floor((end - start - def.breakMs) / 1000)),
      };
      this.shifts.set(key, shift);
    }
    return shift;
  }
}

/** The holiday's name on a date for a person's rows, or null (a cancelled row wins). */
function holidayOn(rows: readonly HolidayDef[], defaults: readonly string[], date: string): string | null {
  const monthDay = date.slice(5);
  let found: string | null = defaults.includes(date) ? 'Holiday' : null;
  for (const h of rows) {
    if (!(h.date === date || (h.recurring && h.date < date && h.date.slice(5) === monthDay))) continue;
    if (h.cancelled) return null;
    // The most specific row names the day: an enrollee's, then an area's, then everyone's.
    if (found === null || h.enrolleeId !== null || h.areaIds.length > 0) found = h.name;
  }
  return found;
}

/** Days off on a date: those every area with a weekend in force agrees on; none: the default. */
function weekendOf(byArea: readonly (readonly WeekendDef[])[], defaults: readonly number[], date: string): readonly number[] {
  let days: number[] | null = null;
  for (const rows of byArea) {
    const current = rows.find((w) => w.from <= date);
    if (!current) continue;
    days = days === null ? [...current.days] : days.filter((d) => current.days.includes(d));
  }
  return days ?? defaults;
}
