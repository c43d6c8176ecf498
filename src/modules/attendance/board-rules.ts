/**
 * The status of one person on the Today board (`attendance/today/`), as a pure function of the
 * date's plan (modules/calendar/plan.ts), the stored day computed by ./rules.ts (null when the
 * person has no punch that date) and the time now. The README's "Today board" says the same.
 *
 * - With punches: `late` when the day is flagged late (first punch after start + grace
 *   in), else `present`; on any kind of day (someone who comes in on a day off is present).
 *   `in_now` on today's date when a punch is left without its pair (in, or in-out-in); `last_out`
 *   is then not shown (the last punch was an in).
 * - Without punches, by the plan: `holiday`, `on_leave`, `off` (a day off). On a workday:
 *   past dates `absent`, future dates `scheduled`; today: `scheduled` until the shift's start
 *   plus its grace in, `not_in_yet` after it, `absent` once the shift has ended. A workday
 *   without any shift (no schedule, no DEFAULT_SCHEDULE) stays `scheduled` today: nothing says
 *   when the person is due.
 * - Still in from last night (`overnightEntry`): on today's live board, a person whose day of
 *   yesterday is open (an in without its out) while yesterday's shift window still runs into
 *   today (its end plus ATTENDANCE_SHIFT_SLACK: an out punch now would still close yesterday's
 *   day) is shown on that shift, `in_now`, until the window closes. Without it a night shift's
 *   people vanished from "In now" at midnight, the count a roll call is taken from.
 * - The night that is running (`runningEntry`): on today's live board, a person whose shift of
 *   yesterday crosses midnight and has not ended (its end plus its grace out) is shown on that
 *   shift, as the board of its date would show it live: in now, out (left early: their last
 *   out), `not_in_yet` (no punch: the no-show of the shift running now), `absent` in the grace
 *   after its end; on a workday, or on a day off they worked. Then today's shift, as before.
 *   Yesterday's board asked meanwhile shows the same entry (live, not a past date's `out` or
 *   `absent`). Someone with punches of today's date is on today's shift.
 */
import type { DayPlan } from '../calendar';
import type { DayStatus } from './tables';

export const BOARD_STATUSES = ['present', 'late', 'scheduled', 'not_in_yet', 'absent', 'on_leave', 'holiday', 'off'] as const;
export type BoardStatus = (typeof BOARD_STATUSES)[number];

/** What the board reads of a stored day. */
export interface BoardDay {
  status: DayStatus;
  /** Flagged late by the rules. */
  late: boolean;
  firstIn: number | null;
  lastOut: number | null;
  lateSeconds: number;
  punchCount: number;
  schedule: string | null;
}

export interface BoardEntry {
  status: BoardStatus;
  schedule: string | null;
  expectedStart: number | null;
  expectedEnd: number | null;
  firstIn: number | null;
  lastOut: number | null;
  lateSeconds: number;
  inNow: boolean;
  /** The date of the open day `inNow` counts: today's, or yesterday's for someone in from last night. */
  inNowDate: string | null;
}

const NO_PUNCH_STATUS: Record<Exclude<DayPlan['dayType'], 'workday'>, BoardStatus> = { holiday: 'holiday', leave: 'on_leave', weekend: 'off' };

export function boardEntry(plan: DayPlan, day: BoardDay | null, when: { now: number; today: string }): BoardEntry {
  const shift = plan.schedule;
  const base = { schedule: shift?.name ?? day?.schedule ?? null, expectedStart: shift?.start ?? null, expectedEnd: shift?.end ?? null };
  if (day && day.punchCount > 0 && day.firstIn !== null) {
    const inNow = plan.date === when.today && day.status === 'incomplete';
    return {
      ...base,
      status: day.late ? 'late' : 'present',
      firstIn: day.firstIn,
      lastOut: inNow ? null : day.lastOut,
      lateSeconds: day.lateSeconds,
      inNow,
      inNowDate: inNow ? plan.date : null,
    };
  }
  const none = { ...base, firstIn: null, lastOut: null, lateSeconds: 0, inNow: false, inNowDate: null };
  if (plan.dayType !== 'workday') return { ...none, status: NO_PUNCH_STATUS[plan.dayType] };
  return { ...none, status: workdayWithoutPunch(plan, when) };
}

