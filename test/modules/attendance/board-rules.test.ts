/** The statuses of the Today board (src/modules/attendance/board-rules.ts): pure functions of a plan, a day and the time. */
import { describe, expect, test } from 'bun:test';
import { type BoardDay, boardEntry, countInto, emptyCounts } from '../../../src/modules/attendance/board-rules';
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
