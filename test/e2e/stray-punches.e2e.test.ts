/**
 * A punch left without its pair, through the real server (a payroll tester's findings): a
 * simulated terminal uploads over ADMS, the day is read back from attendance-days/, the Today
 * board, the export, the reports and the event log. Day shift 09:00–17:00, Monday to Friday,
 * 5 min grace, 30 min unpaid break, overtime from 30 min (the default).
 * - A stray punch after leaving (08:00, 17:00, 18:00) is not an hour's overtime: only the pairs
 *   count on an incomplete day, so nothing was worked after 17:00 (8:30 worked, the break
 *   deducted, no overtime), and the day's last out is 17:00.
 * - An in-out-in day (09:00, 12:00, 12:10) went out last at 12:00: that is its `last_out`
 *   everywhere, never the 12:10 in punch.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseCsv } from '../../src/platform/csv';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
/** Berlin is on +01:00 in November. */
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
const iso = (date: string, time: string) => new Date(berlin(date, time)).toISOString();
let now = berlin('2026-11-20', '12:00');
let server: TestServer;
let terminal: SimulatedTerminal;
let pin = '';

async function punch(date: string, ...times: string[]) {
  const res = await terminal.punch(times.map((t) => ({ pin, localTime: `${date} ${t}:00` })));
  expect(res).toEqual({ status: 200, body: `OK:${times.length}` });
}

async function day(date: string) {
  const res = await server.admin.get(`/attendance-days/?employee=E-01&from=${date}&to=${date}`);
  expect(res.status).toBe(200);
  return res.body.results[0];
}

/** A CSV download's rows, as objects by header key. */
async function csv(path: string): Promise<Record<string, string>[]> {
  const res = await server.admin.get<string>(path);
  expect(res.status).toBe(200);
  const [header, ...rows] = parseCsv(res.body).map((r) => ('fields' in r ? r.fields : []));
  return rows.map((fields) => Object.fromEntries(header!.map((h, i) => [h, fields[i] ?? ''])));
}

/** The last `attendance_day_changed` of E-01's date, as a webhook or a stream would get it. */
async function lastAnnounced(date: string) {
  const res = await server.admin.get('/events/?type=attendance_day_changed&limit=1000');
  expect(res.status).toBe(200);
  const days = (res.body.results as { data: { day: { employee: string; date: string } } }[]).map((e) => e.data.day);
  return days.filter((d) => d.employee === 'E-01' && d.date === date).at(-1);
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  expect((await server.admin.post('/employees/', { id: 'E-01', name: 'Eva Payroll' })).status).toBe(201);
  const enrollee = await server.admin.post('/enrollees/', { employee: 'E-01', areas: ['office'] });
  expect(enrollee.status).toBe(201);
  pin = enrollee.body.device_pin;
  terminal = new SimulatedTerminal({ url: server.url, sn: 'PAIRS001', timeZone: ZONE });
  await terminal.handshake();
  expect((await server.admin.post('/devices/PAIRS001/approve/', { areas: ['office'] })).status).toBe(200);
  const schedule = { name: 'Day', start: '09:00', end: '17:00', grace_in: '5m', grace_out: '5m', break: '30m', weekdays: [1, 2, 3, 4, 5] };
  expect((await server.admin.post('/work-schedules/', schedule)).status).toBe(201);
  expect((await server.admin.post('/shift-assignments/', { schedule: 'Day', area: 'office', from: '2026-11-01' })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

describe('a stray punch after leaving', () => {
  test('is not overtime: only the pairs count, the break is deducted, the last out is the pair’s', async () => {
    now = berlin('2026-11-26', '07:00');
    await punch('2026-11-23', '08:30', '17:00', '17:45');
    await punch('2026-11-24', '08:00', '17:00');
    await punch('2026-11-25', '08:00', '17:00', '18:00');
    // The same 08:00–17:00 closed: 9 hours there, the break deducted, early arrival is no overtime.
    expect(await day('2026-11-24')).toMatchObject({ status: 'present', worked_seconds: 8.5 * 3600, overtime_seconds: 0, flags: [] });
    expect(await day('2026-11-25')).toMatchObject({
      status: 'incomplete',
      first_in: iso('2026-11-25', '08:00'),
      last_out: iso('2026-11-25', '17:00'),
      worked_seconds: 8.5 * 3600,
      expected_seconds: 7.5 * 3600,
      overtime_seconds: 0,
      punch_count: 3,
      flags: [],
    });
    expect(await day('2026-11-23')).toMatchObject({
      status: 'incomplete',
      last_out: iso('2026-11-23', '17:00'),
      worked_seconds: 8 * 3600,
      overtime_seconds: 0,
      flags: [],
    });
    const exceptions = await csv('/reports/exceptions.csv?from=2026-11-23&to=2026-11-25');
    expect(exceptions.map((r) => `${r.date} ${r.kind} ${r.hours}`)).toEqual(['2026-11-23 missing_punch ', '2026-11-25 missing_punch ']);
    const exported = await csv('/attendance-days/export.csv?from=2026-11-25&to=2026-11-25');
    expect(exported[0]).toMatchObject({ last_out: '2026-11-25 17:00:00', worked: '8:30', overtime: '0:00', flags: '' });
    expect(await lastAnnounced('2026-11-25')).toMatchObject({ last_out: iso('2026-11-25', '17:00'), worked_seconds: 8.5 * 3600, overtime_seconds: 0 });
  });
});

describe('an in-out-in day', () => {
  test('its last out is the 12:00 clock-out, not the 12:10 return: in the days, the export, the reports and the events; the board shows it in now', async () => {
    now = berlin('2026-11-26', '12:20');
    await punch('2026-11-26', '09:00', '12:00', '12:10');
    expect(await day('2026-11-26')).toMatchObject({
      status: 'incomplete',
      first_in: iso('2026-11-26', '09:00'),
      last_out: iso('2026-11-26', '12:00'),
      worked_seconds: 3 * 3600,
    });
    const board = await server.admin.get('/attendance/today/');
    expect(board.body.people.find((p: { employee: string }) => p.employee === 'E-01')).toMatchObject({ in_now: true, last_out: null });
    const daily = (await csv('/reports/daily.csv?date=2026-11-26')).find((r) => r.employee === 'E-01');
    expect(daily).toMatchObject({ status: 'in_now', first_in: '2026-11-26 09:00:00', last_out: '2026-11-26 12:00:00' });
    const timesheet = (await csv('/reports/timesheet.csv?from=2026-11-26&to=2026-11-26&employee=E-01'))[0];
    expect(timesheet).toMatchObject({ status: 'in_now', last_out: '2026-11-26 12:00:00' });
    expect((await csv('/attendance-days/export.csv?from=2026-11-26&to=2026-11-26'))[0]).toMatchObject({ last_out: '2026-11-26 12:00:00' });
    expect(await lastAnnounced('2026-11-26')).toMatchObject({ last_out: iso('2026-11-26', '12:00') });
  });
});
