/**
 * A locked pay period's files stay as they were locked when its area's time zone changes
 * (README "Pay periods", "Time zones"), through the real server: each stored day keeps the zone
 * it was judged in, and its wall times are shown in it. Area `north` (no zone of its own: the
 * attendance zone, Berlin) on 09:00–17:00 Monday to Friday; E02 punched in by hand 09:25–17:00
 * Berlin, 2 to 6 November 2026; 1–15 November locked; then `north` moves to New York's zone.
 * The days after the lock are judged again in the new zone, and shown in it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../support/harness';

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';
/** Tuesday 17 November 2026, 12:00Z: the period 1–15 November is over. */
let now = Date.parse('2026-11-17T12:00:00Z');
let server: TestServer;
let enrollee = '';

async function created(path: string, body: unknown) {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ path, status: 201, body: null });
  return res.body;
}

async function manual(at: string) {
  await created('/punches/manual/', { enrollee, at, reason: 'forgot the badge' });
}

/** A file's body as text, after checking it was served. */
async function text(path: string): Promise<string> {
  const res = await server.admin.get<string>(path);
  expect({ path, status: res.status, type: typeof res.body }).toEqual({ path, status: 200, type: 'string' });
  return res.body;
}

const EXPORT = '/attendance-days/export.csv?from=2026-11-01&to=2026-11-15';
const LOCKED_FILES = [
  EXPORT,
  '/reports/timesheet.csv?from=2026-11-01&to=2026-11-15',
  '/reports/timesheet.csv?from=2026-11-01&to=2026-11-15&employee=E02',
  '/reports/daily.csv?date=2026-11-03',
  '/reports/exceptions.csv?from=2026-11-01&to=2026-11-15',
];
const LOCKED_PREVIEWS = [
  '/reports/timesheet/preview/?from=2026-11-01&to=2026-11-15',
  '/reports/daily/preview/?date=2026-11-03',
  '/reports/exceptions/preview/?from=2026-11-01&to=2026-11-15',
];

/** What a preview shows of its rows (the PDF's and the Excel file's rows). */
async function previewRows(path: string): Promise<unknown> {
  const res = await server.admin.get<{ sheets: { rows: unknown }[] }>(path);
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res.body.sheets.map((s) => s.rows);
}

async function boardOf(date: string): Promise<{ first_in: string | null; time_zone?: string }> {
  const res = await server.admin.get<{ people: { employee: string; first_in: string | null; time_zone?: string }[] }>(`/attendance/today/?date=${date}`);
  expect(res.status).toBe(200);
  return res.body.people.find((p) => p.employee === 'E02')!;
}

const before = new Map<string, unknown>();

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: BERLIN }, { clock: { now: () => now } });
  await created('/areas/', { name: 'north' });
  await created('/work-schedules/', { name: 'day', start: '09:00', end: '17:00', weekdays: [1, 2, 3, 4, 5] });
  await created('/shift-assignments/', { schedule: 'day', area: 'north', from: '2026-11-01' });
  await created('/employees/', { id: 'E02', name: 'Person E02' });
  enrollee = (await created('/enrollees/', { employee: 'E02', areas: ['north'] })).id;
  for (const date of ['2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06']) {
    await manual(`${date}T08:25:00Z`);
    await manual(`${date}T16:00:00Z`);
  }
  const period = await created('/pay-periods/', { from: '2026-11-01', to: '2026-11-15' });
  expect((await server.admin.post(`/pay-periods/${period.id}/lock/`, {})).status).toBe(200);
  for (const path of LOCKED_FILES) before.set(path, await text(path));
  for (const path of LOCKED_PREVIEWS) before.set(path, await previewRows(path));
  before.set('board', await boardOf('2026-11-03'));
});
afterAll(async () => {
  await server.close();
});

describe('an area’s zone changed after its pay period was locked', () => {
  test('as locked: the export shows 09:25–17:00 Berlin, late 0:25 against 09:00', async () => {
    const row = (before.get(EXPORT) as string).split('\n').find((l) => l.startsWith('E02,Person E02,2026-11-03,'));
    expect(row).toContain('2026-11-03 09:25:00,2026-11-03 17:00:00');
    expect(row).toContain(',0:25,1500,');
    expect(before.get('board')).toMatchObject({ first_in: '2026-11-03T08:25:00.000Z' });
  });

  test('the export, the timesheets, the daily and exceptions reports of the locked period are byte for byte the same', async () => {
    const changed = await server.admin.patch('/areas/north/', { time_zone: NEW_YORK });
    expect(changed.status).toBe(200);
    expect(changed.body.time_zone).toBe(NEW_YORK);
    for (const path of LOCKED_FILES) expect({ path, body: await text(path) }).toEqual({ path, body: before.get(path) as string });
  });

  test('the previews (the rows the PDF and the Excel file print) are the same', async () => {
    for (const path of LOCKED_PREVIEWS) expect({ path, rows: await previewRows(path) }).toEqual({ path, rows: before.get(path) });
  });

  test('the Today board of a locked date reads its person’s times in the zone the day was judged in', async () => {
    expect(await boardOf('2026-11-03')).toMatchObject({ first_in: '2026-11-03T08:25:00.000Z', time_zone: BERLIN });
  });

  test('a day after the lock, punched after the change, is judged and shown in the new zone', async () => {
    // Monday 16 November: 09:25–17:00 in New York (EST, UTC−5).
    await manual('2026-11-16T14:25:00Z');
    await manual('2026-11-16T22:00:00Z');
    const exported = await text('/attendance-days/export.csv?from=2026-11-16&to=2026-11-16');
    const row = exported.split('\n').find((l) => l.startsWith('E02,Person E02,2026-11-16,'));
    expect(row).toContain('2026-11-16 09:25:00,2026-11-16 17:00:00');
    expect(row).toContain(',0:25,1500,');
    const timesheet = await text('/reports/timesheet.csv?from=2026-11-16&to=2026-11-16&employee=E02');
    expect(timesheet).toContain('09:25* 17:00*,2026-11-16 09:25:00,2026-11-16 17:00:00');
    expect(await boardOf('2026-11-16')).toMatchObject({ first_in: '2026-11-16T14:25:00.000Z', time_zone: NEW_YORK });
  });

  test('a day after the lock punched before the change is judged again in the new zone, and shown in it', async () => {
    // Tuesday 17 November, punched at 09:25 and 17:00 Berlin, then north moves back to Berlin:
    // the open day is judged again there (late 0:25), and 16 November (punched in New York's
    // 09:25–17:00, now 15:25–23:00 Berlin) with it.
    await manual('2026-11-17T08:25:00Z');
    now = Date.parse('2026-11-17T16:30:00Z');
    await manual('2026-11-17T16:00:00Z');
    expect((await server.admin.patch('/areas/north/', { time_zone: BERLIN })).status).toBe(200);
    const exported = await text('/attendance-days/export.csv?from=2026-11-16&to=2026-11-17');
    const rows = exported.split('\n').filter((l) => l.startsWith('E02,'));
    expect(rows[0]).toContain('2026-11-16 15:25:00,2026-11-16 23:00:00');
    expect(rows[1]).toContain('2026-11-17 09:25:00,2026-11-17 17:00:00');
    expect(rows[1]).toContain(',0:25,1500,');
    // The locked period still as it was locked.
    expect(await text(EXPORT)).toBe(before.get(EXPORT) as string);
  });
});
