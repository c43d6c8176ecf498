/**
 * The rows of the reports (src/modules/reports/rows.ts) from days the attendance rules computed
 * (computeDay, as the service stores them): late, early leave, missing punch, absence,
 * overtime, a night shift's next-date punch, and the totals.
 */
import { describe, expect, test } from 'bun:test';
import type { AttendanceDayRow } from '../../../src/modules/attendance';
import { computeDay } from '../../../src/modules/attendance/rules';
import type { DayPlan, Shift } from '../../../src/modules/calendar';
import {
  DAILY_COLUMNS,
  dailyRow,
  EXCEPTION_COLUMNS,
  EXCEPTION_KINDS,
  exceptionsOf,
  type OpenNow,
  punchList,
  SUMMARY_COLUMNS,
  summaryRow,
  summaryTotals,
  TIMESHEET_COLUMNS,
  timesheetRow,
  timesheetTotals,
} from '../../../src/modules/reports/rows';
import { exceptionKinds } from '../../../src/modules/reports/service';
import { words } from '../../../src/modules/reports/table';

const MIN = 60_000;
const H = 60 * MIN;
const ZONE = 'UTC';
/** “Today” for the rows: after every date of these tests, so an open day is a missing punch. */
/** What is open when today is `today` for everyone (one zone), and who is still in from last night. */
function openOn(today: string, lastNight: ReadonlySet<string>): OpenNow {
  return { todayOf: () => today, todays: [today], lastNight };
}
const LATER: OpenNow = openOn('2027-01-01', new Set());
const at = (date: string, time: string) => Date.parse(`${date}T${time}:00Z`);
const person = { employee: 'E7', name: 'Ada Park', areas: ['plant', 'yard'] };

function shift(date: string, start: string, end: string): Shift {
  const s = at(date, start);
  let e = at(date, end);
  if (e <= s) e += 24 * H;
  return {
    name: start === '22:00' ? 'night' : 'day',
    start: s,
    end: e,
    graceInMs: 5 * MIN,
    graceOutMs: 5 * MIN,
    breakMs: 30 * MIN,
    expectedSeconds: (e - s - 30 * MIN) / 1000,
  };
}

/** A stored day as attendance writes it: the rules' result for a workday's punches. */
function day(date: string, times: string[], options: { dayType?: DayPlan['dayType']; night?: boolean } = {}): AttendanceDayRow {
  const s = options.night ? shift(date, '22:00', '06:00') : shift(date, '08:00', '16:30');
  const dayType = options.dayType ?? 'workday';
  const plan: DayPlan = { date, dayType, holiday: null, leave: null, schedule: dayType === 'workday' ? s : null, shift: s };
  const punches = times.map((t) => {
    const [d, time] = t.includes(' ') ? t.split(' ') : [date, t];
    return { at: at(d!, time!), corrected: false };
  });
  return { enrolleeId: 'id-1', employeeKey: person.employee, date, ...computeDay(plan, punches, MIN), updatedAt: 0, punches, zone: null };
}

const cell = (columns: { key: string }[], cells: unknown[], key: string) => cells[columns.findIndex((c) => c.key === key)];
const ALL = new Set(EXCEPTION_KINDS);

