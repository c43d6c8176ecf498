/** The rules of a day (src/modules/attendance/rules.ts): pure functions of a plan and punches. */
import { describe, expect, test } from 'bun:test';
import { attribute, computeDay } from '../../../src/modules/attendance/rules';
import type { DayPlan, Shift } from '../../../src/modules/calendar';

const MIN = 60_000;
const H = 60 * MIN;
/** UTC keeps the arithmetic readable: a wall time is its instant. */
const at = (date: string, time: string) => Date.parse(`${date}T${time}:00Z`);
const dateOf = (instant: number) => new Date(instant).toISOString().slice(0, 10);

function shift(date: string, start: string, end: string, over: Partial<Shift> = {}): Shift {
  const s = at(date, start);
  let e = at(date, end);
  if (e <= s) e += 24 * H;
  const breakMs = over.breakMs ?? 0;
  return { name: 'day', start: s, end: e, graceInMs: 5 * MIN, graceOutMs: 5 * MIN, breakMs, expectedSeconds: (e - s - breakMs) / 1000, ...over };
}

function plan(date: string, dayType: DayPlan['dayType'] = 'workday', s: Shift | null = shift(date, '08:00', '16:30', { breakMs: 30 * MIN })): DayPlan {
  return { date, dayType, holiday: null, leave: null, schedule: dayType === 'workday' ? s : null, shift: s };
}

const punches = (...instants: number[]) => instants.map((a) => ({ at: a, corrected: false }));
const D = '2026-03-09';

