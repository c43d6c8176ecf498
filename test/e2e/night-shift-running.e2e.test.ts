/**
 * The night that is still running after midnight, on the Today board, in the daily report and
 * in the console's Today page, through the real server: a 24/7 plant's night shift (22:00–06:00,
 * every day) in Berlin. On Friday evening Paula comes on time, Peter late, Nora comes and leaves
 * at 01:00, Pia never comes; Pavel works Friday night and has Saturday night off; Dana works the
 * office's day shift. At 02:00 on Saturday the board shows the night that is running: Pia not
 * in yet (then absent once it has ended), Nora out; Friday's board, asked meanwhile, says the
 * same and calls nobody of that night out or absent. The daily report of Saturday reports
 * Saturday's own shifts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { parseCsv } from '../../src/platform/csv';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { launchBrowser, signedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
/**
 * A Friday and the Saturday after, to come: the console's punch stream checks a session's expiry
 * against the real clock, so the test's clock runs ahead of it, never behind.
 */
const FRIDAY = '2031-11-28';
const SATURDAY = '2031-11-29';
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
const iso = (date: string, time: string) => new Date(berlin(date, time)).toISOString();
let now = berlin('2031-11-20', '12:00');
let server: TestServer;
let terminal: SimulatedTerminal;
let browser: Browser;
const errors: string[] = [];
const pins: Record<string, string> = {};

const PEOPLE = [
  ['P-1', 'Paula One', 'plant'],
  ['P-2', 'Peter Two', 'plant'],
  ['P-3', 'Pia Three', 'plant'],
  ['N-4', 'Nora Four', 'plant'],
  ['P-6', 'Pavel Six', 'plant'],
  ['D-5', 'Dana Day', 'office'],
] as const;

interface BoardPerson {
  employee: string;
  status: string;
  expected: boolean;
  schedule: string | null;
  expected_start: string | null;
  first_in: string | null;
  last_out: string | null;
  in_now: boolean;
  in_now_date: string | null;
}
interface Board {
  date: string;
  counts: Record<string, number>;
  people: BoardPerson[];
  people_total: number;
  areas: { area: string; counts: Record<string, number> }[];
}

