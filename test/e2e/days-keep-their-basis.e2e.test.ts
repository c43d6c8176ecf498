/**
 * Stored days keep what they were judged on, through the real server (punches uploaded by a
 * simulated terminal over ADMS, everything else over HTTP), Europe/Berlin, November 2026:
 *
 * - a person moved to another area keeps their past days: a late upload, a recompute, a holiday
 *   and a schedule change of a date before the move judge it under the areas of that date, and a
 *   punch counts on one day only;
 * - a move takes effect on the next date: the hours worked on the day of the move, and a night
 *   under way when a nightly import moves the worker, stay judged under the areas they started
 *   with; two moves of one date keep the database's order, whatever the instances' clocks say;
 *   a deleted person's days are not rewritten by a change of an area they left;
 * - the Today board and the reports' "in now" plan with the areas of each date: the night of a
 *   worker moved after midnight is carried on their old area's night shift;
 * - days stored before their punches were (migration 0023) get them on the next recompute
 *   without being announced again; a change a subscriber sees is announced as ever;
 * - a timesheet lists the punches its row was computed from: a locked night keeps the punch voided
 *   after the lock, and the punches uploaded after the lock are not in it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseCsv } from '../../src/platform/csv';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
let now = Date.parse('2026-10-26T08:00:00Z');
let server: TestServer;
let site: SimulatedTerminal;
const people: Record<string, { id: string; pin: string }> = {};

/** A Berlin wall time in November (or late October): CET, +01:00. */
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);

async function created(path: string, body: unknown) {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ path, status: 201, body: null });
  return res.body;
}

async function punch(employee: string, ...localTimes: string[]) {
  const res = await site.punch(localTimes.map((localTime) => ({ pin: people[employee]!.pin, localTime: `${localTime}:00` })));
  expect(res).toEqual({ status: 200, body: `OK:${localTimes.length}` });
}

function fieldsOf(text: string): string[][] {
  return parseCsv(text).map((r) => ('fields' in r ? r.fields : []));
}

/** The export's rows of one employee: date, schedule, first in, last out, worked, overtime, punches. */
async function exported(employee: string, from: string, to: string) {
  const res = await server.admin.get(`/attendance-days/export.csv?employee=${employee}&from=${from}&to=${to}`);
  expect(res.status).toBe(200);
  const [header, ...rows] = fieldsOf(res.body as string);
  const col = (name: string) => header!.indexOf(name);
  return rows.map((r) => [r[col('date')], r[col('schedule')], r[col('first_in')], r[col('last_out')], r[col('worked')], r[col('overtime')], r[col('punches')]]);
}

/** The timesheet's CSV rows of one employee, as cells by column name. */
async function timesheet(employee: string, from: string, to: string) {
  const res = await server.admin.get(`/reports/timesheet.csv?employee=${employee}&from=${from}&to=${to}`);
  expect(res.status).toBe(200);
  const [header, ...rows] = fieldsOf(res.body as string);
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]])));
}

const DAY_ROWS = [
  ['2026-11-09', 'Day', '2026-11-09 09:00:00', '2026-11-09 17:00:00', '7:30', '0:00', '2'],
  ['2026-11-10', 'Day', '2026-11-10 09:00:00', '2026-11-10 17:00:00', '7:30', '0:00', '4'],
  ['2026-11-11', 'Day', '2026-11-11 09:00:00', '2026-11-11 17:00:00', '7:30', '0:00', '2'],
];

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  for (const [employee, area] of [
    ['E-07', 'office'],
    ['E-02', 'plant'],
    ['E-09', 'office'],
    ['E-03', 'plant'],
    ['E-05', 'office'],
    ['E-08', 'office'],
    ['E-04', 'plant'],
  ] as const) {
    await created('/employees/', { id: employee, name: `Person ${employee}` });
    const e = await created('/enrollees/', { employee, areas: [area] });
    people[employee] = { id: e.id, pin: e.device_pin };
  }
  site = new SimulatedTerminal({ url: server.url, sn: 'SITE01', timeZone: ZONE, now: () => now });
  await site.handshake();
  expect((await server.admin.post('/devices/SITE01/approve/', { areas: ['office', 'plant'] })).status).toBe(200);
  await created('/work-schedules/', { name: 'Day', start: '09:00', end: '17:00', grace_in: '5m', grace_out: '5m', break: '30m', weekdays: [1, 2, 3, 4, 5] });
  await created('/work-schedules/', {
    name: 'Night',
    start: '22:00',
    end: '06:00',
    grace_in: '5m',
    grace_out: '5m',
    break: '30m',
    weekdays: [1, 2, 3, 4, 5, 6],
  });
  await created('/shift-assignments/', { schedule: 'Day', area: 'office', from: '2026-10-01' });
  await created('/shift-assignments/', { schedule: 'Night', area: 'plant', from: '2026-10-01' });
});
afterAll(async () => {
  await server.close();
});

