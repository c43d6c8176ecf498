/** The plan of a day (src/modules/calendar/plan.ts), as a pure function of the calendar's rows. */
import { describe, expect, test } from 'bun:test';
import { type CalendarData, Planner, type ScheduleDef } from '../../../src/modules/calendar/plan';

const ZONE = 'Europe/Berlin';
const day: ScheduleDef = { id: 'day', name: 'day', start: '08:00', end: '16:30', graceInMs: 300_000, graceOutMs: 300_000, breakMs: 1_800_000, weekdays: null };
const night: ScheduleDef = { id: 'night', name: 'night', start: '22:00', end: '06:00', graceInMs: 0, graceOutMs: 0, breakMs: 0, weekdays: [1, 2, 3, 4, 5] };
const fallback: ScheduleDef = {
  id: 'DEFAULT_SCHEDULE',
  name: 'default',
  start: '09:00',
  end: '17:00',
  graceInMs: 0,
  graceOutMs: 0,
  breakMs: 0,
  weekdays: null,
};

function data(overrides: Partial<CalendarData> = {}): CalendarData {
  return {
    timeZone: ZONE,
    defaults: { schedule: null, weekend: [0, 6], holidays: [] },
    holidays: [],
    schedules: new Map([
      ['day', day],
      ['night', night],
    ]),
    assignments: [],
    leaves: [],
    weekends: [],
    ...overrides,
  };
}

const ada = { id: 'ada', areaIds: ['plant'] };
const bo = { id: 'bo', areaIds: ['branch'] };
const both = { id: 'cy', areaIds: ['plant', 'branch'] };
const assignment = (over: Partial<CalendarData['assignments'][number]>) => ({
  id: crypto.randomUUID(),
  scheduleId: 'day',
  enrolleeId: null,
  areaId: 'plant',
  from: '2026-01-01',
  to: null,
  priority: 0,
  createdAt: 1,
  ...over,
});
const holiday = (over: Partial<CalendarData['holidays'][number]>) => ({
  date: '2026-03-19',
  name: 'Holiday',
  recurring: false,
  cancelled: false,
  areaIds: [],
  enrolleeId: null,
  ...over,
});

describe('day types', () => {
  test('without any row: the weekend of WEEKEND_DAYS, workdays without a shift', () => {
    const plans = new Planner(data()).plans(ada, '2026-03-06', '2026-03-09');
    expect(plans.map((p) => [p.date, p.dayType, p.schedule])).toEqual([
      ['2026-03-06', 'workday', null],
      ['2026-03-07', 'weekend', null],
      ['2026-03-08', 'weekend', null],
      ['2026-03-09', 'workday', null],
    ]);
  });

  test('DEFAULT_SCHEDULE is the shift where nothing is assigned', () => {
    const plan = new Planner(data({ defaults: { schedule: fallback, weekend: [0, 6], holidays: [] } })).plan(ada, '2026-03-09');
    expect(plan.schedule).toMatchObject({
      name: 'default',
      start: Date.parse('2026-03-09T08:00:00Z'),
      end: Date.parse('2026-03-09T16:00:00Z'),
      expectedSeconds: 8 * 3600,
    });
  });

  test('holiday beats weekend beats leave beats workday; a day off keeps the shift it would have', () => {
    const planner = new Planner(
      data({
        assignments: [assignment({})],
        holidays: [holiday({ date: '2026-03-11' })],
        leaves: [{ enrolleeId: 'ada', from: '2026-03-10', to: '2026-03-14', kind: 'annual' }],
      }),
    );
    const plans = planner.plans(ada, '2026-03-09', '2026-03-14');
    expect(plans.map((p) => [p.date, p.dayType, p.holiday, p.leave])).toEqual([
      ['2026-03-09', 'workday', null, null],
      ['2026-03-10', 'leave', null, 'annual'],
      ['2026-03-11', 'holiday', 'Holiday', 'annual'],
      ['2026-03-12', 'leave', null, 'annual'],
      ['2026-03-13', 'leave', null, 'annual'],
      ['2026-03-14', 'weekend', null, 'annual'],
    ]);
    expect(plans[0]!.schedule?.name).toBe('day');
    for (const p of plans.slice(1)) {
      expect(p.schedule).toBeNull();
      expect(p.shift?.name).toBe('day');
    }
  });
});