describe('computeDay', () => {
  test('a full day without a punched break: the break is deducted, 3 minutes over is within the grace', () => {
    expect(computeDay(plan(D), punches(at(D, '07:58'), at(D, '16:31')), MIN)).toEqual({
      firstIn: at(D, '07:58'),
      lastOut: at(D, '16:31'),
      workedSeconds: 8 * 3600 + 3 * 60,
      punchCount: 2,
      status: 'present',
      flags: [],
      schedule: 'day',
      expectedSeconds: 8 * 3600,
      lateSeconds: 0,
      earlyLeaveSeconds: 0,
      overtimeSeconds: 0,
    });
  });

  test('a punched break is not deducted twice; a shorter one is topped up to the break', () => {
    const full = computeDay(plan(D), punches(at(D, '08:00'), at(D, '12:00'), at(D, '12:30'), at(D, '16:30')), MIN);
    expect(full).toMatchObject({ workedSeconds: 8 * 3600, status: 'present', punchCount: 4 });
    const short = computeDay(plan(D), punches(at(D, '08:00'), at(D, '12:00'), at(D, '12:10'), at(D, '16:30')), MIN);
    expect(short.workedSeconds).toBe(8 * 3600);
  });

  test('the rest of the break is deducted when the day spans the middle, even if the person was out at the middle (the README example)', () => {
    // Middle 12:15, out 12:00–12:20: 8:23 of pairs, 20 minutes out, 10 more deducted.
    const day = computeDay(plan(D), punches(at(D, '08:00'), at(D, '12:00'), at(D, '12:20'), at(D, '16:43')), MIN);
    expect(day.workedSeconds).toBe(8 * 3600 + 13 * 60);
    // Begun after the middle: all its pairs.
    expect(computeDay(plan(D), punches(at(D, '12:30'), at(D, '16:30')), MIN).workedSeconds).toBe(4 * 3600);
  });

  test('a short day that does not span the middle of the shift keeps its worked time', () => {
    expect(computeDay(plan(D), punches(at(D, '08:00'), at(D, '11:00')), MIN)).toMatchObject({ workedSeconds: 3 * 3600, flags: ['early_leave'] });
  });

  test('late: after start + grace, late by the whole time since the start; exactly on the grace is on time', () => {
    expect(computeDay(plan(D), punches(at(D, '08:05'), at(D, '16:30')), MIN)).toMatchObject({ flags: [], lateSeconds: 0 });
    expect(computeDay(plan(D), punches(at(D, '08:06'), at(D, '16:30')), MIN)).toMatchObject({ flags: ['late'], lateSeconds: 6 * 60 });
  });

  test('early leave only on a complete day, by the whole time until the end', () => {
    expect(computeDay(plan(D), punches(at(D, '08:00'), at(D, '16:00')), MIN)).toMatchObject({ flags: ['early_leave'], earlyLeaveSeconds: 30 * 60 });
    const incomplete = computeDay(plan(D), punches(at(D, '08:00'), at(D, '12:00'), at(D, '13:00')), MIN);
    expect(incomplete).toMatchObject({ status: 'incomplete', flags: [], earlyLeaveSeconds: 0, workedSeconds: 4 * 3600 });
  });

  test('overtime: all of worked − expected once it is more than the grace out', () => {
    expect(computeDay(plan(D), punches(at(D, '08:00'), at(D, '16:35')), MIN)).toMatchObject({ overtimeSeconds: 0, flags: [] });
    expect(computeDay(plan(D), punches(at(D, '08:00'), at(D, '17:30')), MIN)).toMatchObject({ overtimeSeconds: 3600, flags: ['overtime'] });
  });

  test('overtime is time after the shift’s end: arriving early is not, nor a late start made up, nor less than the minimum', () => {
    const HALF_HOUR = 30 * MIN;
    // 19 minutes over eight hours, by arriving early: no overtime (the defect of issue 26).
    expect(computeDay(plan(D), punches(at(D, '07:41'), at(D, '16:30')), MIN, HALF_HOUR)).toMatchObject({
      workedSeconds: 8 * 3600 + 19 * 60,
      overtimeSeconds: 0,
      flags: [],
    });
    // 19 minutes after the end: under the minimum.
    expect(computeDay(plan(D), punches(at(D, '08:00'), at(D, '16:49')), MIN, HALF_HOUR)).toMatchObject({ overtimeSeconds: 0, flags: [] });
    // 45 minutes after the end: all of it.
    expect(computeDay(plan(D), punches(at(D, '08:00'), at(D, '17:15')), MIN, HALF_HOUR)).toMatchObject({ overtimeSeconds: 45 * 60, flags: ['overtime'] });
    // An hour late, an hour longer: made up, not overtime.
    expect(computeDay(plan(D), punches(at(D, '09:00'), at(D, '17:30')), MIN, HALF_HOUR)).toMatchObject({ overtimeSeconds: 0, flags: ['late'] });
  });

  test('a stray punch after leaving is not overtime nor a break: only the pairs count, the last out closes one', () => {
    // 09:00–17:00, 30 min break, overtime from 30 min: in early at 08:00, out at 17:00, a tap at 18:00.
    const nine = plan(D, 'workday', shift(D, '09:00', '17:00', { breakMs: 30 * MIN }));
    const HALF_HOUR = 30 * MIN;
    expect(computeDay(nine, punches(at(D, '08:00'), at(D, '17:00'), at(D, '18:00')), MIN, HALF_HOUR)).toEqual({
      firstIn: at(D, '08:00'),
      lastOut: at(D, '17:00'),
      workedSeconds: 8.5 * 3600,
      punchCount: 3,
      status: 'incomplete',
      flags: [],
      schedule: 'day',
      expectedSeconds: 7.5 * 3600,
      lateSeconds: 0,
      earlyLeaveSeconds: 0,
      overtimeSeconds: 0,
    });
    expect(computeDay(nine, punches(at(D, '08:30'), at(D, '17:00'), at(D, '17:45')), MIN, HALF_HOUR)).toMatchObject({
      lastOut: at(D, '17:00'),
      workedSeconds: 8 * 3600,
      overtimeSeconds: 0,
      flags: [],
    });
    // Overtime really worked before the stray tap still counts: out at 18:00, a tap at 19:00.
    expect(computeDay(nine, punches(at(D, '09:00'), at(D, '18:00'), at(D, '19:00')), MIN, HALF_HOUR)).toMatchObject({
      lastOut: at(D, '18:00'),
      workedSeconds: 8.5 * 3600,
      overtimeSeconds: 3600,
      flags: ['overtime'],
    });
  });

  test('time out is between pairs only: a punched lunch counts as the break, the gap before an unpaired punch does not', () => {
    // Lunch punched 12:00–12:30, out at 16:30, a stray tap at 17:30: the break is not deducted again.
    const lunch = computeDay(plan(D), punches(at(D, '08:00'), at(D, '12:00'), at(D, '12:30'), at(D, '16:30'), at(D, '17:30')), MIN);
    expect(lunch).toMatchObject({ status: 'incomplete', lastOut: at(D, '16:30'), workedSeconds: 8 * 3600, overtimeSeconds: 0 });
    // Without a punched lunch the hour before the stray tap is no break: the 30 minutes are deducted.
    const stray = computeDay(plan(D), punches(at(D, '08:00'), at(D, '16:30'), at(D, '17:30')), MIN);
    expect(stray).toMatchObject({ status: 'incomplete', lastOut: at(D, '16:30'), workedSeconds: 8 * 3600, overtimeSeconds: 0 });
  });

  test('an in-out-in day: the last out is the clock-out, not the return', () => {
    const day = computeDay(plan(D), punches(at(D, '09:00'), at(D, '12:00'), at(D, '12:10')), MIN);
    expect(day).toMatchObject({ status: 'incomplete', firstIn: at(D, '09:00'), lastOut: at(D, '12:00'), workedSeconds: 3 * 3600, flags: ['late'] });
    // One punch closes no pair, with a repeated tap after it or not.
    expect(computeDay(plan(D), punches(at(D, '08:00'), at(D, '08:00') + 20_000), MIN)).toMatchObject({ status: 'incomplete', lastOut: null, punchCount: 2 });
  });

  test('days off: worked time is all overtime, flagged by the kind of day; nothing is late', () => {
    const worked = punches(at(D, '10:00'), at(D, '12:00'));
    expect(computeDay(plan(D, 'weekend'), worked, MIN)).toMatchObject({
      flags: ['worked_on_off_day', 'overtime'],
      overtimeSeconds: 7200,
      expectedSeconds: 0,
      schedule: null,
    });
    expect(computeDay(plan(D, 'holiday'), worked, MIN).flags).toEqual(['worked_on_holiday', 'overtime']);
    expect(computeDay(plan(D, 'leave'), worked, MIN).flags).toEqual(['worked_on_leave', 'overtime']);
  });

  test('a holiday worked names no schedule, so no break is deducted: its worked time is its pairs, all overtime', () => {
    // E231 on a holiday: 07:57–12:00 and 12:20–16:30, the 30-minute break of the shift the day would have not topped up.
    const worked = punches(at(D, '07:57'), at(D, '12:00'), at(D, '12:20'), at(D, '16:30'));
    expect(computeDay(plan(D, 'holiday'), worked, MIN)).toMatchObject({
      schedule: null,
      workedSeconds: 8 * 3600 + 13 * 60,
      expectedSeconds: 0,
      overtimeSeconds: 8 * 3600 + 13 * 60,
      flags: ['worked_on_holiday', 'overtime'],
    });
    // The same punches on a workday: the rest of the break (10 minutes) is deducted.
    expect(computeDay(plan(D), worked, MIN)).toMatchObject({ schedule: 'day', workedSeconds: 8 * 3600 + 3 * 60, overtimeSeconds: 0 });
    // A day off without a punched break keeps all its time too.
    expect(computeDay(plan(D, 'weekend'), punches(at(D, '08:00'), at(D, '16:30')), MIN).workedSeconds).toBe(8.5 * 3600);
  });

  test('a workday without a shift: nothing expected, nothing late, no overtime', () => {
    expect(computeDay(plan(D, 'workday', null), punches(at(D, '10:00'), at(D, '20:00')), MIN)).toMatchObject({
      flags: [],
      expectedSeconds: 0,
      overtimeSeconds: 0,
      workedSeconds: 36000,
    });
  });

  test('without punches: the status of the kind of day; an absence still expects its shift', () => {
    expect(computeDay(plan(D), [], MIN)).toMatchObject({ status: 'absent', expectedSeconds: 8 * 3600, schedule: 'day', flags: [] });
    expect(computeDay(plan(D, 'weekend'), [], MIN).status).toBe('non_working_day');
    expect(computeDay(plan(D, 'holiday'), [], MIN).status).toBe('holiday');
    expect(computeDay(plan(D, 'leave'), [], MIN)).toMatchObject({ status: 'on_leave', expectedSeconds: 0 });
  });

  test('a repeated tap is counted but not paired; a manual punch flags the day', () => {
    const day = computeDay(plan(D), [...punches(at(D, '07:58'), at(D, '07:58') + 20_000), { at: at(D, '16:31'), corrected: true }], MIN);
    expect(day).toMatchObject({ status: 'present', punchCount: 3, workedSeconds: 8 * 3600 + 3 * 60, flags: ['manual'] });
  });

  test('a chain of quick taps is one punch, the first of the chain: each tap is compared with the tap just before it', () => {
    const sec = (time: string) => Date.parse(`${D}T${time}Z`);
    // 50 s after the first, 50 s after that one (100 s after the first): one punch, not two.
    const day = computeDay(plan(D), punches(sec('08:00:00'), sec('08:00:50'), sec('08:01:40'), sec('16:30:00')), MIN);
    expect(day).toMatchObject({ status: 'present', punchCount: 4, firstIn: sec('08:00:00'), lastOut: sec('16:30:00'), workedSeconds: 8 * 3600, flags: [] });
    // A tap a whole window after the one before it counts, even when that one was a repeat.
    const apart = computeDay(plan(D), punches(sec('08:00:00'), sec('08:00:50'), sec('08:01:50'), sec('16:30:00')), MIN);
    expect(apart).toMatchObject({ status: 'incomplete', lastOut: sec('08:01:50') });
    // A window of 0 turns it off: every tap is a punch.
    expect(computeDay(plan(D), punches(sec('08:00:00'), sec('08:00:50'), sec('16:30:00')), 0)).toMatchObject({
      status: 'incomplete',
      lastOut: sec('08:00:50'),
    });
  });

  test('late and early leave are each at most the shift’s length (end − start)', () => {
    const SHIFT = 8 * 3600 + 30 * 60;
    // Both punches after the shift's end: late by the whole shift, not by 9 hours.
    expect(computeDay(plan(D), punches(at(D, '17:00'), at(D, '18:00')), MIN)).toMatchObject({
      flags: ['late'],
      lateSeconds: SHIFT,
      earlyLeaveSeconds: 0,
      overtimeSeconds: 0,
    });
    // Both before its start: early by the whole shift, not by 9:30.
    expect(computeDay(plan(D), punches(at(D, '05:00'), at(D, '07:00')), MIN)).toMatchObject({
      flags: ['early_leave'],
      earlyLeaveSeconds: SHIFT,
      lateSeconds: 0,
    });
    // Within the shift nothing changes: late by the time since the start, early by the time until the end.
    expect(computeDay(plan(D), punches(at(D, '16:00'), at(D, '16:20')), MIN)).toMatchObject({ lateSeconds: 8 * 3600, earlyLeaveSeconds: 10 * 60 });
    // A night shift's clock-in forgotten: its clock-out alone, the next morning, is late by the shift (8 h), not 11.
    const night = plan(D, 'workday', shift(D, '22:00', '06:00', { name: 'night', breakMs: 30 * MIN }));
    expect(computeDay(night, punches(at('2026-03-10', '09:00')), MIN)).toMatchObject({ status: 'incomplete', flags: ['late'], lateSeconds: 8 * 3600 });
  });

  test('a punch from an address its terminal is not pinned to counts, and flags the day unconfirmed_terminal', () => {
    const day = computeDay(plan(D), [...punches(at(D, '07:58')), { at: at(D, '16:31'), corrected: false, unconfirmed: true }], MIN);
    expect(day).toMatchObject({ status: 'present', punchCount: 2, workedSeconds: 8 * 3600 + 3 * 60, flags: ['unconfirmed_terminal'] });
    // Beside the others, after `manual`; a repeated tap from there flags the day as well.
    const both = computeDay(
      plan(D),
      [{ at: at(D, '08:20'), corrected: true }, ...punches(at(D, '16:31')), { at: at(D, '16:31') + 10_000, corrected: false, unconfirmed: true }],
      MIN,
    );
    expect(both.flags).toEqual(['late', 'manual', 'unconfirmed_terminal']);
    expect(computeDay(plan(D), punches(at(D, '07:58'), at(D, '16:31')), MIN).flags).toEqual([]);
  });

  test('a punch dated after it arrived counts as dated, and flags the day clock_ahead', () => {
    // In at 07:58 real time on a terminal an hour fast (08:58), out at 16:31 once it was set right.
    const day = computeDay(plan(D), [{ at: at(D, '08:58'), corrected: false, ahead: true }, ...punches(at(D, '16:31'))], MIN);
    expect(day).toMatchObject({ status: 'present', firstIn: at(D, '08:58'), lateSeconds: 58 * 60, flags: ['late', 'clock_ahead'] });
  });

  test('a punch at a wall time the fall-back night showed twice counts, and flags the day dst_overlap', () => {
    const night = plan(D, 'workday', shift(D, '22:00', '06:00', { name: 'night' }));
    const day = computeDay(night, [...punches(at(D, '22:00')), { at: at('2026-03-10', '06:00'), corrected: false, ambiguous: true }], MIN);
    expect(day).toMatchObject({ status: 'present', workedSeconds: 8 * 3600, flags: ['dst_overlap'] });
    // After the other review flags, in a fixed order.
    const all = computeDay(
      night,
      [
        { at: at(D, '22:00'), corrected: false, ambiguous: true },
        { at: at('2026-03-10', '06:00'), corrected: false, unconfirmed: true, ahead: true },
      ],
      MIN,
    );
    expect(all.flags).toEqual(['unconfirmed_terminal', 'clock_ahead', 'dst_overlap']);
  });

  test('a punch dated by a terminal clock that started over counts as dated, and flags the day clock_reset', () => {
    const day = computeDay(plan(D), [{ at: at(D, '08:03'), corrected: false, reset: true }], MIN);
    expect(day).toMatchObject({ status: 'incomplete', flags: ['clock_reset'] });
    // After the other review flags.
    const all = computeDay(plan(D), [{ at: at(D, '07:58'), corrected: false, ahead: true, reset: true }, ...punches(at(D, '16:31'))], MIN);
    expect(all.flags).toEqual(['clock_ahead', 'clock_reset']);
  });

  test('an overnight shift is judged against its end on the next date', () => {
    const night = plan(D, 'workday', shift(D, '22:00', '06:00', { name: 'night', graceInMs: 10 * MIN, graceOutMs: 10 * MIN, breakMs: 30 * MIN }));
    expect(computeDay(night, punches(at(D, '21:55'), at('2026-03-10', '05:00')), MIN)).toMatchObject({
      status: 'present',
      flags: ['early_leave'],
      earlyLeaveSeconds: 3600,
      workedSeconds: 7 * 3600 + 5 * 60 - 30 * 60,
      expectedSeconds: 7.5 * 3600,
    });
  });
});

