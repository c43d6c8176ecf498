/**
 * The punches of each attendance day, for reports that list them (a timesheet shows every
 * punch of a date): the same attribution as the days themselves (rules.ts `attribute`), so a
 * night shift's punch after midnight is listed on the date the shift started.
 */
import type { Execute, Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import type { AreaScope } from '../../platform/scope';
import { addDays, requireDate } from '../../platform/time/dates';
import type { CalendarService } from '../calendar';
import type { EnrolleeService } from '../enrollees';
import type { PunchService, PunchView } from '../punches';
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
      planner.datesOf(person),
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

/**
 * The punches a person's attendance day is made of, for the console's day panel: every punch
 * (voided and after-lock ones too) that the day's attribution gives this date, newest first. A
 * night shift's morning punch is listed on the evening it started, not on the calendar date it
 * fell on, so the panel shows the punches the day's row was computed from.
 */
export async function punchesOfDay(
  src: DayPunchSources & { enrollees: EnrolleeService },
  orm: Queryable,
  day: { enrolleeId: string; date: string },
  scope: AreaScope,
): Promise<{ results: PunchView[] }> {
  const date = requireDate(day.date, 'date');
  const person = await src.enrollees.find(orm, day.enrolleeId);
  if (!person || !(await src.enrollees.inScope(orm, person.id, scope))) throw new FpaError('not_found', 'enrollee not found', { enrollee: day.enrolleeId });
  const dateOf = localDates(src.timeZone);
  const { people, planner } = await src.calendar.plannerFor(orm, [person.id], addDays(date, -2), addDays(date, 1));
  const start = dateOf.bounds(addDays(date, -1)).start;
  const end = dateOf.bounds(addDays(date, 1)).end;
  const listed = await src.punches.list(
    { employee: person.employeeKey, from: new Date(start).toISOString(), to: new Date(end - 1).toISOString(), limit: NEIGHBOURING_PUNCHES },
    scope,
  );
  const own = listed.results.filter((p) => p.enrollee === person.id);
  const plans = planner.plans(people[0]!, addDays(date, -2), addDays(date, 1));
  const dates = attribute(
    own.map((p) => Date.parse(p.punched_at)),
    plans,
    src.slackMs,
    planner.datesOf(people[0]!),
  );
  return { results: own.filter((_, i) => dates[i] === date) };
}

/** The most punches read around one date (three dates of one person's punches). */
const NEIGHBOURING_PUNCHES = 1000;
