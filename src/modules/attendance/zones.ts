/**
 * The zones attendance judges people in (README "Time zones"): a person's is their areas' own
 * zone, else ATTENDANCE_TIME_ZONE (calendar/plan.ts `zoneOf`). What reads wall times or "today"
 * for several people at once asks here.
 */
import type { Queryable } from '../../platform/db/client';
import { localDateOf } from '../../platform/time/dates';
import type { CalendarService } from '../calendar';
import type { AttendanceRuntime } from './runtime';

/** What `ofDays` reads of a stored day. */
export interface DayOfZone {
  enrolleeId: string;
  date: string;
  zone: string | null;
}

export class AttendanceZones {
  constructor(
    private readonly ctx: AttendanceRuntime,
    private readonly calendar: CalendarService,
  ) {}

  /** The zone of each of these people on a date (calendar `zonesFor`): their areas', else ATTENDANCE_TIME_ZONE. */
  zonesFor(enrolleeIds: readonly string[], q: Queryable = this.ctx.db.orm): Promise<(enrolleeId: string, date: string) => string> {
    return this.calendar.zonesFor(q, enrolleeIds);
  }

  /**
   * The zone each of these stored days' wall times are shown in: the zone the day was judged in
   * (tables.ts `zone`), so a locked day reads as it was locked whatever its area's zone is now;
   * for a day stored before migration 0045 (none), the person's zone on its date now (`zonesFor`),
   * read only for the people who have such a day: days that all know their zone cost no query.
   */
  async ofDays(days: Iterable<{ enrolleeId: string; zone: string | null }>, q: Queryable = this.ctx.db.orm): Promise<(day: DayOfZone) => string> {
    const unzoned = new Set<string>();
    for (const day of days) if (day.zone === null) unzoned.add(day.enrolleeId);
    const now = unzoned.size === 0 ? null : await this.zonesFor([...unzoned], q);
    return (day) => day.zone ?? now?.(day.enrolleeId, day.date) ?? this.ctx.settings.ATTENDANCE_TIME_ZONE;
  }

  /**
   * Today in the zones attendance uses (ATTENDANCE_TIME_ZONE and the areas' own): `earliest` in
   * the westmost (a date before it is over everywhere), `latest` in the eastmost (a date from it
   * on is over nowhere). Both are today in ATTENDANCE_TIME_ZONE while no area has a zone of its own.
   */
  async todays(q: Queryable = this.ctx.db.orm): Promise<{ earliest: string; earliestZone: string; latest: string; zones: string[] }> {
    const now = this.ctx.clock.now();
    const zones = await this.calendar.zonesInUse(q);
    const dated = zones.map((zone) => ({ zone, date: localDateOf(now, zone) })).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    return { earliest: dated[0]!.date, earliestZone: dated[0]!.zone, latest: dated[dated.length - 1]!.date, zones };
  }
}
