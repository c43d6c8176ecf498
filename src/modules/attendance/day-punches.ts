/**
 * The punches of each attendance day, for reports that list them (a timesheet shows every
 * punch of a date): the same attribution as the days themselves (rules.ts `attribute`), so a
 * night shift's punch after midnight is listed on the date the shift started.
 */
import type { Execute, Queryable } from '../../platform/db/client';
import { addDays } from '../../platform/time/dates';
import type { CalendarService } from '../calendar';
import type { PunchService } from '../punches';
import { localDates } from './day-rows';
import { attribute, type CountedPunch } from './rules';

export interface DayPunchSources {
  calendar: CalendarService;
  punches: PunchService;
  timeZone: string;
  slackMs: number;
}

/** Per enrollee, per date from..to, the counted (not voided) punches in time order. */
export async function punchesByDay(
  src: DayPunchSources,
  q: { orm: Queryable; execute: Execute },
  enrolleeIds: readonly string[],
  from: string,
  to: string,
): Promise<Map<string, Map<string, CountedPunch[]>>> {
  const out = new Map<string, Map<string, CountedPunch[]>>();
  if (enrolleeIds.length === 0) return out;
  const [planFrom, planTo] = [addDays(from, -2), addDays(to, 1)];
  const dateOf = localDates(src.timeZone);
  const { people, planner } = await src.calendar.plannerFor(q.orm, enrolleeIds, planFrom, planTo);
  // A shift's window reaches the slack beyond the date either side: read one date more each way.
  const start = dateOf.bounds(addDays(from, -1)).start;
  const end = dateOf.bounds(addDays(to, 1)).end;
  const byPerson = new Map<string, CountedPunch[]>();
  for (const p of await src.punches.counted.countedIn(q.execute, enrolleeIds, start, end)) {
    const list = byPerson.get(p.enrolleeId) ?? [];
    list.push({ at: p.at, corrected: p.corrected });
    byPerson.set(p.enrolleeId, list);
  }
  for (const person of people) {
    const own = (byPerson.get(person.id) ?? []).sort((a, b) => a.at - b.at);
    const plans = planner.plans(person, planFrom, planTo);
    const days = new Map<string, CountedPunch[]>();
    attribute(
      own.map((p) => p.at),
      plans,
      src.slackMs,
      dateOf,
    ).forEach((date, i) => {
      if (date < from || date > to) return;
      const list = days.get(date) ?? [];
      list.push(own[i]!);
      days.set(date, list);
    });
    out.set(person.id, days);
  }
  return out;
}