describe('a person moved to another area keeps their past days', () => {
  test('days worked in the office, then a move to the plant', async () => {
    now = berlin('2026-11-11', '18:00');
    for (const date of ['2026-11-09', '2026-11-10', '2026-11-11']) await punch('E-07', `${date} 09:00`, `${date} 17:00`);
    // In the evening: the plant's night shift from the next date on.
    now = berlin('2026-11-11', '18:30');
    const moved = await server.admin.patch(`/enrollees/${people['E-07']!.id}/`, { areas: ['plant'] });
    expect(moved.status).toBe(200);
    expect((await exported('E-07', '2026-11-09', '2026-11-12')).map((r) => r[4])).toEqual(['7:30', '7:30', '7:30']);
  });

  test('a lunch break uploaded late for a date before the move is judged on that date’s shift, and every punch counts once', async () => {
    now = berlin('2026-11-12', '09:00');
    await punch('E-07', '2026-11-10 12:00', '2026-11-10 12:30');
    expect(await exported('E-07', '2026-11-09', '2026-11-12')).toEqual(DAY_ROWS);
    const summary = await server.admin.get('/attendance-summary/?employee=E-07&from=2026-11-01&to=2026-11-30');
    expect(summary.body.results[0]).toMatchObject({ worked_seconds: 3 * 27_000, overtime_seconds: 0 });
  });

  test('the calendar answers the areas of each date: the office’s day before the move, the plant’s night from it on', async () => {
    const plan = await server.admin.get('/calendar/?employee=E-07&from=2026-11-11&to=2026-11-12');
    expect(plan.body.results.map((d: { schedule: { name: string } | null }) => d.schedule?.name)).toEqual(['Day', 'Night']);
  });

  test('a recompute of the weeks before the move changes nothing and adds no day', async () => {
    const res = await server.admin.post('/attendance-days/recompute/', { enrollee: people['E-07']!.id, from: '2026-10-26', to: '2026-11-11' });
    expect(res.status).toBe(200);
    expect(await exported('E-07', '2026-10-01', '2026-11-12')).toEqual(DAY_ROWS);
  });

  test('a holiday and a schedule change of a date before the move judge it on the office’s shift', async () => {
    await created('/holidays/', { date: '2026-11-09', name: 'Founders day', areas: ['office'] });
    await created('/holidays/', { date: '2026-11-11', name: 'Plant day', areas: ['plant'] });
    const rows = await exported('E-07', '2026-11-09', '2026-11-11');
    // The office's holiday: no schedule, so no break taken off (all 8:00 worked is overtime); the
    // plant's holiday is not the 11th's, which stays a workday on the office's Day shift.
    expect(rows.map((r) => [r[0], r[1], r[4], r[5]])).toEqual([
      ['2026-11-09', '', '8:00', '8:00'],
      ['2026-11-10', 'Day', '7:30', '0:00'],
      ['2026-11-11', 'Day', '7:30', '0:00'],
    ]);
    const night = await server.admin.patch('/work-schedules/Night/', { end: '07:00' });
    expect(night.status).toBe(200);
    expect((await exported('E-07', '2026-11-10', '2026-11-11')).map((r) => [r[1], r[4]])).toEqual([
      ['Day', '7:30'],
      ['Day', '7:30'],
    ]);
  });

  test('from the move on, the plant’s night shift', async () => {
    now = berlin('2026-11-13', '08:00');
    await punch('E-07', '2026-11-12 22:00', '2026-11-13 07:00');
    const [row] = await exported('E-07', '2026-11-12', '2026-11-12');
    expect(row).toEqual(['2026-11-12', 'Night', '2026-11-12 22:00:00', '2026-11-13 07:00:00', '8:30', '0:00', '2']);
  });

  test('the timesheet lists the punches of each row, no more', async () => {
    const rows = await timesheet('E-07', '2026-11-09', '2026-11-12');
    expect(rows.map((r) => r.punches)).toEqual(['09:00 17:00', '09:00 12:00 12:30 17:00', '09:00 17:00', '22:00 07:00+1']);
  });
});

