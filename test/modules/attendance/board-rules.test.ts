/** The statuses of the Today board (src/modules/attendance/board-rules.ts): pure functions of a plan, a day and the time. */
import { describe, expect, test } from 'bun:test';
import {
  BOARD_COUNTS,
  type BoardDay,
  boardEntry,
  countInto,
  emptyCounts,
  inCount,
  overnightEntry,
  runningEntry,
  shiftRunning,
} from '../../../src/modules/attendance/board-rules';
import { computeDay } from '../../../src/modules/attendance/rules';
import type { DayPlan, Shift } from '../../../src/modules/calendar';

const MIN = 60_000;
const at = (date: string, time: string) => Date.parse(`${date}T${time}:00Z`);
const D = '2026-03-09';

function shift(date: string): Shift {
  return {
    name: 'day',
    start: at(date, '08:00'),
    end: at(date, '16:30'),
    graceInMs: 5 * MIN,
    graceOutMs: 5 * MIN,
    breakMs: 30 * MIN,
    expectedSeconds: 8 * 3600,
  };
}

function plan(dayType: DayPlan['dayType'] = 'workday', date = D, withShift = true): DayPlan {
  const s = withShift ? shift(date) : null;
  return {
    date,
    dayType,
    holiday: dayType === 'holiday' ? 'Easter' : null,
    leave: dayType === 'leave' ? 'annual' : null,
    schedule: dayType === 'workday' ? s : null,
    shift: s,
  };
}

/** The stored day the attendance rules compute from these punches (null without punches). */
function day(p: DayPlan, ...times: string[]): BoardDay | null {
  if (times.length === 0) return null;
  const computed = computeDay(
    p,
    times.map((t) => ({ at: at(p.date, t), corrected: false })),
    MIN,
  );
  return { ...computed, late: computed.flags.includes('late') };
}

const when = (time: string, today = D) => ({ now: at(today, time), today });

describe('the board status of a person', () => {
  test('on time and in now; late by the whole time since the start', () => {
    const p = plan();
    expect(boardEntry(p, day(p, '07:58'), when('10:00'))).toMatchObject({
      status: 'present',
      inNow: true,
      inNowDate: D,
      firstIn: at(D, '07:58'),
      lastOut: null,
      lateSeconds: 0,
    });
    expect(boardEntry(p, day(p, '08:05'), when('10:00'))).toMatchObject({ status: 'present', lateSeconds: 0 });
    expect(boardEntry(p, day(p, '08:06'), when('10:00'))).toMatchObject({ status: 'late', lateSeconds: 6 * 60, inNow: true });
  });

  test('out: every punch paired; in again after a break', () => {
    const p = plan();
    expect(boardEntry(p, day(p, '07:58', '12:00'), when('12:30'))).toMatchObject({ status: 'present', inNow: false, lastOut: at(D, '12:00') });
    expect(boardEntry(p, day(p, '07:58', '12:00', '12:30'), when('13:00'))).toMatchObject({ status: 'present', inNow: true, lastOut: null });
  });

  test('no punch on a workday: not due yet, then not in yet after the grace, then absent once the shift has ended', () => {
    const p = plan();
    expect(boardEntry(p, null, when('07:00')).status).toBe('scheduled');
    expect(boardEntry(p, null, when('08:05')).status).toBe('scheduled');
    expect(boardEntry(p, null, when('08:06')).status).toBe('not_in_yet');
    expect(boardEntry(p, null, when('16:29')).status).toBe('not_in_yet');
    expect(boardEntry(p, null, when('16:30')).status).toBe('absent');
    expect(boardEntry(p, null, when('16:30')).expectedStart).toBe(at(D, '08:00'));
  });

  test('past and future dates: absent and not due; a past incomplete day is not "in now"', () => {
    const p = plan();
    expect(boardEntry(p, null, when('09:00', '2026-03-10')).status).toBe('absent');
    expect(boardEntry(p, null, when('09:00', '2026-03-08')).status).toBe('scheduled');
    expect(boardEntry(p, day(p, '07:58'), when('09:00', '2026-03-10'))).toMatchObject({ status: 'present', inNow: false });
  });

  test('leave, holiday and days off show without a punch; a punch on them is presence', () => {
    expect(boardEntry(plan('leave'), null, when('10:00'))).toMatchObject({ status: 'on_leave', schedule: null, expectedStart: null });
    expect(boardEntry(plan('holiday'), null, when('10:00')).status).toBe('holiday');
    expect(boardEntry(plan('weekend'), null, when('10:00')).status).toBe('off');
    const off = plan('weekend');
    expect(boardEntry(off, day(off, '09:00'), when('10:00'))).toMatchObject({ status: 'present', inNow: true });
  });

  test('a workday without any shift is never "not in yet": nothing says when the person is due', () => {
    const p = plan('workday', D, false);
    expect(boardEntry(p, null, when('15:00')).status).toBe('scheduled');
    expect(boardEntry(p, null, when('15:00', '2026-03-10')).status).toBe('absent');
  });
});