describe('exceptions', () => {
  test('late: the time since the shift started, beyond the grace', () => {
    const rows = exceptionsOf(day('2026-02-03', ['08:20', '16:31']), person, ALL, ZONE, LATER);
    expect(rows.map((r) => [cell(EXCEPTION_COLUMNS, r.cells, 'kind'), cell(EXCEPTION_COLUMNS, r.cells, 'hours')])).toEqual([['late', 20 * 60]]);
    expect(exceptionsOf(day('2026-02-03', ['08:04', '16:31']), person, ALL, ZONE, LATER)).toEqual([]);
  });

  test('early leave: the time until the shift ended', () => {
    const rows = exceptionsOf(day('2026-02-05', ['07:58', '15:00']), person, ALL, ZONE, LATER);
    expect(rows.map((r) => [cell(EXCEPTION_COLUMNS, r.cells, 'kind'), cell(EXCEPTION_COLUMNS, r.cells, 'hours')])).toEqual([['early_leave', 90 * 60]]);
    expect(cell(EXCEPTION_COLUMNS, rows[0]!.cells, 'last_out')).toBe('2026-02-05 15:00:00');
  });

  test('missing punch: a punch without its pair, no duration (and no early leave on an incomplete day)', () => {
    const rows = exceptionsOf(day('2026-02-10', ['07:58']), person, ALL, ZONE, LATER);
    expect(rows.map((r) => [cell(EXCEPTION_COLUMNS, r.cells, 'kind'), cell(EXCEPTION_COLUMNS, r.cells, 'hours')])).toEqual([['missing_punch', null]]);
  });

  test('an open day of today is someone still in: no missing punch until the date is past', () => {
    const open = day('2026-02-10', ['07:58']);
    expect(exceptionsOf(open, person, ALL, ZONE, openOn('2026-02-10', new Set()))).toEqual([]);
    expect(cell(DAILY_COLUMNS, dailyRow('2026-02-10', person, open, ZONE, { open: openOn('2026-02-10', new Set()) }).cells, 'status')).toBe('in_now');
    expect(cell(TIMESHEET_COLUMNS, timesheetRow('2026-02-10', person, open, [], ZONE, openOn('2026-02-10', new Set())).cells, 'status')).toBe('in_now');
    expect(words('status', 'in_now')).toBe('In, no out yet');
    expect(cell(DAILY_COLUMNS, dailyRow('2026-02-10', person, open, ZONE, { open: openOn('2026-02-11', new Set()) }).cells, 'status')).toBe('incomplete');
  });

  test('last night’s open day is someone still in while the board carries them, a missing punch after', () => {
    const open = day('2026-02-10', ['21:58']);
    const carried: OpenNow = openOn('2026-02-11', new Set(['id-1']));
    const missing = new Set(['missing_punch'] as const);
    expect(exceptionsOf(open, person, missing, ZONE, carried)).toEqual([]);
    expect(cell(DAILY_COLUMNS, dailyRow('2026-02-10', person, open, ZONE, { open: carried }).cells, 'status')).toBe('in_now');
    expect(cell(TIMESHEET_COLUMNS, timesheetRow('2026-02-10', person, open, [], ZONE, carried).cells, 'status')).toBe('in_now');
    // The window closed (nobody carried), or someone else is carried: a missing punch.
    const closed: OpenNow = openOn('2026-02-11', new Set(['id-2']));
    expect(exceptionsOf(open, person, missing, ZONE, closed).map((r) => cell(EXCEPTION_COLUMNS, r.cells, 'kind'))).toEqual(['missing_punch']);
    // Only yesterday's day is carried: an open day of two days ago is missing its punch.
    expect(cell(DAILY_COLUMNS, dailyRow('2026-02-10', person, open, ZONE, { open: openOn('2026-02-12', new Set(['id-1'])) }).cells, 'status')).toBe(
      'incomplete',
    );
  });

  test('today, someone without a day is where the board puts them, with their schedule and the time it expects', () => {
    const row = dailyRow('2026-02-10', person, null, ZONE, {
      open: openOn('2026-02-10', new Set()),
      live: { status: 'not_in_yet', schedule: 'day', expectedSeconds: 8 * 3600 },
    });
    expect(['status', 'schedule', 'worked_hours', 'expected_hours'].map((key) => cell(DAILY_COLUMNS, row.cells, key))).toEqual([
      'not_in_yet',
      'day',
      0,
      8 * 3600,
    ]);
    expect(words('status', 'not_due_yet')).toBe('Not due yet');
    expect(
      cell(
        DAILY_COLUMNS,
        dailyRow('2026-02-10', person, null, ZONE, {
          open: openOn('2026-02-10', new Set()),
          live: { status: 'late', schedule: 'night', expectedSeconds: 0 },
        }).cells,
        'status',
      ),
    ).toBe('in_now');
  });

  test('absent: the expected time', () => {
    const rows = exceptionsOf(day('2026-02-11', []), person, ALL, ZONE, LATER);
    expect(rows.map((r) => [cell(EXCEPTION_COLUMNS, r.cells, 'kind'), cell(EXCEPTION_COLUMNS, r.cells, 'hours')])).toEqual([['absent', 8 * 3600]]);
  });

  test('overtime past the grace, and all of a day off worked', () => {
    const long = exceptionsOf(day('2026-02-12', ['07:58', '18:30']), person, ALL, ZONE, LATER);
    expect(long.map((r) => [cell(EXCEPTION_COLUMNS, r.cells, 'kind'), cell(EXCEPTION_COLUMNS, r.cells, 'hours')])).toEqual([['overtime', 2 * 3600]]);
    const saturday = exceptionsOf(day('2026-02-14', ['09:00', '13:00'], { dayType: 'weekend' }), person, ALL, ZONE, LATER);
    // A day off names no schedule, so no schedule's break is deducted: all of 09:00–13:00 is overtime.
    expect(saturday.map((r) => [cell(EXCEPTION_COLUMNS, r.cells, 'kind'), cell(EXCEPTION_COLUMNS, r.cells, 'hours')])).toEqual([['overtime', 4 * 3600]]);
  });

  test('late and overtime on one day are two rows; `kind` keeps the ones asked for', () => {
    const d = day('2026-02-13', ['08:30', '19:30']);
    expect(exceptionsOf(d, person, ALL, ZONE, LATER).map((r) => r.cells[3])).toEqual(['late', 'overtime']);
    expect(exceptionsOf(d, person, new Set(['overtime'] as const), ZONE, LATER).map((r) => r.cells[3])).toEqual(['overtime']);
  });

  test('a day counting a punch from an unconfirmed terminal address is a row to review, with no duration', () => {
    const flagged = { ...day('2026-02-16', ['08:30', '16:31']), flags: ['late', 'unconfirmed_terminal'] };
    const rows = exceptionsOf(flagged, person, ALL, ZONE, LATER);
    expect(rows.map((r) => [cell(EXCEPTION_COLUMNS, r.cells, 'kind'), cell(EXCEPTION_COLUMNS, r.cells, 'hours')])).toEqual([
      ['late', 30 * 60],
      ['unconfirmed_terminal', null],
    ]);
    expect(exceptionsOf(flagged, person, exceptionKinds('unconfirmed_terminal'), ZONE, LATER)).toHaveLength(1);
    expect(words('flags', 'late unconfirmed_terminal')).toBe('late, punch from an unconfirmed terminal address');
  });

  test('a day counting a punch dated after it arrived, or one at a time the fall-back night showed twice, is a row to review, with no duration', () => {
    const flagged = { ...day('2026-02-16', ['08:58', '16:31']), flags: ['late', 'clock_ahead', 'dst_overlap'] };
    const rows = exceptionsOf(flagged, person, ALL, ZONE, LATER);
    expect(rows.map((r) => [cell(EXCEPTION_COLUMNS, r.cells, 'kind'), cell(EXCEPTION_COLUMNS, r.cells, 'hours')])).toEqual([
      ['late', 58 * 60],
      ['clock_ahead', null],
      ['dst_overlap', null],
    ]);
    expect(exceptionsOf(flagged, person, exceptionKinds('clock_ahead'), ZONE, LATER)).toHaveLength(1);
    expect(exceptionsOf(flagged, person, exceptionKinds('dst_overlap'), ZONE, LATER)).toHaveLength(1);
    expect(words('flags', 'late clock_ahead dst_overlap')).toBe(
      'late, punch dated after it arrived (terminal clock ahead), punch in the hour the clocks went back (ambiguous time)',
    );
  });

  test('a day counting a punch dated by a terminal clock that started over is a row to review, with no duration', () => {
    const reset = { ...day('2000-01-01', ['00:03']), status: 'incomplete' as const, flags: ['worked_on_off_day', 'clock_reset'] };
    const rows = exceptionsOf(reset, person, ALL, ZONE, LATER);
    expect(rows.map((r) => [cell(EXCEPTION_COLUMNS, r.cells, 'kind'), cell(EXCEPTION_COLUMNS, r.cells, 'hours')])).toEqual([
      ['missing_punch', null],
      ['clock_reset', null],
    ]);
    expect(exceptionsOf(reset, person, exceptionKinds('clock_reset'), ZONE, LATER)).toHaveLength(1);
    expect(words('flags', 'worked_on_off_day clock_reset')).toBe('worked on a day off, punch dated by a terminal clock that started over (date wrong)');
  });

  test('`?kind=` is checked', () => {
    expect([...exceptionKinds('late, absent')]).toEqual(['late', 'absent']);
    expect(exceptionKinds(undefined).size).toBe(9);
    expect(() => exceptionKinds('late,nap')).toThrow('kind must be one or more of');
  });
});