/**
 * The entry of a person still in from yesterday's shift (see the file's comment), or null when
 * yesterday's day is closed or its shift's window has ended. `previous`: yesterday's plan.
 */
export function overnightEntry(previous: DayPlan, day: BoardDay | null, when: { now: number }, slackMs: number): BoardEntry | null {
  const shift = previous.shift;
  if (day?.status !== 'incomplete' || day.firstIn === null || !shift || when.now >= shift.end + slackMs) return null;
  return {
    schedule: shift.name,
    expectedStart: shift.start,
    expectedEnd: shift.end,
    status: day.late ? 'late' : 'present',
    firstIn: day.firstIn,
    lastOut: null,
    lateSeconds: day.lateSeconds,
    inNow: true,
    inNowDate: previous.date,
  };
}

/** The time now, and the instant today's date began (in the attendance zone). */
export interface LiveNow {
  now: number;
  dayStart: number;
}

/**
 * Whether yesterday's shift (`previous.shift`) is running now: it crosses into today and has not
 * ended, its grace out included. True from yesterday's midnight on for the night shifts only.
 */
export function shiftRunning(previous: DayPlan, when: LiveNow): boolean {
  const shift = previous.shift;
  return shift !== null && shift.end > when.dayStart && when.now < shift.end + shift.graceOutMs;
}

/**
 * The entry of a person on yesterday's shift while it runs (see the file's comment), or null:
 * today's plan applies. `previous`: yesterday's plan, `day`: the stored day of yesterday,
 * `todays`: the stored day of today (punches of today's put the person on today's shift). The
 * same for today's board and yesterday's, so the two agree on everyone of the running night.
 */
export function runningEntry(previous: DayPlan, day: BoardDay | null, todays: BoardDay | null, when: LiveNow, slackMs: number): BoardEntry | null {
  if (todays && todays.punchCount > 0) return null;
  const carried = overnightEntry(previous, day, when, slackMs);
  if (carried) return carried;
  const worked = day !== null && day.punchCount > 0 && day.firstIn !== null;
  if (!shiftRunning(previous, when) || (previous.dayType !== 'workday' && !worked)) return null;
  // Live on the shift's own date: in or out by its punches; without any, not in yet until it ends.
  return boardEntry(previous, day, { now: when.now, today: previous.date });
}

function workdayWithoutPunch(plan: DayPlan, when: { now: number; today: string }): BoardStatus {
  if (plan.date < when.today) return 'absent';
  if (plan.date > when.today) return 'scheduled';
  const shift = plan.schedule;
  if (!shift || when.now <= shift.start + shift.graceInMs) return 'scheduled';
  return when.now < shift.end ? 'not_in_yet' : 'absent';
}

/** The board's counts: statuses, and `expected` (workdays), `in_now` and `out` (came in, left). */
export const BOARD_COUNTS = ['expected', 'present', 'late', 'not_in_yet', 'absent', 'on_leave', 'holiday', 'off', 'out', 'in_now', 'scheduled'] as const;
export type BoardCount = (typeof BOARD_COUNTS)[number];
export type BoardCounts = Record<BoardCount, number>;

export function emptyCounts(): BoardCounts {
  return Object.fromEntries(BOARD_COUNTS.map((c) => [c, 0])) as BoardCounts;
}

/** Adds one person to counts. `present` counts everyone who came in, `late` among them. */
export function countInto(counts: BoardCounts, entry: BoardEntry, workday: boolean): void {
  addTo(counts, countsOf(entry, workday));
}

/** The counts one person is in (decided once, then added to the whole board's and each area's). */
export function countsOf(entry: BoardEntry, workday: boolean): BoardCount[] {
  return BOARD_COUNTS.filter((count) => inCount(entry, workday, count));
}

export function addTo(counts: BoardCounts, of: readonly BoardCount[]): void {
  for (const count of of) counts[count]++;
}

/** Whether one person is among those a count is made of (the people a tile lists). */
export function inCount(entry: BoardEntry, workday: boolean, count: BoardCount): boolean {
  const cameIn = entry.status === 'present' || entry.status === 'late';
  switch (count) {
    case 'expected':
      return workday;
    case 'present':
      return cameIn;
    case 'in_now':
      return cameIn && entry.inNow;
    case 'out':
      return cameIn && !entry.inNow;
    default:
      return entry.status === count;
  }
}