async function board(query = ''): Promise<Board> {
  const res = await server.admin.get<Board>(`/attendance/today/${query}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** Each person's status on a board, by employee. */
const statuses = (b: Board) => Object.fromEntries(b.people.map((p) => [p.employee, p.status]));
const person = (b: Board, employee: string) => b.people.find((p) => p.employee === employee)!;
const employees = (b: Board) => b.people.map((p) => p.employee);

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
  [server, browser] = await Promise.all([startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } }), launchBrowser()]);
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
  await browser?.close();
  await server?.close();
  expect(errors).toEqual([]);
});

describe('a night shift running after midnight', () => {
  test('before midnight, Friday’s board: Pia is not in yet, the others in; the day shift has left', async () => {
    now = berlin(FRIDAY, '23:30');
    const b = await board();
    expect(b.date).toBe(FRIDAY);
    expect(statuses(b)).toEqual({ 'D-5': 'present', 'N-4': 'present', 'P-1': 'present', 'P-6': 'present', 'P-2': 'late', 'P-3': 'not_in_yet' });
    expect(b.counts).toMatchObject({ not_in_yet: 1, in_now: 4, out: 1, absent: 0 });
  });

  test('at 00:10, before the night’s absences are written, Saturday’s board has Pia not in yet on Friday’s night', async () => {
    now = berlin(SATURDAY, '00:10');
    const b = await board();
    expect(b.date).toBe(SATURDAY);
    expect(person(b, 'P-3')).toMatchObject({ status: 'not_in_yet', schedule: 'Night', expected_start: iso(FRIDAY, '22:00'), expected: true });
  });

  test('at 02:00 the board shows the night that runs: Pia not in yet, Nora out since 01:00, the others in', async () => {
    await punch('N-4', SATURDAY, '01:00');
    now = berlin(SATURDAY, '02:00');
    // What the nightly job wrote at 00:15: Pia's Friday is a stored absence, while her shift still runs.
    const run = await server.admin.post('/jobs/generate-absences/run/', { params: { date: FRIDAY } });
    expect(run.body).toMatchObject({ status: 'succeeded', result: { absent: 1 } });
    const b = await board();
    expect(b.date).toBe(SATURDAY);
    expect(statuses(b)).toEqual({ 'D-5': 'scheduled', 'N-4': 'present', 'P-1': 'present', 'P-6': 'present', 'P-2': 'late', 'P-3': 'not_in_yet' });
    expect(person(b, 'P-3')).toMatchObject({ schedule: 'Night', expected_start: iso(FRIDAY, '22:00'), first_in: null, in_now: false });
    expect(person(b, 'N-4')).toMatchObject({
      schedule: 'Night',
      first_in: iso(FRIDAY, '21:50'),
      last_out: iso(SATURDAY, '01:00'),
      in_now: false,
      in_now_date: null,
    });
    expect(person(b, 'P-1')).toMatchObject({ in_now: true, in_now_date: FRIDAY });
    // Dana's day shift is Saturday's, as before.
    expect(person(b, 'D-5')).toMatchObject({ schedule: 'Day', expected_start: iso(SATURDAY, '08:00') });
    expect(b.counts).toEqual({
      expected: 6,
      present: 4,
      late: 1,
      not_in_yet: 1,
      absent: 0,
      on_leave: 0,
      holiday: 0,
      off: 0,
      out: 1,
      in_now: 3,
      scheduled: 1,
    });
    expect(b.areas.find((a) => a.area === 'plant')?.counts).toMatchObject({ expected: 5, not_in_yet: 1, out: 1, in_now: 3 });
  });

  test('the console’s live read lists the same people: by count, the first by name', async () => {
    now = berlin(SATURDAY, '02:00');
    expect(employees(await board('?count=not_in_yet&limit=200'))).toEqual(['P-3']);
    expect(employees(await board('?count=out&limit=200'))).toEqual(['N-4']);
    const first = await board('?count=expected&limit=2');
    expect({ people: employees(first), total: first.people_total }).toEqual({ people: ['D-5', 'N-4'], total: 6 });
    expect(first.counts).toMatchObject({ not_in_yet: 1, out: 1, expected: 6 });
  });

  test('Friday’s board asked at 02:00 calls nobody of the running night out or absent: it shows them as they are now', async () => {
    now = berlin(SATURDAY, '02:00');
    const b = await board(`?date=${FRIDAY}`);
    expect(b.date).toBe(FRIDAY);
    expect(statuses(b)).toEqual({ 'D-5': 'present', 'N-4': 'present', 'P-1': 'present', 'P-6': 'present', 'P-2': 'late', 'P-3': 'not_in_yet' });
    expect(person(b, 'P-1')).toMatchObject({ in_now: true, in_now_date: FRIDAY, last_out: null });
    expect(person(b, 'N-4')).toMatchObject({ in_now: false, last_out: iso(SATURDAY, '01:00') });
    // Dana's day shift ended on Friday: she left.
    expect(person(b, 'D-5')).toMatchObject({ in_now: false, last_out: iso(FRIDAY, '16:35') });
    expect(b.counts).toMatchObject({ expected: 6, in_now: 3, out: 2, not_in_yet: 1, absent: 0 });
  });

  test('the daily report of Saturday reports Saturday’s own shifts; Friday’s has the night', async () => {
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
      "Each row is the person's shift of this date: a night shift begun the date before is on that date's report, as stored so far while it still runs (someone not in yet: no record, or absent once the 00:15 absences job has run; the Today board shows the running night live).",
    );
  });

  test('the console’s Today page at 02:00 shows the night that runs: Pia not in yet, Nora left at 01:00', async () => {
    now = berlin(SATURDAY, '02:00');
    const page = await signedInPage(browser, server, errors, { now, context: { timezoneId: ZONE } });
    try {
      await page.goto(`${server.url}/console/#/?show=not_in_yet`);
      await page.getByRole('heading', { level: 2, name: 'Not in yet: 1' }).waitFor();
      const list = page.locator('#board-list');
      const pia = await list.getByRole('row', { name: /Pia Three/ }).textContent();
      expect(pia).toContain('Not in yet');
      expect(pia).toContain('22:00');
      await page.getByRole('button', { name: /^1\s*Left$/ }).click();
      await page.getByRole('heading', { level: 2, name: 'Left: 1' }).waitFor();
      const nora = await list.getByRole('row', { name: /Nora Four/ }).textContent();
      expect(nora).toContain('Left 01:00');
      expect(nora).toContain('21:50');
      await page.getByRole('button', { name: /^3\s*In now$/ }).click();
      await page.getByRole('heading', { level: 2, name: 'In now: 3' }).waitFor();
      expect(await list.locator('tbody tr td:first-child, tbody tr th').allTextContents()).toEqual(['Paula One', 'Pavel Six', 'Peter Two']);
    } finally {
      await page.context().close();
    }
  });

  test('once the night has ended (its grace out too) each shows Saturday’s shift; who is still in stays in', async () => {
    now = berlin(SATURDAY, '06:03');
    let b = await board();
    // In the grace after the end: the no-show is absent.
    expect(person(b, 'P-3')).toMatchObject({ status: 'absent', schedule: 'Night', expected_start: iso(FRIDAY, '22:00') });
    expect(b.counts).toMatchObject({ absent: 1, not_in_yet: 0 });
    now = berlin(SATURDAY, '06:05');
    b = await board();
    expect(statuses(b)).toEqual({ 'D-5': 'scheduled', 'N-4': 'scheduled', 'P-1': 'present', 'P-6': 'present', 'P-2': 'late', 'P-3': 'scheduled' });
    expect(person(b, 'P-3')).toMatchObject({ schedule: 'Night', expected_start: iso(SATURDAY, '22:00') });
    // Paula, Pavel and Peter have not clocked out: in now until the window closes (06:00 + 4 h).
    expect(b.counts).toMatchObject({ in_now: 3, out: 0, absent: 0, not_in_yet: 0, scheduled: 3 });
    // Friday's board is a past date's again for those whose night is over.
    const friday = await board(`?date=${FRIDAY}`);
    expect(statuses(friday)).toMatchObject({ 'P-3': 'absent', 'N-4': 'present' });
    expect(friday.counts).toMatchObject({ absent: 1, in_now: 3, out: 2 });
  });

  test('the day shift on Saturday is judged as always', async () => {
    now = berlin(SATURDAY, '08:30');
    expect(person(await board(), 'D-5')).toMatchObject({ status: 'not_in_yet', schedule: 'Day' });
    await punch('D-5', SATURDAY, '08:31');
    expect(person(await board(), 'D-5')).toMatchObject({ status: 'late', in_now: true, in_now_date: SATURDAY });
  });
});
