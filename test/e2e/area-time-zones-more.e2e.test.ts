/**
 * Per-area time zones where a first version went wrong (a reviewer's finds): the reports' "today"
 * of a person in a zoned area (still in, not a missing punch), an area renamed that changes which
 * zone wins for people in two, the absences job and an enrolment in a zone ahead, and a zone set
 * after a lock.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseCsv } from '../../src/platform/csv';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { peopleIn, zonedTerminals } from '../support/zoned-company';

const LONDON = 'Europe/London';
const NEW_YORK = 'America/New_York';
let now = Date.parse('2026-03-01T12:00:00Z');
let server: TestServer;
const terminals: Record<string, SimulatedTerminal> = {};
const people: Record<string, { id: string; pin: string }> = {};

async function created(path: string, body: unknown) {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ path, status: 201, body: null });
  return res.body;
}
async function punch(sn: string, employee: string, localTime: string, at: string) {
  now = Math.max(now, Date.parse(at) + 30_000);
  await terminals[sn]!.handshake();
  expect((await terminals[sn]!.punch([{ pin: people[employee]!.pin, localTime }])).status).toBe(200);
}
async function csv(path: string): Promise<Record<string, string>[]> {
  const res = await server.admin.get<string>(path);
  expect(res.status).toBe(200);
  const [header, ...rows] = parseCsv(res.body).map((r) => ('fields' in r ? r.fields : []));
  return rows.map((fields) => Object.fromEntries(header!.map((h, i) => [h, fields[i] ?? ''])));
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: LONDON }, { clock: { now: () => now } });
  await created('/areas/', { name: 'london' });
  await created('/areas/', { name: 'newyork', time_zone: NEW_YORK });
  Object.assign(
    terminals,
    await zonedTerminals(
      server,
      [
        ['LON1', LONDON, 'london'],
        ['NYC1', NEW_YORK, 'newyork'],
      ],
      () => now,
    ),
  );
  Object.assign(
    people,
    await peopleIn(server, [
      ['L-1', 'london'],
      ['N-1', 'newyork'],
    ]),
  );
  await created('/work-schedules/', { name: 'Day', start: '09:00', end: '17:00', grace_in: '0s', grace_out: '0s', weekdays: [1, 2, 3, 4, 5] });
  for (const area of ['london', 'newyork']) await created('/shift-assignments/', { schedule: 'Day', area, from: '2026-03-01' });
});
afterAll(async () => {
  await server?.close();
});

describe('reports: "today" of a person in a zoned area', () => {
  test('a New York person in at 09:00 with no out yet at 21:30 New York (02:30 London next day) is in_now on the board AND on the daily report / no missing_punch exception', async () => {
    await punch('NYC1', 'N-1', '2026-03-02 09:00:00', '2026-03-02T14:00:00Z');
    now = Date.parse('2026-03-03T02:30:00Z'); // 21:30 EST on Monday 2 March, still New York's today
    const board = await server.admin.get<{ people: { employee: string; date?: string; status: string; in_now?: boolean }[] }>('/attendance/today/');
    const row = board.body.people.find((p) => p.employee === 'N-1');
    expect(row).toMatchObject({ date: '2026-03-02', in_now: true });
    const daily = await csv('/reports/daily.csv?date=2026-03-02');
    // README: "A day of today with an in and no out yet has status in_now … in the daily report … as on the board"
    const exceptions = await csv('/reports/exceptions.csv?from=2026-03-02&to=2026-03-02&kind=missing_punch');
    // The files say the times are each person's zone's, not London's alone.
    const preview = await server.admin.get<{ time_zone: string; times_in: string }>('/reports/daily/preview/?date=2026-03-02');
    expect(preview.body).toMatchObject({ time_zone: LONDON, times_in: "each person's zone (their area's, else Europe/London)" });
    expect({ daily: daily.find((r) => r.employee === 'N-1')?.status, missing_punch: exceptions.filter((r) => r.employee === 'N-1').length }).toEqual({
      daily: 'in_now',
      missing_punch: 0,
    });
  });
});

interface Day {
  date: string;
  status: string;
  first_in: string | null;
  last_out: string | null;
  late_seconds: number;
  punch_count?: number;
}
async function day(employee: string, date: string): Promise<Day | undefined> {
  const res = await server.admin.get<{ results: Day[] }>(`/attendance-days/?employee=${employee}&from=${date}&to=${date}`);
  expect(res.status).toBe(200);
  return res.body.results[0];
}

describe('an area’s zone set after a pay period was locked', () => {
  test('a punch counted in the locked period’s last day is not counted a second time on the first open date', async () => {
    await created('/areas/', { name: 'branch' });
    await created('/devices/', { serial_number: 'BR1', time_zone: LONDON, areas: ['branch'] });
    terminals.BR1 = new SimulatedTerminal({ url: server.url, sn: 'BR1', timeZone: LONDON, now: () => now });
    await terminals.BR1.handshake();
    await created('/employees/', { id: 'B-1', name: 'Person B-1' });
    const e = await created('/enrollees/', { employee: 'B-1', areas: ['branch'] });
    people['B-1'] = { id: e.id, pin: e.device_pin };
    await created('/shift-assignments/', { schedule: 'Day', area: 'branch', from: '2026-03-01' });
    await punch('BR1', 'B-1', '2026-03-24 09:00:00', '2026-03-24T09:00:00Z');
    await punch('BR1', 'B-1', '2026-03-24 20:00:00', '2026-03-24T20:00:00Z'); // 01:30 IST on the 25th
    expect(await day('B-1', '2026-03-24')).toMatchObject({ first_in: '2026-03-24T09:00:00.000Z', last_out: '2026-03-24T20:00:00.000Z' });
    now = Date.parse('2026-03-25T12:00:00Z');
    const period = await created('/pay-periods/', { from: '2026-03-20', to: '2026-03-24' });
    expect((await server.admin.post(`/pay-periods/${period.id}/lock/`, {})).status).toBe(200);
    expect((await server.admin.patch('/areas/branch/', { time_zone: 'Asia/Kolkata' })).status).toBe(200);
    // The locked 24th keeps the 20:00Z punch as its last out …
    expect(await day('B-1', '2026-03-24')).toMatchObject({ last_out: '2026-03-24T20:00:00.000Z' });
    // … so the same punch must not also open a day on the 25th (counted twice: once in the locked payroll, once after).
    expect(await day('B-1', '2026-03-25')).toBeUndefined();
  });
});

describe('renaming an area changes which zone wins for people in two zoned areas', () => {
  test('their stored days follow the zone the calendar now uses', async () => {
    // After the period locked above (to the 24th): the days a zone change recomputes.
    now = Date.parse('2026-03-26T12:00:00Z');
    await created('/areas/', { name: 'a-zone', time_zone: 'Asia/Kolkata' });
    await created('/areas/', { name: 'b-zone', time_zone: NEW_YORK });
    await created('/employees/', { id: 'R-1', name: 'Person R-1' });
    const e = await created('/enrollees/', { employee: 'R-1', areas: ['a-zone', 'b-zone'] });
    await created('/shift-assignments/', { schedule: 'Day', enrollee: e.id, from: '2026-03-01' });
    const manual = await server.admin.post('/punches/manual/', { enrollee: e.id, at: '2026-03-26T03:35:00Z', reason: 'test' });
    expect(manual.status).toBe(201);
    // Judged in Kolkata (a-zone first by name): 09:05 IST, 5 minutes late on the 26th.
    expect(await day('R-1', '2026-03-26')).toMatchObject({ late_seconds: 300 });
    const renamed = await server.admin.patch('/areas/a-zone/', { name: 'z-zone' });
    expect(renamed.status).toBe(200);
    // Now b-zone (New York) is first by name: the calendar reads the 26th's 09:00 as 13:00Z (summer time) …
    const cal = await server.admin.get<{ results: { date: string; schedule: { expected_start: string } | null }[] }>(
      `/calendar/?employee=R-1&from=2026-03-26&to=2026-03-26`,
    );
    expect(cal.body.results[0]?.schedule?.expected_start).toBe('2026-03-26T13:00:00.000Z');
    // … and 03:35Z is 23:35 on the 25th in New York: the stored days follow, the punch is the 25th's
    // (the 26th, not begun for them with a punch, has no day yet).
    expect(await day('R-1', '2026-03-26')).toBeUndefined();
    expect(await day('R-1', '2026-03-25')).toMatchObject({ first_in: '2026-03-26T03:35:00.000Z' });
  });
});

describe('the absences job and a person enrolled in a zone ahead', () => {
  test('someone enrolled at 01:30 IST on Tuesday 10 March (20:00Z Monday) gets no absence for Monday 9 March', async () => {
    await created('/areas/', { name: 'mumbai2', time_zone: 'Asia/Kolkata' });
    await created('/shift-assignments/', { schedule: 'Day', area: 'mumbai2', from: '2026-03-01' });
    now = Date.parse('2026-03-09T20:00:00Z');
    await created('/employees/', { id: 'K-1', name: 'Person K-1' });
    await created('/enrollees/', { employee: 'K-1', areas: ['mumbai2'] });
    now = Date.parse('2026-03-11T12:00:00Z');
    const run = await server.admin.post('/jobs/generate-absences/run/', { params: { from: '2026-03-09', to: '2026-03-10' } });
    expect(run.status).toBe(200);
    // In Mumbai, where they are judged, they did not exist on the 9th.
    expect(await day('K-1', '2026-03-09')).toBeUndefined();
    expect(await day('K-1', '2026-03-10')).toMatchObject({ status: 'absent' });
  });
});

describe('a move to another zone “from tomorrow”', () => {
  test('today the person is judged where they work today: their old area’s zone, date and shift, listed under the new area', async () => {
    await created('/areas/', { name: 'mumbai3', time_zone: 'Asia/Kolkata' });
    await created('/shift-assignments/', { schedule: 'Day', area: 'mumbai3', from: '2026-03-01' });
    now = Date.parse('2026-04-05T12:00:00Z');
    await created('/employees/', { id: 'V-1', name: 'Person V-1' });
    const e = await created('/enrollees/', { employee: 'V-1', areas: ['mumbai3'] });
    // Monday 6 April, 11:55Z: 17:25 in Mumbai, where V-1 came in at 09:15 IST; moved to New York from tomorrow.
    now = Date.parse('2026-04-06T11:55:00Z');
    expect((await server.admin.post('/punches/manual/', { enrollee: e.id, at: '2026-04-06T03:45:00Z', reason: 'test' })).status).toBe(201);
    const moved = await server.admin.patch<{ areas: string[] }>(`/enrollees/${e.id}/`, { areas: ['newyork'] });
    expect(moved.status).toBe(200);
    type Board = {
      people: { employee: string; date: string; time_zone?: string; areas: string[]; expected_start: string | null }[];
      areas: { area: string }[];
    };
    const board = await server.admin.get<Board>('/attendance/today/');
    expect(board.body.people.find((p) => p.employee === 'V-1')).toMatchObject({
      date: '2026-04-06',
      time_zone: 'Asia/Kolkata',
      areas: ['newyork'],
      expected_start: '2026-04-06T03:30:00.000Z',
    });
    // Listed by the latest membership, as in the reports ("Area membership is dated by its moves").
    const inArea = async (area: string) => (await server.admin.get<Board>(`/attendance/today/?area=${area}`)).body.people.some((p) => p.employee === 'V-1');
    expect({ mumbai3: await inArea('mumbai3'), newyork: await inArea('newyork') }).toEqual({ mumbai3: false, newyork: true });
  });
});

describe('events name areas by id', () => {
  test('GET areas/ gives the id an area_zone change names, beside the name', async () => {
    expect((await server.admin.patch('/areas/mumbai3/', { time_zone: 'Asia/Dubai' })).status).toBe(200);
    const events = await server.admin.get<{ results: { type: string; data: { kind?: string; id?: string } }[] }>(
      '/events/?order=desc&limit=20&type=calendar_changed',
    );
    const change = events.body.results.find((e) => e.data.kind === 'area_zone');
    const areas = await server.admin.get<{ results: { id: string; name: string }[] }>('/areas/?limit=100');
    expect(areas.body.results.find((a) => a.id === change?.data.id)?.name).toBe('mumbai3');
  });
});