describe('attribute', () => {
  const SLACK = 4 * H;
  const nightShift = (date: string) => shift(date, '22:00', '06:00', { name: 'night' });
  const nights = ['2026-03-08', '2026-03-09', '2026-03-10'].map((d) => plan(d, 'workday', nightShift(d)));

  test('the punches of an overnight shift belong to the date it started', () => {
    expect(attribute([at('2026-03-09', '21:55'), at('2026-03-10', '06:05'), at('2026-03-10', '09:59')], nights, SLACK, dateOf)).toEqual([
      '2026-03-09',
      '2026-03-09',
      '2026-03-09',
    ]);
  });

  test('outside every window a punch keeps its own local date', () => {
    expect(attribute([at('2026-03-10', '10:01'), at('2026-03-10', '17:59')], nights, SLACK, dateOf)).toEqual(['2026-03-10', '2026-03-10']);
  });

  test('in two windows: the shift whose start or end is nearest', () => {
    // A night shift on the 9th, a day shift from 07:00 on the 10th: 06:30 ends the night, 06:50 starts the day.
    const plans = [plan('2026-03-09', 'workday', nightShift('2026-03-09')), plan('2026-03-10', 'workday', shift('2026-03-10', '07:00', '15:00'))];
    expect(attribute([at('2026-03-10', '06:20'), at('2026-03-10', '06:50')], plans, SLACK, dateOf)).toEqual(['2026-03-09', '2026-03-10']);
  });

  test('days off keep their shift’s window: a night worked on a Saturday stays on the Saturday', () => {
    const saturday = plan('2026-03-14', 'weekend', nightShift('2026-03-14'));
    expect(attribute([at('2026-03-14', '22:00'), at('2026-03-15', '06:00')], [saturday], SLACK, dateOf)).toEqual(['2026-03-14', '2026-03-14']);
  });
});
