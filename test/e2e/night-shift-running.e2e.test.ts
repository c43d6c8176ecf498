/**
 * The daily report of a date after midnight, while last night's shift still runs, through the
 * real server: a 24/7 plant's night shift (22:00–06:00, every day) in Berlin. Paula and Pavel
 * work Friday night (Pavel has Saturday night off). At 02:00 on Saturday the daily report of
 * Saturday reports Saturday's own shifts; Friday's has the night.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseCsv } from '../../src/platform/csv';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
/**
 * A Friday and the Saturday after, to come: the console's punch stream checks a session's expiry
 * against the real clock, so the test's clock runs ahead of it, never behind.
 */
const FRIDAY = '2031-11-28';
const SATURDAY = '2031-11-29';
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
let now = berlin('2031-11-20', '12:00');
let server: TestServer;
let terminal: SimulatedTerminal;
const pins: Record<string, string> = {};

const PEOPLE = [
  ['P-1', 'Paula One', 'plant'],
  ['P-2', 'Peter Two', 'plant'],
  ['P-3', 'Pia Three', 'plant'],
  ['N-4', 'Nora Four', 'plant'],
  ['P-6', 'Pavel Six', 'plant'],
  ['D-5', 'Dana Day', 'office'],
] as const;

async function created(path: string, body: unknown) {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status }).toEqual({ path, status: 201 });
  return res.body;
}

async function punch(employee: string, date: string, time: string) {
  now = Math.max(now, berlin(date, time) + 30_000);
  expect((await terminal.punch([{ pin: pins[employee]!, localTime: `${date} ${time}:00` }])).status).toBe(200);
}

/** A CSV report's rows, as objects by header key, by employee. */
async function daily(date: string): Promise<Record<string, Record<string, string>>> {
  const res = await server.admin.get<string>(`/reports/daily.csv?date=${date}`);
  expect(res.status).toBe(200);
  const [header, ...rows] = parseCsv(res.body).map((r) => ('fields' in r ? r.fields : []));
  return Object.fromEntries(rows.map((fields) => [fields[0]!, Object.fromEntries(header!.map((h, i) => [h, fields[i] ?? '']))]));
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  for (const [employee, name, area] of PEOPLE) {
    await created('/employees/', { id: employee, name });
    pins[employee] = (await created('/enrollees/', { employee, areas: [area] })).device_pin;
  }
  terminal = new SimulatedTerminal({ url: server.url, sn: 'PLANT01', timeZone: ZONE });
  await terminal.handshake();
  expect((await server.admin.post('/devices/PLANT01/approve/', { areas: ['plant', 'office'] })).status).toBe(200);
  const everyDay = [0, 1, 2, 3, 4, 5, 6];
  await created('/work-schedules/', { name: 'Night', start: '22:00', end: '06:00', grace_in: '5m', grace_out: '5m', break: '30m', weekdays: everyDay });
  await created('/work-schedules/', {
    name: 'Night but Saturday',
    start: '22:00',
    end: '06:00',
    grace_in: '5m',
    grace_out: '5m',
    break: '30m',
    weekdays: [0, 1, 2, 3, 4, 5],
  });
  await created('/work-schedules/', { name: 'Day', start: '08:00', end: '16:30', grace_in: '5m', grace_out: '5m', break: '30m', weekdays: everyDay });
  await created('/shift-assignments/', { schedule: 'Night', area: 'plant', from: '2031-11-01' });
  await created('/shift-assignments/', { schedule: 'Day', area: 'office', from: '2031-11-01' });
  const pavel = (await server.admin.get('/enrollees/?search=P-6')).body.results[0];
  await created('/shift-assignments/', { schedule: 'Night but Saturday', enrollee: pavel.id, from: '2031-11-01' });
  await punch('D-5', FRIDAY, '07:58');
  await punch('D-5', FRIDAY, '16:35');
  await punch('N-4', FRIDAY, '21:50');
  await punch('P-1', FRIDAY, '21:55');
  await punch('P-6', FRIDAY, '21:58');
  await punch('P-2', FRIDAY, '22:10');
});
afterAll(async () => {
  await server?.close();
});

describe('a night shift running after midnight', () => {
  test('the daily report of Saturday reports Saturday’s own shifts; Friday’s has the night', async () => {
    await punch('N-4', SATURDAY, '01:00');
    now = berlin(SATURDAY, '02:00');
    const saturday = await daily(SATURDAY);
    // Paula is on Friday's night; on Saturday she is due tonight. Pavel has Saturday night off.
    expect(saturday['P-1']).toMatchObject({ status: 'not_due_yet', schedule: 'Night', first_in: '', punches: '0', expected_hours: '7.50' });
    expect(saturday['P-6']).toMatchObject({ status: 'non_working_day', schedule: '', first_in: '', punches: '0', expected_hours: '0.00' });
    expect(saturday['P-3']).toMatchObject({ status: 'not_due_yet', expected_hours: '7.50' });
    const friday = await daily(FRIDAY);
    expect(friday['P-1']).toMatchObject({ status: 'in_now', first_in: `${FRIDAY} 21:55:00`, punches: '1', expected_hours: '7.50' });
    expect(friday['P-6']).toMatchObject({ status: 'in_now', first_in: `${FRIDAY} 21:58:00`, expected_hours: '7.50' });
    // And the report says so.
    const preview = await server.admin.get<{ notes: string[] }>(`/reports/daily/preview/?date=${SATURDAY}`);
    expect(preview.body.notes).toContain(
      "Each row is the person's shift of this date: a night shift begun the date before is on that date's report, also while it is still running.",
    );
  });
});