/** The plan's schedule of each date from..to (null: none). */
async function schedules(employee: string, from: string, to: string) {
  const plan = await server.admin.get(`/calendar/?employee=${employee}&from=${from}&to=${to}`);
  expect(plan.status).toBe(200);
  return plan.body.results.map((d: { schedule: { name: string } | null }) => d.schedule?.name ?? null);
}

/** The stored days of one enrollee: date, schedule, worked and overtime seconds. */
async function days(enrollee: string, from: string, to: string) {
  const res = await server.admin.get(`/attendance-days/?enrollee=${enrollee}&from=${from}&to=${to}`);
  expect(res.status).toBe(200);
  return (res.body.results as { date: string; schedule: string | null; worked_seconds: number; overtime_seconds: number }[])
    .map((d) => [d.date, d.schedule, d.worked_seconds, d.overtime_seconds])
    .sort();
}

describe('a move takes effect on the next date', () => {
  test('hours worked on the day of the move stay judged on the office’s day shift', async () => {
    now = berlin('2026-11-16', '12:05');
    await punch('E-09', '2026-11-16 09:00', '2026-11-16 12:00');
    now = berlin('2026-11-16', '15:00');
    expect((await server.admin.patch(`/enrollees/${people['E-09']!.id}/`, { areas: ['plant'] })).status).toBe(200);
    const events = await server.admin.get('/events/?type=enrollee_updated&limit=1000');
    const move = (events.body.results as { data: { enrollee: { id: string }; changes: { areas?: unknown } } }[]).findLast(
      (e) => e.data.enrollee.id === people['E-09']!.id,
    );
    expect(move?.data.changes.areas).toMatchObject({ effective_from: '2026-11-17' });
    expect(await schedules('E-09', '2026-11-16', '2026-11-17')).toEqual(['Day', 'Night']);
    const [row] = await exported('E-09', '2026-11-16', '2026-11-16');
    expect(row).toEqual(['2026-11-16', 'Day', '2026-11-16 09:00:00', '2026-11-16 12:00:00', '3:00', '0:00', '2']);
  });

  test('a night worker moved at 02:00 by the nightly import works that night and the next on the plant’s shift', async () => {
    now = berlin('2026-11-17', '01:00');
    await punch('E-03', '2026-11-16 22:00');
    now = berlin('2026-11-17', '02:00');
    expect((await server.admin.patch(`/enrollees/${people['E-03']!.id}/`, { areas: ['office'] })).status).toBe(200);
    now = berlin('2026-11-18', '07:00');
    await punch('E-03', '2026-11-17 06:00', '2026-11-17 22:00', '2026-11-18 06:00');
    expect(await schedules('E-03', '2026-11-16', '2026-11-18')).toEqual(['Night', 'Night', 'Day']);
    expect(await days(people['E-03']!.id, '2026-11-16', '2026-11-17')).toEqual([
      ['2026-11-16', 'Night', 27_000, 0],
      ['2026-11-17', 'Night', 27_000, 0],
    ]);
  });

  test('two moves of one date keep the order they were stored in, whatever the clocks of the instances that made them', async () => {
    now = berlin('2026-11-19', '10:00');
    expect((await server.admin.patch(`/enrollees/${people['E-05']!.id}/`, { areas: ['plant'] })).status).toBe(200);
    // An instance whose clock is an hour behind moves them again, to the warehouse.
    now = berlin('2026-11-19', '09:00');
    expect((await server.admin.patch(`/enrollees/${people['E-05']!.id}/`, { areas: ['warehouse'] })).status).toBe(200);
    expect(await schedules('E-05', '2026-11-19', '2026-11-19')).toEqual(['Day']);
  });

  test('a holiday of an area a deleted person left does not rewrite their days', async () => {
    now = berlin('2026-11-23', '18:00');
    await punch('E-08', '2026-11-23 09:00', '2026-11-23 17:00');
    expect((await server.admin.patch(`/enrollees/${people['E-08']!.id}/`, { areas: ['plant'] })).status).toBe(200);
    expect((await server.admin.delete(`/enrollees/${people['E-08']!.id}/`)).status).toBe(204);
    const before = await days(people['E-08']!.id, '2026-11-23', '2026-11-23');
    expect(before).toEqual([['2026-11-23', 'Day', 27_000, 0]]);
    await created('/holidays/', { date: '2026-11-23', name: 'Office day', areas: ['office'] });
    expect(await days(people['E-08']!.id, '2026-11-23', '2026-11-23')).toEqual(before);
  });
});

