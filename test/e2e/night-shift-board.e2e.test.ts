/**
 * A night shift on the Today board through the real server: two people on a 22:00–06:00 shift
 * punch in on a Monday evening at a simulated terminal; after midnight Tuesday's board still
 * has them "in now" on the night shift (the roll call's count), one until she punches out, the
 * other (who never does) until the shift's window has closed.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { parseCsv } from '../../src/platform/csv';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { launchBrowser, signedInPage } from '../support/browser';
import { clientAs, startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
const MONDAY = '2026-03-02';
const TUESDAY = '2026-03-03';
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
let now = berlin('2026-02-27', '12:00');
let server: TestServer;
let terminal: SimulatedTerminal;
let browser: Browser;
const errors: string[] = [];
const pins: Record<string, string> = {};
const ids: Record<string, string> = {};

interface BoardPerson {
  employee: string;
  status: string;
  schedule: string | null;
  first_in: string | null;
  last_out: string | null;
  in_now: boolean;
  in_now_date: string | null;
}

async function board(query = ''): Promise<{ date: string; counts: Record<string, number>; people: BoardPerson[] }> {
  const res = await server.admin.get(`/attendance/today/${query}`);
  expect(res.status).toBe(200);
  return res.body;
}

const person = (b: { people: BoardPerson[] }, employee: string) => b.people.find((p) => p.employee === employee)!;

/**
 * What the grid asked of the Today board while it was drawn (for the month so far, then for
 * Monday to Tuesday: the same each time, so each different ask once): whom (`enrollee=`, sorted
 * ids), and whom it got.
 */
const boardAsked: { enrollee: string[]; people: string[] }[] = [];

/**
 * In a browser at the time `now`, the console's attendance grid of Monday and Tuesday: `look`
 * reads it. What it asks of the Today board is in `boardAsked`.
 */
async function inGrid<T>(look: (page: Page) => Promise<T>): Promise<T> {
  const page = await signedInPage(browser, server, errors, { now });
  const answers: Promise<{ enrollee: string[]; people: string[] }>[] = [];
  page.on('response', (response) => {
    if (!response.url().includes('/attendance/today/')) return;
    const enrollee = new URL(response.url()).searchParams.get('enrollee');
    answers.push(
      response.json().then((b: { people: { employee: string }[] }) => ({
        enrollee: enrollee === null ? ['(everyone)'] : enrollee.split(',').sort(),
        people: b.people.map((p) => p.employee).sort(),
      })),
    );
  });
  try {
    await page.goto(`${server.url}/console/#/attendance`);
    const period = page.getByRole('region', { name: 'Period', exact: true });
    await period.getByLabel('From', { exact: true }).fill(MONDAY);
    await period.getByLabel('To', { exact: true }).fill(TUESDAY);
    await period.getByRole('button', { name: 'Show', exact: true }).click();
    const seen = await look(page);
    await page.waitForLoadState('networkidle');
    const asked = await Promise.all(answers);
    boardAsked.splice(0, boardAsked.length, ...[...new Set(asked.map((a) => JSON.stringify(a)))].map((a) => JSON.parse(a)));
    return seen;
  } finally {
    await page.context().close();
  }
}

/** What the console's attendance grid says of each night worker's Monday. */
function mondayInGrid(): Promise<string[]> {
  return inGrid(async (page) => {
    const cells = page.locator('#attendance-grid').getByRole('button', { name: /Night, Mon 2 Mar:/ });
    await cells.first().waitFor();
    return (await cells.evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? ''))).sort();
  });
}

/** A CSV report's rows, as objects by header key. */
async function report(path: string): Promise<Record<string, string>[]> {
  const res = await server.admin.get<string>(path);
  expect(res.status).toBe(200);
  const [header, ...rows] = parseCsv(res.body).map((r) => ('fields' in r ? r.fields : []));
  return rows.map((fields) => Object.fromEntries(header!.map((h, i) => [h, fields[i] ?? ''])));
}

