/**
 * A night shift on the Today board through the real server: two people on a 22:00–06:00 shift
 * punch in on a Monday evening at a simulated terminal; after midnight Tuesday's board still
 * has them "in now" on the night shift (the roll call's count), one until she punches out, the
 * other (who never does) until the shift's window has closed.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
const MONDAY = '2026-03-02';
const TUESDAY = '2026-03-03';
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
let now = berlin('2026-02-27', '12:00');
let server: TestServer;
let terminal: SimulatedTerminal;
const pins: Record<string, string> = {};

interface BoardPerson {
  employee: string;
  status: string;
  schedule: string | null;
  first_in: string | null;
  in_now: boolean;
}

async function board(query = ''): Promise<{ date: string; counts: Record<string, number>; people: BoardPerson[] }> {
  const res = await server.admin.get(`/attendance/today/${query}`);
  expect(res.status).toBe(200);
  return res.body;
}

const person = (b: { people: BoardPerson[] }, employee: string) => b.people.find((p) => p.employee === employee)!;

async function punch(employee: string, date: string, time: string) {
  expect((await terminal.punch([{ pin: pins[employee]!, localTime: `${date} ${time}:00` }])).status).toBe(200);
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  for (const [employee, name] of [
    ['N-1', 'Nina Night'],
    ['N-2', 'Nick Night'],
  ] as const) {
    expect((await server.admin.post('/employees/', { id: employee, name })).status).toBe(201);
    const e = await server.admin.post('/enrollees/', { employee, areas: ['plant'] });
    expect(e.status).toBe(201);
    pins[employee] = e.body.device_pin;
  }
  terminal = new SimulatedTerminal({ url: server.url, sn: 'NIGHT01', timeZone: ZONE });
  await terminal.handshake();
  expect((await server.admin.post('/devices/NIGHT01/approve/', { areas: ['plant'] })).status).toBe(200);
  expect((await server.admin.post('/work-schedules/', { name: 'night', start: '22:00', end: '06:00', grace_in: '5m', grace_out: '5m' })).status).toBe(201);
  expect((await server.admin.post('/shift-assignments/', { schedule: 'night', area: 'plant', from: '2026-03-01' })).status).toBe(201);
  now = berlin(MONDAY, '22:10');
  await punch('N-1', MONDAY, '21:58');
  await punch('N-2', MONDAY, '22:07');
});
afterAll(async () => {
  await server.close();
});

test('before midnight: both in now on Monday’s board, one of them late', async () => {
  const b = await board();
  expect(b.date).toBe(MONDAY);
  expect(person(b, 'N-1')).toMatchObject({ status: 'present', in_now: true });
  expect(person(b, 'N-2')).toMatchObject({ status: 'late', in_now: true });
  expect(b.counts.in_now).toBe(2);
});

test('after midnight: Tuesday’s board still has them in now, on the night shift that began on Monday', async () => {
  now = berlin(TUESDAY, '02:00');
  const b = await board();
  expect(b.date).toBe(TUESDAY);
  expect(person(b, 'N-1')).toMatchObject({ status: 'present', schedule: 'night', in_now: true, first_in: new Date(berlin(MONDAY, '21:58')).toISOString() });
  expect(person(b, 'N-2')).toMatchObject({ status: 'late', in_now: true });
  expect(b.counts).toMatchObject({ in_now: 2, expected: 2 });
  // Monday's board is a past date's: nobody is in now there.
  expect((await board(`?date=${MONDAY}`)).counts.in_now).toBe(0);
});

test('an out punch closes the night; a missing one stops counting once the shift’s window has closed', async () => {
  now = berlin(TUESDAY, '06:03');
  await punch('N-1', TUESDAY, '06:02');
  let b = await board();
  // Nina's out belongs to Monday's night: she is off until tonight's shift.
  expect(person(b, 'N-1')).toMatchObject({ status: 'scheduled', in_now: false });
  expect(person(b, 'N-2')).toMatchObject({ in_now: true });
  now = berlin(TUESDAY, '09:59');
  expect(person(await board(), 'N-2').in_now).toBe(true);
  // 06:00 plus ATTENDANCE_SHIFT_SLACK (4 h): Nick's day is an open one now, and Tuesday's plan applies.
  now = berlin(TUESDAY, '10:00');
  b = await board();
  expect(person(b, 'N-2')).toMatchObject({ status: 'scheduled', in_now: false });
  expect(b.counts.in_now).toBe(0);
});
