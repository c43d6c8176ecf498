/**
 * The rules of attendance days, as pure functions of the day's plan (modules/calendar/plan.ts)
 * and its punches. The README's "Attendance rules" say the same for a payroll clerk.
 *
 * Which day a punch belongs to (`attribute`):
 * - a shift's window runs from its start minus the slack (ATTENDANCE_SHIFT_SLACK) to its end
 *   plus the slack; a punch in the window of a date's shift belongs to that date, so the punches
 *   of an overnight shift stay on the date it started. Days off keep the shift they would have,
 *   so their windows hold punches too;
 * - in two windows (shifts close together): the shift whose start or end is nearest;
 * - in none: the punch's own local date in the person's zone (calendar/plan.ts `zoneOf`).
 *
 * One day (`computeDay`):
 * - Punches are taken in time order; state codes are ignored, because many terminals send 0 for
 *   every punch and people press the wrong key. A punch less than `repeatWindowMs` after the
 *   punch just before it (counted or itself a repeat) is a repeated tap: not paired (it still
 *   counts in `punchCount`). So a chain of quick taps is one punch, the first of the chain: a
 *   tap compared with the last one kept instead made 08:00:00 08:00:50 08:01:40 two punches.
 * - Counted punches pair up in order: 1st in, 2nd out, 3rd in… Worked time is the sum of the
 *   pairs, so a break punched out and in is not worked time. A shift's unpaid break is topped
 *   up: when the time out between pairs is less than the break, the rest (break − time out) is
 *   deducted, provided the day spans the middle of the shift (first punch ≤ middle ≤ last out),
 *   whether or not the person was in at the middle itself. Only the day's schedule has a break:
 *   a weekend, holiday or leave day (no schedule, though its shift's window claims punches)
 *   deducts none, so its worked time is its pairs. `lastOut` is the last punch that
 *   closes a pair (the last clock-out): a punch left without its pair (an in-out-in day, a
 *   stray tap after leaving) is neither worked time, nor time out, nor the last out.
 * - `present` when every counted punch is paired, `incomplete` when one is left over. Without
 *   punches: `absent` on a workday, `non_working_day` on a weekend, `holiday`, `on_leave`.
 * - On a workday with a shift: `late` when the first punch is after start + grace in, late by
 *   the whole time since the start; `early_leave` (complete days only) when the last out is
 *   before end − grace out, early by the whole time until the end. Each is at most the shift's
 *   length (end − start): a day that begins after the shift's end (17:00 18:00 on an 08:00–16:30
 *   shift, a night shift's clock-out alone) is late by the shift, not by 9 or 11 hours, and one
 *   over before its start is early by the shift. Overtime is the time worked
 *   after the shift's end (last out − end), never more than worked − expected (coming late and
 *   staying late makes up, it is not overtime), counted when it is more than the grace out and
 *   at least `overtimeMinimumMs` (ATTENDANCE_OVERTIME_MINIMUM), then all of it. Arriving early
 *   is not overtime. Worked time on a weekend, holiday or leave day is all overtime, flagged
 *   `worked_on_off_day`, `worked_on_holiday` or `worked_on_leave`.
 * - `manual` when a manual or imported punch counts for the day; `unconfirmed_terminal` when a
 *   punch a terminal sent from an address other than the one it is pinned to (flagged
 *   `new_address`) counts for it; `clock_ahead` when a punch dated after it arrived (the
 *   terminal's clock ran ahead: flagged `clock_ahead`) counts for it; `dst_overlap` when a punch
 *   at a wall time the fall-back night showed twice (flagged `dst_overlap`) counts for it;
 *   `clock_reset` when a punch dated by a clock that started over (flagged `clock_reset`: a year
 *   before 2001) counts for it. Each such punch counts like any other, as its terminal dated it:
 *   the flag is for HR to review.
 */
import type { DayPlan } from '../calendar';
import type { DayStatus } from './tables';

export interface CountedPunch {
  at: number;
  /** A manual or imported punch. */
  corrected: boolean;
  /** Sent from an address its terminal is not pinned to (the punch's flag `new_address`). */
  unconfirmed?: boolean;
  /** Dated after it arrived: its terminal's clock ran ahead (the punch's flag `clock_ahead`). */
  ahead?: boolean;
  /** At a wall time the fall-back night showed twice (the punch's flag `dst_overlap`). */
  ambiguous?: boolean;
  /** Dated by a clock that started over (the punch's flag `clock_reset`): its date is wrong. */
  reset?: boolean;
}

export interface DayResult {
  firstIn: number | null;
  lastOut: number | null;
  workedSeconds: number;
  punchCount: number;
  status: DayStatus;
  flags: string[];
  schedule: string | null;
  expectedSeconds: number;
  lateSeconds: number;
  earlyLeaveSeconds: number;
  overtimeSeconds: number;
}

/** The day flag of a day that counts a punch from an unconfirmed terminal address. */
export const UNCONFIRMED_TERMINAL = 'unconfirmed_terminal';
/** The day flag of a day that counts a punch dated after it arrived (a terminal's clock ahead). */
export const CLOCK_AHEAD = 'clock_ahead';
/** The day flag of a day that counts a punch at a wall time the fall-back night showed twice. */
export const DST_OVERLAP = 'dst_overlap';
/** The day flag of a day that counts a punch dated by a clock that started over (a flat clock battery). */
export const CLOCK_RESET = 'clock_reset';

