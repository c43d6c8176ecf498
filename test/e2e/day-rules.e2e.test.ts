/**
 * The rules of a day that a payroll controller and a security tester found wrong, through the
 * real server and a terminal speaking ADMS: a day shift 08:00–16:30 with a 30-minute unpaid break,
 * Monday to Friday, for the area `south` (Europe/Berlin).
 * - A chain of quick taps (08:00:00 08:00:50 08:01:40) is one punch: each tap is compared with the
 *   tap just before it, not with the last one counted.
 * - Late is at most the shift's length: 17:00 18:00 is 8:30 late, not 9:00; the summary's total
 *   is the sum of the days.
 * - Punches sent with the terminal's serial from another address (127.0.0.2, flagged
 *   `new_address`) count, and the day they count for says so: `unconfirmed_terminal` in
 *   attendance-days/, the export, the daily report and a row of the exceptions report.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseCsv } from '../../src/platform/csv';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { fetchFrom, SECOND_ADDRESS } from '../support/source-address';

const ZONE = 'Europe/Berlin';
const now = Date.parse('2026-11-23T09:00:00+01:00');
let server: TestServer;
let terminal: SimulatedTerminal;
const pins: Record<string, string> = {};

async function created(path: string, body: unknown) {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status }).toEqual({ path, status: 201 });
  return res.body;
}

async function csv(path: string): Promise<Record<string, string>[]> {
  const res = await server.admin.get<string>(path);
  expect(res.status).toBe(200);
  const [header, ...rows] = parseCsv(res.body).map((r) => ('fields' in r ? r.fields : []));
  return rows.map((fields) => Object.fromEntries(header!.map((h, i) => [h, fields[i] ?? ''])));
}

/** Punches of one person at wall times of one date, as the terminal (or `from` another) uploads them. */
async function punched(employee: string, date: string, ...times: string[]) {
  await punchedAt(terminal, employee, date, ...times);
}
async function punchedAt(from: SimulatedTerminal, employee: string, date: string, ...times: string[]) {
  const lines = times.map((time) => ({ pin: pins[employee]!, localTime: `${date} ${time}` }));
  expect(await from.punch(lines)).toEqual({ status: 200, body: `OK:${lines.length}` });
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  for (const [id, name] of [
    ['E301', 'Tara Quick'],
    ['E302', 'Omar Late'],
    ['E303', 'Una Pinned'],
    ['E304', 'Ben Both'],
  ]) {
    await created('/employees/', { id, name });
    pins[id!] = (await created('/enrollees/', { employee: id, areas: ['south'] })).device_pin;
  }
  terminal = new SimulatedTerminal({ url: server.url, sn: 'RULES001', timeZone: ZONE });
  await terminal.handshake();
  expect((await server.admin.post('/devices/RULES001/approve/', { areas: ['south'] })).status).toBe(200);
  await created('/work-schedules/', { name: 'day', start: '08:00', end: '16:30', grace_in: '5m', grace_out: '5m', break: '30m', weekdays: [1, 2, 3, 4, 5] });
  await created('/shift-assignments/', { schedule: 'day', area: 'south', from: '2026-11-01' });
});
afterAll(async () => {
  await server.close();
});

describe('a day’s punches', () => {
  test('a chain of quick taps is one punch, the first of the chain: the day is present, 8:00 worked', async () => {
    await punched('E301', '2026-11-16', '08:00:00', '08:00:50', '08:01:40', '16:30:00');
    const rows = await csv('/attendance-days/export.csv?from=2026-11-16&to=2026-11-16&employee=E301');
    expect(rows.map((r) => [r.status, r.first_in, r.last_out, r.worked, r.late, r.punches, r.flags])).toEqual([
      ['present', '2026-11-16 08:00:00', '2026-11-16 16:30:00', '8:00', '0:00', '4', ''],
    ]);
  });

  test('late is at most the shift’s length, and the summary’s late total is the sum of the days', async () => {
    await punched('E302', '2026-11-17', '17:00:00', '18:00:00');
    await punched('E302', '2026-11-18', '08:20:00', '16:30:00');
    const days = (await server.admin.get('/attendance-days/?employee=E302&from=2026-11-17&to=2026-11-18')).body.results as {
      date: string;
      late_seconds: number;
      flags: string[];
    }[];
    expect(days.map((d) => [d.date, d.late_seconds, d.flags])).toEqual([
      ['2026-11-18', 20 * 60, ['late']],
      ['2026-11-17', 8 * 3600 + 30 * 60, ['late']],
    ]);
    const summary = await server.admin.get('/attendance-summary/?from=2026-11-17&to=2026-11-18&employee=E302');
    expect(summary.body.results[0]).toMatchObject({ days_late: 2, late_seconds: 8 * 3600 + 50 * 60 });
  });
});

