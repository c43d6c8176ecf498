/**
 * The two steps of a recompute (`AttendanceService.recomputeIn`) that read nothing: which dates
 * of whom to recompute (and the instants their punches lie in), then one person's new days from
 * their punches and plans.
 */

import type { LocalDates } from '../../platform/time/local-dates';
import type { CalendarService, DayPlan } from '../calendar';
import { type AttendanceDayRow, sameDay, samePunches } from './day-rows';
import { inRanges } from './periods';
import { attribute, type CountedPunch, computeDay } from './rules';

type Planned = Awaited<ReturnType<CalendarService['plannerFor']>>;
type Person = Planned['people'][number];

/** One person's dates to recompute, with the plans they are computed against. */
export interface Target {
  person: Person;
  plans: readonly DayPlan[];
  dates: string[];
  /** The person's local dates (their zone on each date: calendar/plan.ts `zoneOf`). */
  localDates: LocalDates;
}

/** The dates from..to of a recompute, the plans around them, and what narrows them. */
export interface RecomputeRange {
  from: string;
  to: string;
  planFrom: string;
  planTo: string;
  locked: readonly { from: string; to: string }[];
  /** Instants of new or voided punches by enrollee: only the days they belong to are recomputed. */
  changed?: ReadonlyMap<string, { instants: number[] }>;
}

/** What a recompute writes: days announced, days written quietly, days removed (`recomputePerson`). */
export interface RecomputeOut {
  writes: AttendanceDayRow[];
  quiet: AttendanceDayRow[];
  removed: AttendanceDayRow[];
}

/** How days are computed: the rules' settings, today (in a zone) and now. */
export interface DayRules {
  /** Today in a zone (a plan's; none: ATTENDANCE_TIME_ZONE). */
  todayIn: (zone: string | undefined) => string;
  now: number;
  slackMs: number;
  repeatWindowMs: number;
  overtimeMinimumMs: number;
}

/** Per person: the dates to recompute, and the instants the punches of those dates lie in. */
export function targetsOf(people: readonly Person[], planner: Planned['planner'], range: RecomputeRange, rules: DayRules) {
  const { from, to, planFrom, planTo, locked, changed } = range;
  const { slackMs } = rules;
  const targets = new Map<string, Target>();
  const allDates = new Set<string>();
  let [start, end] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const person of people) {
    const plans = planner.plans(person, planFrom, planTo);
    const dateOf = planner.datesOf(person);
    const wanted = changed ? new Set(attribute(changed.get(person.id)?.instants ?? [], plans, slackMs, dateOf)) : null;
    const dates: string[] = [];
    for (const plan of plans) {
      if (plan.date < from || plan.date > to || (wanted && !wanted.has(plan.date)) || inRanges(plan.date, locked)) continue;
      dates.push(plan.date);
      allDates.add(plan.date);
      const day = dateOf.bounds(plan.date);
      const shift = plan.shift;
      start = Math.min(start, day.start, shift ? shift.start - slackMs : day.start);
      end = Math.max(end, day.end, shift ? shift.end + slackMs + 1 : day.end);
    }
    if (dates.length > 0) targets.set(person.id, { person, plans, dates, localDates: dateOf });
  }
  return { targets, allDates, start, end };
}

/**
 * One person's days recomputed from their punches (`own`) against their stored days
 * (`before`): rows whose result changed go to `out.writes` (written and announced), rows whose
 * stored punches or zone alone changed to `out.quiet` (written, not announced: a subscriber sees
 * nothing new, as on the first recompute of a day stored before its punches were, migration 0023,
 * or its zone, 0045), a day
 * of today or later that lost every punch to `out.removed`. `employeeKey` names the person where
 * a day has none yet. Answers how many days were recomputed.
 */
export function recomputePerson(
  { person, plans, dates, localDates }: Target,
  own: readonly CountedPunch[],
  before: ReadonlyMap<string, AttendanceDayRow> | undefined,
  employeeKey: string,
  rules: DayRules,
  out: RecomputeOut,
): number {
  if (own.length === 0 && !before) return 0;
  let count = 0;
  const byDate = new Map<string, CountedPunch[]>();
  attribute(
    own.map((p) => p.at),
    plans,
    rules.slackMs,
    localDates,
  ).forEach((date, i) => {
    const list = byDate.get(date);
    if (list) list.push(own[i]!);
    else byDate.set(date, [own[i]!]);
  });
  for (const date of dates) {
    const dayPunches = byDate.get(date) ?? [];
    const old = before?.get(date);
    if (dayPunches.length === 0 && !old) continue;
    count++;
    const plan = plans.find((p) => p.date === date)!;
    if (dayPunches.length === 0 && date >= rules.todayIn(plan.zone)) {
      out.removed.push(old!);
      continue;
    }
    const row: AttendanceDayRow = {
      enrolleeId: person.id,
      employeeKey: old?.employeeKey ?? employeeKey,
      date,
      ...computeDay(plan, dayPunches, rules.repeatWindowMs, rules.overtimeMinimumMs),
      updatedAt: rules.now,
      // What reports list for the day (day-rows.ts): the punches it was computed from.
      punches: dayPunches.length === 0 ? null : [...dayPunches].sort((a, b) => a.at - b.at).map((p) => ({ at: p.at, corrected: p.corrected })),
      // The zone it was judged in: its wall times are shown in it from now on (tables.ts).
      zone: plan.zone ?? null,
    };
    if (!old || !sameDay(old, row)) out.writes.push(row);
    // Its `updated_at` kept too: the day a subscriber sees did not change (its instants are the same in any zone).
    else if (!samePunches(old, row) || old.zone !== row.zone) out.quiet.push({ ...row, updatedAt: old.updatedAt });
  }
  return count;
}