describe('the counts', () => {
  test('present counts the late; out and in now split them; expected counts workdays', () => {
    const counts = emptyCounts();
    const p = plan();
    countInto(counts, boardEntry(p, day(p, '07:58'), when('10:00')), true);
    countInto(counts, boardEntry(p, day(p, '08:20'), when('10:00')), true);
    countInto(counts, boardEntry(p, day(p, '07:50', '09:00'), when('10:00')), true);
    countInto(counts, boardEntry(p, null, when('10:00')), true);
    countInto(counts, boardEntry(plan('leave'), null, when('10:00')), false);
    countInto(counts, boardEntry(plan('holiday'), null, when('10:00')), false);
    expect(counts).toEqual({
      expected: 4,
      present: 3,
      late: 1,
      not_in_yet: 1,
      absent: 0,
      on_leave: 1,
      holiday: 1,
      off: 0,
      out: 1,
      in_now: 2,
      scheduled: 0,
    });
  });
});

describe('still in from last night', () => {
  const NEXT = '2026-03-10';
  const SLACK = 4 * 60 * MIN;
  /** Yesterday's plan with a night shift, 22:00 to 06:00 the next morning. */
  function nightPlan(dayType: DayPlan['dayType'] = 'workday'): DayPlan {
    const night: Shift = { ...shift(D), name: 'night', start: at(D, '22:00'), end: at(NEXT, '06:00') };
    return { ...plan(dayType, D), schedule: dayType === 'workday' ? night : null, shift: night };
  }
  const nightDay = (p: DayPlan, ...times: number[]): BoardDay => {
    const computed = computeDay(
      p,
      times.map((t) => ({ at: t, corrected: false })),
      MIN,
    );
    return { ...computed, late: computed.flags.includes('late') };
  };

  test('after midnight the night shift’s people are in now, on that shift, until its window closes', () => {
    const p = nightPlan();
    const inAt = nightDay(p, at(D, '21:58'));
    expect(overnightEntry(p, inAt, { now: at(NEXT, '02:00') }, SLACK)).toEqual({
      schedule: 'night',
      expectedStart: at(D, '22:00'),
      expectedEnd: at(NEXT, '06:00'),
      status: 'present',
      firstIn: at(D, '21:58'),
      lastOut: null,
      lateSeconds: 0,
      inNow: true,
      inNowDate: D,
    });
    expect(overnightEntry(p, nightDay(p, at(D, '22:20')), { now: at(NEXT, '02:00') }, SLACK)).toMatchObject({ status: 'late', lateSeconds: 20 * 60 });
    // Overtime within the window still counts as in; once it has closed, an open day is a missing out.
    expect(overnightEntry(p, inAt, { now: at(NEXT, '09:59') }, SLACK)?.inNow).toBe(true);
    expect(overnightEntry(p, inAt, { now: at(NEXT, '10:00') }, SLACK)).toBeNull();
  });

  test('a day closed (in and out), no day, or no shift that night: nothing carried', () => {
    const p = nightPlan();
    expect(overnightEntry(p, nightDay(p, at(D, '21:58'), at(NEXT, '01:00')), { now: at(NEXT, '02:00') }, SLACK)).toBeNull();
    expect(overnightEntry(p, null, { now: at(NEXT, '02:00') }, SLACK)).toBeNull();
    // A day shift's open day does not reach past its window into the next morning.
    const dayShift = plan();
    expect(overnightEntry(dayShift, day(dayShift, '07:58'), { now: at(NEXT, '02:00') }, SLACK)).toBeNull();
    // Called in on a day off for the night: the day off's shift window holds them too.
    const off = nightPlan('weekend');
    expect(overnightEntry(off, nightDay(off, at(D, '22:05')), { now: at(NEXT, '01:00') }, SLACK)).toMatchObject({ inNow: true, status: 'present' });
  });

  test('the night that runs after midnight: a no-show is not in yet until it ends, then absent in its grace out; who left is out', () => {
    const p = nightPlan();
    const live = (time: string) => ({ now: at(NEXT, time), dayStart: at(NEXT, '00:00') });
    // No day stored, or the absence generate-absences wrote at 00:15: the same.
    const absence: BoardDay = { status: 'absent', late: false, firstIn: null, lastOut: null, lateSeconds: 0, punchCount: 0, schedule: 'night' };
    for (const stored of [null, absence]) {
      expect(runningEntry(p, stored, null, live('02:00'), SLACK)).toMatchObject({
        status: 'not_in_yet',
        schedule: 'night',
        expectedStart: at(D, '22:00'),
        inNow: false,
      });
      expect(runningEntry(p, stored, null, live('06:04'), SLACK)).toMatchObject({ status: 'absent', expectedStart: at(D, '22:00') });
      expect(runningEntry(p, stored, null, live('06:05'), SLACK)).toBeNull();
    }
    const left = nightDay(p, at(D, '21:50'), at(NEXT, '01:00'));
    expect(runningEntry(p, left, null, live('02:00'), SLACK)).toMatchObject({ status: 'present', inNow: false, inNowDate: null, lastOut: at(NEXT, '01:00') });
    expect(runningEntry(p, left, null, live('06:05'), SLACK)).toBeNull();
    // Still in: carried until the window closes (end + slack), as before.
    expect(runningEntry(p, nightDay(p, at(D, '22:10')), null, live('09:59'), SLACK)).toMatchObject({ status: 'late', inNow: true, inNowDate: D });
    // Punches of today's date: today's shift.
    expect(runningEntry(p, left, nightDay(plan('workday', NEXT), at(NEXT, '05:00')), live('05:30'), SLACK)).toBeNull();
  });

  test('no night runs: a day shift of yesterday, a day off not worked, a leave', () => {
    const live = { now: at(NEXT, '02:00'), dayStart: at(NEXT, '00:00') };
    expect(shiftRunning(plan(), live)).toBe(false);
    expect(runningEntry(plan(), null, null, live, SLACK)).toBeNull();
    expect(shiftRunning(nightPlan('weekend'), live)).toBe(true);
    expect(runningEntry(nightPlan('weekend'), null, null, live, SLACK)).toBeNull();
    expect(runningEntry(nightPlan('leave'), null, null, live, SLACK)).toBeNull();
    // A day off worked that night, and left: out, on that night.
    const off = nightPlan('weekend');
    expect(runningEntry(off, nightDay(off, at(D, '22:00'), at(NEXT, '01:30')), null, live, SLACK)).toMatchObject({ status: 'present', inNow: false });
  });

  test('the people a tile lists are the people it counts: in now and left make up came in', () => {
    const p = plan();
    const entries = [
      boardEntry(p, day(p, '07:58'), when('10:00')),
      boardEntry(p, day(p, '08:20'), when('10:00')),
      boardEntry(p, day(p, '07:50', '09:00'), when('10:00')),
      boardEntry(p, null, when('10:00')),
      boardEntry(plan('leave'), null, when('10:00')),
    ];
    const listed = (count: (typeof BOARD_COUNTS)[number]) => entries.filter((e, i) => inCount(e, i < 4, count)).length;
    const counts = emptyCounts();
    for (const [i, e] of entries.entries()) countInto(counts, e, i < 4);
    for (const count of BOARD_COUNTS) expect({ count, listed: listed(count) }).toEqual({ count, listed: counts[count] });
    expect(listed('in_now') + listed('out')).toBe(listed('present'));
    expect(listed('present')).toBe(3);
  });
});