describe('holidays', () => {
  test('scoped to everyone, areas or one enrollee', () => {
    const planner = new Planner(
      data({
        holidays: [
          holiday({ date: '2026-03-02', name: 'Everyone' }),
          holiday({ date: '2026-03-03', name: 'Branch', areaIds: ['branch'] }),
          holiday({ date: '2026-03-04', name: 'Ada only', enrolleeId: 'ada' }),
        ],
      }),
    );
    const types = (person: typeof ada) => planner.plans(person, '2026-03-02', '2026-03-04').map((p) => p.holiday);
    expect(types(ada)).toEqual(['Everyone', null, 'Ada only']);
    expect(types(bo)).toEqual(['Everyone', 'Branch', null]);
    expect(types(both)).toEqual(['Everyone', 'Branch', null]);
  });

  test('recurring: the same month and day every year from its own year on, 29 February only in leap years', () => {
    const planner = new Planner(
      data({
        holidays: [holiday({ date: '2025-05-01', name: 'Labour Day', recurring: true }), holiday({ date: '2024-02-29', name: 'Leap', recurring: true })],
      }),
    );
    expect(planner.plan(ada, '2024-05-01').holiday).toBeNull();
    expect(planner.plan(ada, '2025-05-01').holiday).toBe('Labour Day');
    expect(planner.plan(ada, '2031-05-01').holiday).toBe('Labour Day');
    expect(planner.plan(ada, '2028-02-29').holiday).toBe('Leap');
    expect(planner.plan(ada, '2027-02-28').holiday).toBeNull();
  });

  test('a cancelled row cancels a recurring one (and HOLIDAYS) for its date and scope only', () => {
    const planner = new Planner(
      data({
        defaults: { schedule: null, weekend: [0, 6], holidays: ['2026-12-24'] },
        holidays: [
          holiday({ date: '2020-12-25', name: 'Christmas', recurring: true }),
          holiday({ date: '2026-12-25', name: 'Plant works', cancelled: true, areaIds: ['plant'] }),
          holiday({ date: '2026-12-24', name: 'Not this year', cancelled: true }),
        ],
      }),
    );
    expect(planner.plan(ada, '2026-12-25')).toMatchObject({ dayType: 'workday', holiday: null });
    expect(planner.plan(bo, '2026-12-25')).toMatchObject({ dayType: 'holiday', holiday: 'Christmas' });
    expect(planner.plan(ada, '2027-12-25').holiday).toBe('Christmas');
    expect(planner.plan(bo, '2026-12-24').holiday).toBeNull();
  });
});

describe('shifts', () => {
  test('the own assignment beats an area’s; then the higher priority; then the newest', () => {
    const planner = new Planner(
      data({
        assignments: [
          assignment({ scheduleId: 'day', areaId: 'plant', priority: 10, createdAt: 5 }),
          assignment({ scheduleId: 'night', areaId: null, enrolleeId: 'ada', from: '2026-03-09', to: '2026-03-13' }),
          assignment({ scheduleId: 'night', areaId: 'branch', priority: 1, createdAt: 1 }),
          assignment({ scheduleId: 'day', areaId: 'branch', priority: 1, createdAt: 2 }),
          assignment({ scheduleId: 'night', areaId: 'branch', priority: 0, createdAt: 3 }),
        ],
      }),
    );
    expect(planner.plan(ada, '2026-03-06').schedule?.name).toBe('day');
    expect(planner.plan(ada, '2026-03-09').schedule?.name).toBe('night');
    expect(planner.plan(ada, '2026-03-16').schedule?.name).toBe('day');
    expect(planner.plan(bo, '2026-03-09').schedule?.name).toBe('day');
    // Cy is in both areas: the plant's priority 10 wins.
    expect(planner.plan(both, '2026-03-09').schedule?.name).toBe('day');
  });

  test('an overnight shift ends on the next date; over the spring-forward night it is an hour shorter', () => {
    const planner = new Planner(data({ assignments: [assignment({ scheduleId: 'night' })] }));
    const friday = planner.plan(ada, '2026-03-27');
    expect(friday.schedule).toMatchObject({ start: Date.parse('2026-03-27T21:00:00Z'), end: Date.parse('2026-03-28T05:00:00Z'), expectedSeconds: 8 * 3600 });
    // Saturday night is not a workday (weekdays 1–5), but keeps its shift: 22:00 CET → 06:00 CEST.
    const saturday = planner.plan(ada, '2026-03-28');
    expect(saturday).toMatchObject({ dayType: 'weekend', schedule: null });
    expect(saturday.shift).toMatchObject({ start: Date.parse('2026-03-28T21:00:00Z'), end: Date.parse('2026-03-29T04:00:00Z'), expectedSeconds: 7 * 3600 });
  });

  test('a break is not expected time', () => {
    const plan = new Planner(data({ assignments: [assignment({})] })).plan(ada, '2026-03-09');
    expect(plan.schedule?.expectedSeconds).toBe(8 * 3600);
  });
});