describe('the Today board plans with the areas of each date', () => {
  test('a night worker moved to the office after midnight is still in from the plant’s night, on the board and in the reports', async () => {
    now = berlin('2026-11-24', '22:10');
    await punch('E-04', '2026-11-24 21:58');
    now = berlin('2026-11-25', '02:00');
    expect((await server.admin.patch(`/enrollees/${people['E-04']!.id}/`, { areas: ['office'] })).status).toBe(200);
    now = berlin('2026-11-25', '03:00');
    const board = await server.admin.get('/attendance/today/');
    expect(board.status).toBe(200);
    const entry = (board.body.people as { employee: string; areas: string[] }[]).find((p) => p.employee === 'E-04');
    expect(entry).toMatchObject({ areas: ['office'], in_now: true, in_now_date: '2026-11-24', schedule: 'Night' });
    const daily = await server.admin.get('/reports/daily.csv?date=2026-11-24');
    const [header, ...rows] = fieldsOf(daily.body as string);
    const row = rows.find((r) => r[header!.indexOf('employee')] === 'E-04');
    expect(row?.[header!.indexOf('status')]).toBe('in_now');
  });
});

describe('a timesheet row lists the punches it was computed from', () => {
  test('a locked night keeps its punches; those voided or uploaded after the lock are not its', async () => {
    now = berlin('2026-11-01', '08:00');
    await punch('E-02', '2026-10-31 21:55', '2026-11-01 06:03');
    const period = await created('/pay-periods/', { from: '2026-10-01', to: '2026-10-31' });
    expect((await server.admin.post(`/pay-periods/${period.id}/lock/`)).status).toBe(200);
    const listed = await server.admin.get('/punches/?employee=E-02');
    const morning = listed.body.results.find((p: { punched_at: string }) => p.punched_at === '2026-11-01T05:03:00.000Z');
    expect((await server.admin.post(`/punches/${morning.id}/void/`, { reason: 'wrong person' })).status).toBe(200);
    now = berlin('2026-11-01', '09:00');
    await punch('E-02', '2026-11-01 06:10', '2026-10-31 21:40');
    const [row] = await timesheet('E-02', '2026-10-31', '2026-10-31');
    expect(row).toMatchObject({
      date: '2026-10-31',
      first_in: '2026-10-31 21:55:00',
      last_out: '2026-11-01 06:03:00',
      worked_hours: '7.63',
      punches: '21:55 06:03+1',
    });
  });
});

/** The days announced (`attendance_day_changed`) after the event sequence `after`, and the newest sequence. */
async function announcedAfter(after: number): Promise<{ days: string[]; last: number }> {
  const res = await server.admin.get(`/events/?type=attendance_day_changed&after=${after}&limit=1000`);
  expect(res.status).toBe(200);
  return {
    days: (res.body.results as { data: { day: { employee: string; date: string } } }[]).map((e) => `${e.data.day.employee} ${e.data.day.date}`),
    last: res.body.last_sequence,
  };
}

describe('days stored before their punches were (migration 0023)', () => {
  test('a recompute stores their punches without announcing them; a change a subscriber sees is announced', async () => {
    const id = people['E-07']!.id;
    const unlisted = async () =>
      Number(
        (
          await server.fpa.db.client.execute({
            // November's: October is locked (its absences written by the lock), out of the recompute's reach.
            sql: "select count(*) as n from fpa_attendance_days where enrollee_id = ? and punches is null and date >= '2026-11-01'",
            args: [id],
          })
        ).rows[0]!.n,
      );
    await server.fpa.db.client.execute({ sql: 'update fpa_attendance_days set punches = null where enrollee_id = ?', args: [id] });
    expect(await unlisted()).toBe(4);
    const before = await exported('E-07', '2026-11-09', '2026-11-12');
    const { last } = await announcedAfter(0);
    const res = await server.admin.post('/attendance-days/recompute/', { enrollee: id, from: '2026-11-01', to: '2026-11-30' });
    expect(res.status).toBe(200);
    expect(await unlisted()).toBe(0);
    expect(await exported('E-07', '2026-11-09', '2026-11-12')).toEqual(before);
    const quiet = await announcedAfter(last);
    expect(quiet.days).toEqual([]);
    now = berlin('2026-11-13', '09:00');
    await punch('E-07', '2026-11-12 21:55');
    expect((await exported('E-07', '2026-11-12', '2026-11-12'))[0]?.[2]).toBe('2026-11-12 21:55:00');
    expect((await announcedAfter(quiet.last)).days).toEqual(['E-07 2026-11-12']);
  });
});