describe('punches from an address the terminal is not pinned to', () => {
  test('count, and flag their day unconfirmed_terminal everywhere HR looks: the day, the export, the daily report, the exceptions', async () => {
    // Someone on the office network who read the terminal's serial off its label (or the terminal, moved).
    const elsewhere = new SimulatedTerminal({ url: server.url, sn: 'RULES001', timeZone: ZONE, fetch: fetchFrom(SECOND_ADDRESS) });
    await punchedAt(elsewhere, 'E303', '2026-11-19', '08:00:00', '16:30:00');
    // One of the day's punches is enough: in at the real terminal, out from elsewhere.
    await punched('E304', '2026-11-19', '08:00:00');
    await punchedAt(elsewhere, 'E304', '2026-11-19', '16:30:00');
    await punched('E301', '2026-11-19', '08:00:00', '16:30:00');
    const punches = (await server.admin.get('/punches/?device=RULES001&limit=100')).body.results as { employee: string; flags: string[] }[];
    expect(punches.filter((p) => p.flags.includes('new_address')).map((p) => p.employee)).toEqual(['E304', 'E303', 'E303']);

    const days = (await server.admin.get('/attendance-days/?from=2026-11-19&to=2026-11-19')).body.results as {
      employee: string;
      status: string;
      worked_seconds: number;
      flags: string[];
    }[];
    const byEmployee = Object.fromEntries(days.map((d) => [d.employee, [d.status, d.worked_seconds, d.flags]]));
    expect(byEmployee).toEqual({
      E301: ['present', 8 * 3600, []],
      E303: ['present', 8 * 3600, ['unconfirmed_terminal']],
      E304: ['present', 8 * 3600, ['unconfirmed_terminal']],
    });

    const exported = await csv('/attendance-days/export.csv?from=2026-11-19&to=2026-11-19');
    expect(exported.map((r) => [r.employee, r.status, r.worked, r.flags])).toEqual([
      ['E301', 'present', '8:00', ''],
      ['E303', 'present', '8:00', 'unconfirmed_terminal'],
      ['E304', 'present', '8:00', 'unconfirmed_terminal'],
    ]);

    const daily = await csv('/reports/daily.csv?date=2026-11-19');
    // By name. Omar Late, enrolled after that date, has no day there, but punched on the 17th:
    // his attendance had started (generate-absences, and a lock, would write his absence there).
    expect(daily.map((r) => [r.employee, r.status, r.flags])).toEqual([
      ['E304', 'present', 'unconfirmed_terminal'],
      ['E302', 'no_record', ''],
      ['E301', 'present', ''],
      ['E303', 'present', 'unconfirmed_terminal'],
    ]);

    const exceptions = await csv('/reports/exceptions.csv?from=2026-11-19&to=2026-11-19');
    expect(exceptions.map((r) => [r.employee, r.kind, r.hours])).toEqual([
      ['E303', 'unconfirmed_terminal', ''],
      ['E304', 'unconfirmed_terminal', ''],
    ]);
    const chosen = await csv('/reports/exceptions.csv?from=2026-11-19&to=2026-11-19&kind=unconfirmed_terminal');
    expect(chosen.map((r) => [r.date, r.employee, r.kind, r.first_in, r.last_out])).toEqual([
      ['2026-11-19', 'E303', 'unconfirmed_terminal', '2026-11-19 08:00:00', '2026-11-19 16:30:00'],
      ['2026-11-19', 'E304', 'unconfirmed_terminal', '2026-11-19 08:00:00', '2026-11-19 16:30:00'],
    ]);
  });
});