/** Monday's status of each night worker in the daily report and the timesheets, and Monday's missing punches. */
async function mondayInReports(): Promise<{ daily: Record<string, string>; timesheet: Record<string, string>; missing: string[] }> {
  const statusOf = (rows: Record<string, string>[]) => Object.fromEntries(rows.map((r) => [r.employee!, r.status!]));
  const daily = statusOf(await report(`/reports/daily.csv?date=${MONDAY}`));
  const timesheet = statusOf((await report(`/reports/timesheet.csv?from=${MONDAY}&to=${TUESDAY}`)).filter((r) => r.date === MONDAY));
  const missing = (await report(`/reports/exceptions.csv?from=${MONDAY}&to=${TUESDAY}&kind=missing_punch`)).map((r) => r.employee!);
  return { daily, timesheet, missing: missing.sort() };
}

async function punch(employee: string, date: string, time: string) {
  expect((await terminal.punch([{ pin: pins[employee]!, localTime: `${date} ${time}:00` }])).status).toBe(200);
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } }), launchBrowser()]);
  for (const [employee, name] of [
    ['N-1', 'Nina Night'],
    ['N-2', 'Nick Night'],
  ] as const) {
    expect((await server.admin.post('/employees/', { id: employee, name })).status).toBe(201);
    const e = await server.admin.post('/enrollees/', { employee, areas: ['plant'] });
    expect(e.status).toBe(201);
    pins[employee] = e.body.device_pin;
    ids[employee] = e.body.id;
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
  await browser?.close();
  await server.close();
  expect(errors).toEqual([]);
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
  expect(person(b, 'N-1')).toMatchObject({ in_now_date: MONDAY });
  // Monday's board, while its night still runs, shows them as they are now: in, not "left".
  expect((await board(`?date=${MONDAY}`)).counts).toMatchObject({ in_now: 2, out: 0 });
});

test('after midnight the reports of Monday have them in too, not missing a punch', async () => {
  now = berlin(TUESDAY, '02:00');
  expect(await mondayInReports()).toEqual({ daily: { 'N-1': 'in_now', 'N-2': 'in_now' }, timesheet: { 'N-1': 'in_now', 'N-2': 'in_now' }, missing: [] });
  expect(await mondayInGrid()).toEqual(['Nick Night, Mon 2 Mar: still in (no out yet), late', 'Nina Night, Mon 2 Mar: still in (no out yet)']);
  // The grid asked the board of the people whose Monday is open only (it read the whole "in now"
  // board, 3 MB at 10,000 people, at every page).
  expect(boardAsked).toEqual([{ enrollee: [ids['N-1']!, ids['N-2']!].sort(), people: ['N-1', 'N-2'] }]);
});

test('the board of given people (`enrollee=`) lists those only; the counts stay whole', async () => {
  now = berlin(TUESDAY, '02:00');
  const b = await board(`?count=in_now&enrollee=${ids['N-2']}`);
  expect(b.people.map((p) => p.employee)).toEqual(['N-2']);
  expect(b.counts.in_now).toBe(2);
  // By name, as ever.
  expect((await board(`?enrollee=${ids['N-1']},${ids['N-2']}`)).people.map((p) => p.employee)).toEqual(['N-2', 'N-1']);
  expect((await server.admin.get('/attendance/today/?enrollee=a,,b')).status).toBe(400);
});