describe('daily', () => {
  test('a day, and a person without one yet', () => {
    const row = dailyRow('2026-02-03', person, day('2026-02-03', ['08:20', '16:31']), ZONE, { open: LATER });
    const get = (key: string) => cell(DAILY_COLUMNS, row.cells, key);
    expect([get('areas'), get('status'), get('first_in'), get('late_hours'), get('worked_hours'), get('flags')]).toEqual([
      'plant, yard',
      'present',
      '2026-02-03 08:20:00',
      1200,
      7 * 3600 + 41 * 60,
      'late',
    ]);
    const none = dailyRow('2026-02-03', person, null, ZONE, { open: LATER });
    expect([cell(DAILY_COLUMNS, none.cells, 'status'), cell(DAILY_COLUMNS, none.cells, 'first_in'), cell(DAILY_COLUMNS, none.cells, 'worked_hours')]).toEqual([
      'no_record',
      null,
      0,
    ]);
    expect(row.cells).toHaveLength(DAILY_COLUMNS.length);
  });
});

describe('timesheet', () => {
  test('every punch of the date, a night shift’s morning marked +1, a manual one *', () => {
    const night = day('2026-02-02', ['21:55', '2026-02-03 06:05'], { night: true });
    expect(night.date).toBe('2026-02-02');
    const row = timesheetRow(
      '2026-02-02',
      person,
      night,
      [
        { at: at('2026-02-02', '21:55'), corrected: false },
        { at: at('2026-02-03', '06:05'), corrected: true },
      ],
      ZONE,
      LATER,
    );
    expect(cell(TIMESHEET_COLUMNS, row.cells, 'punches')).toBe('21:55 06:05+1*');
    expect(cell(TIMESHEET_COLUMNS, row.cells, 'weekday')).toBe('Mon');
    expect(cell(TIMESHEET_COLUMNS, row.cells, 'last_out')).toBe('2026-02-03 06:05:00');
    expect(punchList('2026-02-02', [], ZONE)).toBe('');
    const empty = timesheetRow('2026-02-07', person, null, [], ZONE, LATER);
    expect([
      cell(TIMESHEET_COLUMNS, empty.cells, 'status'),
      cell(TIMESHEET_COLUMNS, empty.cells, 'worked_hours'),
      cell(TIMESHEET_COLUMNS, empty.cells, 'weekday'),
    ]).toEqual([null, null, 'Sat']);
  });

  test('totals: durations summed, days counted', () => {
    const days = [
      day('2026-02-02', ['07:58', '16:31']),
      day('2026-02-03', ['08:20', '16:31']),
      day('2026-02-04', ['07:58', '15:00']),
      day('2026-02-05', ['07:58', '18:30']),
      day('2026-02-06', []),
      day('2026-02-09', ['07:58']),
    ];
    const totals = timesheetTotals(days).cells;
    const get = (key: string) => cell(TIMESHEET_COLUMNS, totals, key);
    expect(get('date')).toBe('Total');
    expect(get('worked_hours')).toBe(days.reduce((n, d) => n + d.workedSeconds, 0));
    expect(get('expected_hours')).toBe(6 * 8 * 3600);
    expect(get('late_hours')).toBe(20 * 60);
    expect(get('early_leave_hours')).toBe(90 * 60);
    expect(get('overtime_hours')).toBe(2 * 3600);
    expect(get('flags')).toBe('5 days worked, 1 absent');
    // A totals note is printed as it is, not read as flag codes.
    expect(words('flags', '5 days worked, 1 absent')).toBe('5 days worked, 1 absent');
    expect(words('flags', 'late overtime')).toBe('late, overtime');
  });

  test('totals in words: one day worked, two holidays (singular and plural as counted)', () => {
    const worked = day('2026-02-02', ['07:58', '16:31']);
    const as = (date: string, status: (typeof worked)['status']) => ({ ...day(date, []), status });
    const flags = (days: (typeof worked)[]) => cell(TIMESHEET_COLUMNS, timesheetTotals(days).cells, 'flags');
    expect(flags([worked])).toBe('1 day worked');
    expect(flags([worked, as('2026-02-03', 'holiday')])).toBe('1 day worked, 1 holiday');
    expect(flags([as('2026-02-03', 'holiday'), as('2026-02-04', 'holiday'), as('2026-02-05', 'on_leave')])).toBe('0 days worked, 1 on leave, 2 holidays');
  });
});