describe('weekends', () => {
  test('an area’s weekend from a date on; several areas: the days off in all of them; a schedule’s weekdays win', () => {
    const planner = new Planner(
      data({
        weekends: [
          { areaId: 'branch', from: '0000-01-01', days: [5, 6] },
          { areaId: 'branch', from: '2026-03-16', days: [0, 5, 6] },
          { areaId: 'plant', from: '2026-03-16', days: [0] },
        ],
        assignments: [assignment({ scheduleId: 'night', areaId: null, enrolleeId: 'bo', from: '2026-04-01' })],
      }),
    );
    const off = (person: typeof ada, from: string, to: string) =>
      planner
        .plans(person, from, to)
        .filter((p) => p.dayType === 'weekend')
        .map((p) => p.date);
    // Branch: Friday and Saturday, then Sunday too from the 16th.
    expect(off(bo, '2026-03-09', '2026-03-22')).toEqual(['2026-03-13', '2026-03-14', '2026-03-20', '2026-03-21', '2026-03-22']);
    // Plant: WEEKEND_DAYS until its own row starts on the 16th.
    expect(off(ada, '2026-03-09', '2026-03-22')).toEqual(['2026-03-14', '2026-03-15', '2026-03-22']);
    // Both areas from the 16th: off only on Sunday, the day both agree on.
    expect(off(both, '2026-03-16', '2026-03-22')).toEqual(['2026-03-22']);
    // Bo's night shift names its weekdays (Monday to Friday): the branch weekend no longer applies.
    expect(off(bo, '2026-04-03', '2026-04-05')).toEqual(['2026-04-04', '2026-04-05']);
  });
});

describe('schedules split by weekdays', () => {
  // Monday to Thursday 08:00–16:30, and a short Friday 08:00–12:00 at a higher priority.
  const monThu: ScheduleDef = { ...day, id: 'monthu', name: 'MonThu', weekdays: [1, 2, 3, 4] };
  const friShort: ScheduleDef = { ...day, id: 'frishort', name: 'FriShort', end: '12:00', breakMs: 0, weekdays: [5] };
  const schedules = new Map([
    ['day', day],
    ['monthu', monThu],
    ['frishort', friShort],
  ]);
  const week = (planner: Planner, person: typeof ada) =>
    planner.plans(person, '2026-11-23', '2026-11-29').map((p) => `${p.dayType}:${p.schedule?.name ?? '-'}`);

  test('a person’s own two: each decides the days its shift starts on; the days neither starts on are off', () => {
    const planner = new Planner(
      data({
        schedules,
        assignments: [
          assignment({ scheduleId: 'monthu', areaId: null, enrolleeId: 'ada', from: '2026-11-01' }),
          assignment({ scheduleId: 'frishort', areaId: null, enrolleeId: 'ada', from: '2026-11-01', priority: 1 }),
        ],
      }),
    );
    expect(week(planner, ada)).toEqual(['workday:MonThu', 'workday:MonThu', 'workday:MonThu', 'workday:MonThu', 'workday:FriShort', 'weekend:-', 'weekend:-']);
  });

  test('an area’s short Friday beside its week: Monday to Thursday stay workdays', () => {
    const planner = new Planner(data({ schedules, assignments: [assignment({ scheduleId: 'day' }), assignment({ scheduleId: 'frishort', priority: 1 })] }));
    expect(week(planner, ada)).toEqual(['workday:day', 'workday:day', 'workday:day', 'workday:day', 'workday:FriShort', 'weekend:-', 'weekend:-']);
  });

  test('a part-timer’s own Monday to Thursday keeps Friday off, whatever their area works', () => {
    const planner = new Planner(
      data({ schedules, assignments: [assignment({ scheduleId: 'day' }), assignment({ scheduleId: 'monthu', areaId: null, enrolleeId: 'ada' })] }),
    );
    expect(week(planner, ada)).toEqual(['workday:MonThu', 'workday:MonThu', 'workday:MonThu', 'workday:MonThu', 'weekend:-', 'weekend:-', 'weekend:-']);
  });
});