test('an out punch closes the night; a missing one stops counting once the shift’s window has closed', async () => {
  now = berlin(TUESDAY, '06:03');
  await punch('N-1', TUESDAY, '06:02');
  let b = await board();
  // Nina's out belongs to Monday's night, which runs until its end plus its grace out (06:05): she has left it.
  expect(person(b, 'N-1')).toMatchObject({ status: 'present', schedule: 'night', in_now: false, last_out: new Date(berlin(TUESDAY, '06:02')).toISOString() });
  expect(person(b, 'N-2')).toMatchObject({ in_now: true });
  // Then she is off until tonight's shift.
  now = berlin(TUESDAY, '06:05');
  b = await board();
  expect(person(b, 'N-1')).toMatchObject({ status: 'scheduled', in_now: false, last_out: null });
  expect(person(b, 'N-2')).toMatchObject({ in_now: true });
  now = berlin(TUESDAY, '09:59');
  expect(person(await board(), 'N-2').in_now).toBe(true);
  // 06:00 plus ATTENDANCE_SHIFT_SLACK (4 h): Nick's day is an open one now, and Tuesday's plan applies.
  now = berlin(TUESDAY, '10:00');
  b = await board();
  expect(person(b, 'N-2')).toMatchObject({ status: 'scheduled', in_now: false });
  expect(b.counts.in_now).toBe(0);
  // In the reports too: Nina's night is closed, Nick's open day is a missing punch now.
  expect(await mondayInReports()).toEqual({
    daily: { 'N-1': 'present', 'N-2': 'incomplete' },
    timesheet: { 'N-1': 'present', 'N-2': 'incomplete' },
    missing: ['N-2'],
  });
  expect(await mondayInGrid()).toEqual(['Nick Night, Mon 2 Mar: Missing punch, late', 'Nina Night, Mon 2 Mar: Present']);
  // Nick's Monday is open (a missing out): he is asked about, and is not in now.
  expect(boardAsked).toEqual([{ enrollee: [ids['N-2']!], people: [] }]);
});

/** The punch times (local, Berlin) that a day's panel lists: the day's own punches, newest first. */
async function dayPanel(employee: string, date: string): Promise<string[]> {
  const res = await server.admin.get<{ results: { local_time: string; voided: boolean }[] }>(`/attendance-days/${ids[employee]}/${date}/punches/`);
  expect(res.status).toBe(200);
  return res.body.results.map((p) => `${p.local_time.slice(0, 16)}${p.voided ? ' voided' : ''}`);
}

test('a night’s punches are listed on the date the shift started, voided ones too; a manager of another area gets 404', async () => {
  now = berlin(TUESDAY, '22:30');
  await punch('N-1', TUESDAY, '21:59');
  expect(await dayPanel('N-1', MONDAY)).toEqual(['2026-03-03 06:02', '2026-03-02 21:58']);
  // Tuesday's own night only: not the morning punch of Monday's that fell on Tuesday's date.
  expect(await dayPanel('N-1', TUESDAY)).toEqual(['2026-03-03 21:59']);
  const [tuesdayIn] = (await server.admin.get<{ results: { id: string }[] }>(`/attendance-days/${ids['N-1']}/${TUESDAY}/punches/`)).body.results;
  expect((await server.admin.post(`/punches/${tuesdayIn!.id}/void/`, { reason: 'tapped for a colleague' })).status).toBe(200);
  expect(await dayPanel('N-1', TUESDAY)).toEqual(['2026-03-03 21:59 voided']);
  const elsewhere = await clientAs(server, 'manager', ['office']);
  expect((await elsewhere.get(`/attendance-days/${ids['N-1']}/${MONDAY}/punches/`)).status).toBe(404);
  expect((await server.admin.get(`/attendance-days/${ids['N-1']}/2026-02-30/punches/`)).status).toBe(400);
});

test('the console’s day panel of a night lists its own punches', async () => {
  const text = await inGrid(async (page) => {
    await page
      .locator('#attendance-grid')
      .getByRole('button', { name: /^Nina Night, Mon 2 Mar:/ })
      .click();
    const panel = page.getByRole('region', { name: /Nina Night, Mon/ });
    await panel.getByRole('table').waitFor();
    expect(await panel.getByRole('row').count()).toBe(3);
    return panel.getByRole('table').textContent();
  });
  expect(text).toContain('21:58');
  expect(text).toContain('06:02');
});
