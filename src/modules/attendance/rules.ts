/**
 * The rules of one attendance day, as a pure function of that day's punch instants.
 *
 * - Punches are taken in time order; state codes are ignored, because many terminals send 0 for
 *   every punch (no state key pressed) and people press the wrong key.
 * - A punch within `repeatWindowMs` of the previous counted punch is a repeated tap and is not
 *   counted for pairing (it still counts in `punchCount`).
 * - Counted punches pair up in order: 1st in, 2nd out, 3rd in, 4th out… `workedSeconds` is the
 *   sum of the paired intervals, so a lunch break punched out and in is not worked time.
 * - `firstIn` is the earliest punch; `lastOut` the latest one when there are at least two
 *   counted punches, else null.
 * - Status: `present` when every counted punch is paired; `incomplete` when one is left over
 *   (a single punch, or a forgotten out). `absent` and `non_working_day` without punches are
 *   written only by generate-absences.
 * - On a weekend day or holiday the status is still present/incomplete, with flag
 *   `non_working_day`, and no late/early flags.
 * - With a schedule: `late` when firstIn > start + grace; `early_leave` when lastOut < end − grace
 *   (wall times on that date in the attendance zone). A schedule whose end is not after its start
 *   (a night shift) crosses midnight, so only `late` is judged.
 */

import type { Schedule } from '../../platform/config/settings';
import { instantOn, secondsOfClock } from '../../platform/time/dates';
import { isWorkingDay, type WorkCalendar } from './calendar';
import type { DayStatus } from './tables';

export interface DayRules extends WorkCalendar {
  timeZone: string;
  schedule: Schedule | null;
  repeatWindowMs: number;
}

export interface DayResult {
  firstIn: number | null;
  lastOut: number | null;
  workedSeconds: number;
  punchCount: number;
  status: DayStatus;
  flags: string[];
}

export function computeDay(date: string, instants: readonly number[], rules: DayRules): DayResult {
  const sorted = [...instants].sort((a, b) => a - b);
  const working = isWorkingDay(date, rules);
  if (sorted.length === 0) {
    return { firstIn: null, lastOut: null, workedSeconds: 0, punchCount: 0, status: working ? 'absent' : 'non_working_day', flags: [] };
  }
  const counted = withoutRepeatedTaps(sorted, rules.repeatWindowMs);
  let workedMs = 0;
  for (let i = 0; i + 1 < counted.length; i += 2) workedMs += counted[i + 1]! - counted[i]!;
  const firstIn = counted[0]!;
  const lastOut = counted.length >= 2 ? counted[counted.length - 1]! : null;
  const flags: string[] = [];
  if (!working) flags.push('non_working_day');
  else if (rules.schedule) {
    const { start, end, graceMs } = rules.schedule;
    if (firstIn > instantOn(date, start, rules.timeZone) + graceMs) flags.push('late');
    if ((secondsOfClock(end) ?? 0) > (secondsOfClock(start) ?? 0) && lastOut !== null && lastOut < instantOn(date, end, rules.timeZone) - graceMs)
      flags.push('early_leave');
  }
  return {
    firstIn,
    lastOut,
    workedSeconds: Math.floor(workedMs / 1000),
    punchCount: sorted.length,
    status: counted.length % 2 === 0 ? 'present' : 'incomplete',
    flags,
  };
}

function withoutRepeatedTaps(sorted: readonly number[], windowMs: number): number[] {
  const out: number[] = [];
  for (const t of sorted) {
    const previous = out[out.length - 1];
    if (previous !== undefined && t - previous < windowMs) continue;
    out.push(t);
  }
  return out;
}