/** The day flags of the punches that count for it, in this order: a manual one, and those HR is to review. */
const PUNCH_FLAGS: readonly [Exclude<keyof CountedPunch, 'at'>, string][] = [
  ['corrected', 'manual'],
  ['unconfirmed', UNCONFIRMED_TERMINAL],
  ['ahead', CLOCK_AHEAD],
  ['ambiguous', DST_OVERLAP],
  ['reset', CLOCK_RESET],
];

const EMPTY_STATUS: Record<DayPlan['dayType'], DayStatus> = { workday: 'absent', weekend: 'non_working_day', holiday: 'holiday', leave: 'on_leave' };
const WORKED_ON: Record<DayPlan['dayType'], string | null> = {
  workday: null,
  weekend: 'worked_on_off_day',
  holiday: 'worked_on_holiday',
  leave: 'worked_on_leave',
};

/**
 * The date each punch belongs to, in the order given. `plans` are one person's plans of
 * consecutive dates covering the punches' local dates and the day either side.
 */
export function attribute(instants: readonly number[], plans: readonly DayPlan[], slackMs: number, dateOf: (instant: number) => string): string[] {
  const windows = plans.flatMap((p) => (p.shift ? [{ date: p.date, start: p.shift.start, end: p.shift.end }] : []));
  return instants.map((at) => {
    let best: { date: string; distance: number } | null = null;
    for (const w of windows) {
      if (at < w.start - slackMs || at > w.end + slackMs) continue;
      const distance = Math.min(Math.abs(at - w.start), Math.abs(at - w.end));
      if (best === null || distance <= best.distance) best = { date: w.date, distance };
    }
    return best?.date ?? dateOf(at);
  });
}

export function computeDay(plan: DayPlan, punches: readonly CountedPunch[], repeatWindowMs: number, overtimeMinimumMs = 0): DayResult {
  const expectedSeconds = plan.schedule?.expectedSeconds ?? 0;
  const base = { schedule: plan.schedule?.name ?? null, expectedSeconds, lateSeconds: 0, earlyLeaveSeconds: 0, overtimeSeconds: 0 };
  if (punches.length === 0) {
    return { firstIn: null, lastOut: null, workedSeconds: 0, punchCount: 0, status: EMPTY_STATUS[plan.dayType], flags: [], ...base };
  }
  const counted = withoutRepeatedTaps(
    punches.map((p) => p.at).sort((a, b) => a - b),
    repeatWindowMs,
  );
  let workedMs = 0;
  let outMs = 0;
  for (let i = 0; i + 1 < counted.length; i += 2) {
    workedMs += counted[i + 1]! - counted[i]!;
    // Time out is between two pairs: the gap before a punch left without its pair is not a break.
    if (i + 3 < counted.length) outMs += counted[i + 2]! - counted[i + 1]!;
  }
  const firstIn = counted[0]!;
  // The last punch that closes a pair: an unpaired one after it (a return, a stray tap after
  // leaving) is not a clock-out, and overtime and the break are judged without it.
  const paired = counted.length - (counted.length % 2);
  const lastOut = paired >= 2 ? counted[paired - 1]! : null;
  const status: DayStatus = counted.length % 2 === 0 ? 'present' : 'incomplete';
  // The break of the day's schedule only: a day off keeps a shift for its punches' window, but
  // its row names no schedule, so no break of one is taken from it (all its pairs are worked).
  const scheduled = plan.schedule;
  if (scheduled && scheduled.breakMs > outMs && lastOut !== null) {
    const middle = (scheduled.start + scheduled.end) / 2;
    if (firstIn <= middle && middle <= lastOut) workedMs = Math.max(0, workedMs - (scheduled.breakMs - outMs));
  }
  const workedSeconds = Math.floor(workedMs / 1000);
  const flags: string[] = [];
  const result = { ...base };
  if (scheduled) {
    // Never more than the shift's length: nobody misses more of a shift than all of it.
    const length = scheduled.end - scheduled.start;
    if (firstIn > scheduled.start + scheduled.graceInMs) {
      flags.push('late');
      result.lateSeconds = Math.floor(Math.min(firstIn - scheduled.start, length) / 1000);
    }
    if (status === 'present' && lastOut !== null && lastOut < scheduled.end - scheduled.graceOutMs) {
      flags.push('early_leave');
      result.earlyLeaveSeconds = Math.floor(Math.min(scheduled.end - lastOut, length) / 1000);
    }
    const afterEnd = lastOut !== null ? Math.floor((lastOut - scheduled.end) / 1000) : 0;
    const extra = Math.min(workedSeconds - expectedSeconds, afterEnd);
    if (extra * 1000 > scheduled.graceOutMs && extra * 1000 >= overtimeMinimumMs) result.overtimeSeconds = extra;
  }
  const workedOn = WORKED_ON[plan.dayType];
  if (workedOn) {
    flags.push(workedOn);
    result.overtimeSeconds = workedSeconds;
  }
  if (result.overtimeSeconds > 0) flags.push('overtime');
  for (const [mark, flag] of PUNCH_FLAGS) if (punches.some((p) => p[mark])) flags.push(flag);
  return { firstIn, lastOut, workedSeconds, punchCount: punches.length, status, flags, ...result };
}

/** The punches that count for pairing: each one not less than `windowMs` after the punch just before it, kept or not. */
function withoutRepeatedTaps(sorted: readonly number[], windowMs: number): number[] {
  const out: number[] = [];
  let previous: number | undefined;
  for (const t of sorted) {
    if (previous === undefined || t - previous >= windowMs) out.push(t);
    previous = t;
  }
  return out;
}