describe('summary', () => {
  test('a row per person and the totals of every figure', () => {
    const base = {
      enrollee: '00000000-0000-4000-8000-000000000001',
      days: 28,
      days_present: 20,
      days_incomplete: 0,
      days_absent: 0,
      days_on_leave: 0,
      days_holiday: 0,
      days_off: 8,
      days_late: 1,
      days_early_leave: 0,
      days_worked_off: 0,
      days_manual: 0,
      worked_seconds: 576_000,
      expected_seconds: 576_000,
      overtime_seconds: 0,
      late_seconds: 1200,
      early_leave_seconds: 0,
    };
    const rows = [summaryRow({ ...base, employee: 'A', name: 'Ann' }), summaryRow({ ...base, employee: 'B', name: null, days_absent: 2, late_seconds: 0 })];
    expect(rows[1]!.cells.slice(0, 2)).toEqual(['B', '']);
    const totals = summaryTotals(rows).cells;
    const get = (key: string) => cell(SUMMARY_COLUMNS, totals, key);
    expect([get('employee'), get('name'), get('days_present'), get('days_absent'), get('worked_hours'), get('late_hours')]).toEqual([
      'Total',
      '2 people',
      40,
      2,
      1_152_000,
      1200,
    ]);
  });

  test('the totals row sums the whole minutes each row shows: two people’s 41 min 42 s of overtime are 1:22, not 1:23', () => {
    const person = (employee: string) =>
      summaryRow({
        enrollee: '00000000-0000-4000-8000-000000000001',
        employee,
        name: employee,
        days: 1,
        days_present: 1,
        days_incomplete: 0,
        days_absent: 0,
        days_on_leave: 0,
        days_holiday: 0,
        days_off: 0,
        days_late: 0,
        days_early_leave: 0,
        days_worked_off: 0,
        days_manual: 0,
        worked_seconds: 8 * 3600 + 43 * 60 + 42,
        expected_seconds: 8 * 3600,
        overtime_seconds: 41 * 60 + 42,
        late_seconds: 0,
        early_leave_seconds: 0,
      });
    const totals = summaryTotals([person('A'), person('B')]).cells;
    const get = (key: string) => cell(SUMMARY_COLUMNS, totals, key);
    expect([get('worked_hours'), get('overtime_hours'), get('expected_hours')]).toEqual([2 * 523 * 60, 2 * 41 * 60, 16 * 3600]);
  });
});
