/**
 * A person's time zone on a date (src/modules/calendar/plan.ts `zoneOf`): the zone of the areas
 * they are in on that date, the first zoned one by name when they disagree, ATTENDANCE_TIME_ZONE
 * without one; and the plans that follow it (a shift's wall times, an instant's date).
 */
import { describe, expect, test } from 'bun:test';
import { type AreaZone, type CalendarData, Planner, type ScheduleDef, zoneOf, zonesOfAreas } from '../../../src/modules/calendar/plan';

const LONDON = 'Europe/London';
const zones = new Map<string, AreaZone>([
  ['m', { name: 'mumbai', zone: 'Asia/Kolkata' }],
  ['n', { name: 'newyork', zone: 'America/New_York' }],
]);
const nineToFive: ScheduleDef = { id: 'd', name: 'day', start: '09:00', end: '17:00', graceInMs: 0, graceOutMs: 0, breakMs: 0, weekdays: null };

function data(areaZones: ReadonlyMap<string, AreaZone>): CalendarData {
  return {
    timeZone: LONDON,
    areaZones,
    defaults: { schedule: nineToFive, weekend: [0, 6], holidays: [] },
    holidays: [],
    schedules: new Map(),
    assignments: [],
    leaves: [],
    weekends: [],
  };
}

describe('zoneOf', () => {
  test('no zoned area: ATTENDANCE_TIME_ZONE, whatever the areas', () => {
    expect(zoneOf({ id: 'a', areaIds: ['l'] }, '2026-03-09', zones, LONDON)).toBe(LONDON);
    expect(zoneOf({ id: 'a', areaIds: [] }, '2026-03-09', zones, LONDON)).toBe(LONDON);
    expect(zoneOf({ id: 'a', areaIds: ['m'] }, '2026-03-09', new Map(), LONDON)).toBe(LONDON);
    expect(zoneOf({ id: 'a', areaIds: ['m'] }, '2026-03-09', undefined, LONDON)).toBe(LONDON);
  });

  test('one zoned area: its zone, an unzoned area beside it changing nothing', () => {
    expect(zoneOf({ id: 'a', areaIds: ['m'] }, '2026-03-09', zones, LONDON)).toBe('Asia/Kolkata');
    expect(zoneOf({ id: 'a', areaIds: ['l', 'n'] }, '2026-03-09', zones, LONDON)).toBe('America/New_York');
  });

  test('two zoned areas that disagree: the first by area name (mumbai before newyork), whatever their order; both are told', () => {
    expect(zoneOf({ id: 'a', areaIds: ['n', 'm'] }, '2026-03-09', zones, LONDON)).toBe('Asia/Kolkata');
    expect(zoneOf({ id: 'a', areaIds: ['m', 'n'] }, '2026-03-09', zones, LONDON)).toBe('Asia/Kolkata');
    expect(zonesOfAreas(['n', 'm', 'l'], zones).sort()).toEqual(['America/New_York', 'Asia/Kolkata']);
  });

  test('a move: the old areas’ zone before its first date, the new ones’ from it on', () => {
    const moved = { id: 'a', areaIds: ['m'], moves: [{ until: '2026-03-10', areaIds: ['l'] }] };
    expect(zoneOf(moved, '2026-03-09', zones, LONDON)).toBe(LONDON);
    expect(zoneOf(moved, '2026-03-10', zones, LONDON)).toBe('Asia/Kolkata');
  });
});

describe('plans in the person’s zone', () => {
  test('a 09:00 shift is 09:00 where the person works; the plan says the zone', () => {
    const planner = new Planner(data(zones));
    const mumbai = planner.plan({ id: 'a', areaIds: ['m'] }, '2026-03-09');
    expect(mumbai.zone).toBe('Asia/Kolkata');
    expect(new Date(mumbai.schedule!.start).toISOString()).toBe('2026-03-09T03:30:00.000Z');
    const london = planner.plan({ id: 'b', areaIds: ['l'] }, '2026-03-09');
    expect(new Date(london.schedule!.start).toISOString()).toBe('2026-03-09T09:00:00.000Z');
    // New York on summer time from 8 March 2026, London not until the 29th.
    const ny = new Planner(data(zones)).plans({ id: 'c', areaIds: ['n'] }, '2026-03-06', '2026-03-09');
    expect(ny.filter((p) => p.schedule).map((p) => new Date(p.schedule!.start).toISOString())).toEqual([
      '2026-03-06T14:00:00.000Z',
      '2026-03-09T13:00:00.000Z',
    ]);
  });

  test('an instant’s date is the person’s: 23:30 in London on the 8th is the 9th in Mumbai; the bounds of a date are theirs', () => {
    const planner = new Planner(data(zones));
    const at = Date.parse('2026-03-08T23:30:00Z');
    expect(planner.datesOf({ id: 'a', areaIds: ['m'] })(at)).toBe('2026-03-09');
    expect(planner.datesOf({ id: 'b', areaIds: ['l'] })(at)).toBe('2026-03-08');
    expect(planner.datesOf({ id: 'c', areaIds: ['n'] })(at)).toBe('2026-03-08');
    expect(planner.datesOf({ id: 'a', areaIds: ['m'] }).bounds('2026-03-09').start).toBe(Date.parse('2026-03-08T18:30:00Z'));
    // Moved to Mumbai from the 9th: the 8th's bounds are London's, the 9th's Mumbai's.
    const moved = planner.datesOf({ id: 'd', areaIds: ['m'], moves: [{ until: '2026-03-09', areaIds: ['l'] }] });
    expect(moved.bounds('2026-03-08').start).toBe(Date.parse('2026-03-08T00:00:00Z'));
    expect(moved.bounds('2026-03-09').start).toBe(Date.parse('2026-03-08T18:30:00Z'));
  });

  test('without zoned areas, every plan is ATTENDANCE_TIME_ZONE’s', () => {
    const planner = new Planner(data(new Map()));
    expect(planner.zoned).toBe(false);
    const plan = planner.plan({ id: 'a', areaIds: ['m'] }, '2026-03-09');
    expect(plan.zone).toBe(LONDON);
    expect(new Date(plan.schedule!.start).toISOString()).toBe('2026-03-09T09:00:00.000Z');
  });
});
