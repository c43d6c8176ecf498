/**
 * Punches whose time HR must look at, through the real server and a terminal speaking ADMS
 * (Europe/Berlin; a day shift 08:00–16:30 with a 30-minute break, Monday to Friday, for `south`):
 * - A terminal whose clock runs an hour fast uploads a punch dated an hour after it arrived. It
 *   counts as the terminal's time (HR voids and re-enters it), but the punch is flagged
 *   `clock_ahead` and its day too: attendance-days/, the export, the daily report and a row of the
 *   exceptions report. A punch ahead by less than the drift tolerance is not flagged, nor is one of
 *   the terminal's log uploaded long after its time.
 * - On the fall-back night a wall time the terminal showed twice (02:30 before and after its
 *   handshake told it the new offset) is flagged `dst_overlap`, and so is its day: the export's
 *   bare wall times do not say which 02:30 it was.
 * - A terminal whose clock battery is flat starts over at 2000-01-01: its punch is flagged
 *   `clock_reset`, and so is the day it counts for, with its own row of the exceptions report, so
 *   HR finds the punches to correct.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseCsv } from '../../src/platform/csv';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
const HOUR = 3_600_000;
let now = Date.parse('2026-11-16T07:00:00+01:00');
let server: TestServer;
let terminal: SimulatedTerminal;
const pins: Record<string, string> = {};
const ids: Record<string, string> = {};

interface PunchView {
  employee: string;
  local_time: string;
  punched_at: string;
  received_at: string;
  flags: string[];
}

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

/** The terminal's punch of `employee` at the server's now, its clock `aheadMs` fast: the wall time it shows. */
async function punchNow(employee: string, aheadMs: number): Promise<void> {
  terminal.clockOffMs = aheadMs;
  expect(await terminal.punch([{ pin: pins[employee]! }])).toEqual({ status: 200, body: 'OK:1' });
}

async function punchesOf(employee: string): Promise<PunchView[]> {
  const res = await server.admin.get(`/punches/?employee=${employee}&limit=100`);
  expect(res.status).toBe(200);
  return (res.body.results as PunchView[]).sort((a, b) => a.local_time.localeCompare(b.local_time));
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  for (const [id, name] of [
    ['E401', 'Fay Fast'],
    ['E402', 'Sam Slight'],
    ['E403', 'Lou Later'],
    ['E404', 'Nia Night'],
    ['E405', 'Bea Battery'],
  ]) {
    await created('/employees/', { id, name });
    const enrollee = await created('/enrollees/', { employee: id, areas: ['south'] });
    pins[id!] = enrollee.device_pin;
    ids[id!] = enrollee.id;
  }
  terminal = new SimulatedTerminal({ url: server.url, sn: 'AHEAD001', timeZone: ZONE, now: () => now });
  await terminal.handshake();
  expect((await server.admin.post('/devices/AHEAD001/approve/', { areas: ['south'] })).status).toBe(200);
  await created('/work-schedules/', { name: 'day', start: '08:00', end: '16:30', grace_in: '5m', grace_out: '5m', break: '30m', weekdays: [1, 2, 3, 4, 5] });
  await created('/shift-assignments/', { schedule: 'day', area: 'south', from: '2026-10-01' });
});
afterAll(async () => {
  await server.close();
});

describe('a punch dated after it was received', () => {
  test('is flagged clock_ahead, counts as the terminal’s time, and flags its day everywhere HR looks', async () => {
    // 07:58 real time; the terminal, an hour fast, shows 08:58.
    now = Date.parse('2026-11-16T07:58:00+01:00');
    await punchNow('E401', HOUR);
    const [first] = await punchesOf('E401');
    expect(first).toMatchObject({
      local_time: '2026-11-16 08:58:00',
      punched_at: '2026-11-16T07:58:00.000Z',
      received_at: '2026-11-16T06:58:00.000Z',
      flags: ['clock_ahead'],
    });
    expect((await server.admin.get('/devices/AHEAD001/')).body).toMatchObject({ clock_drift_seconds: 3600, clock_drifting: true });
    // Its clock set right, the same person leaves at 16:31: that punch is not ahead.
    now = Date.parse('2026-11-16T16:31:00+01:00');
    await punchNow('E401', 0);
    expect((await punchesOf('E401')).map((p) => [p.local_time, p.flags])).toEqual([
      ['2026-11-16 08:58:00', ['clock_ahead']],
      ['2026-11-16 16:31:00', []],
    ]);

    const day = (await server.admin.get('/attendance-days/?employee=E401&from=2026-11-16&to=2026-11-16')).body.results[0];
    // As the terminal said: 58 minutes late (HR voids the punch and enters 07:58 by hand).
    expect(day).toMatchObject({ status: 'present', late_seconds: 58 * 60, flags: ['late', 'clock_ahead'] });

    const exported = await csv('/attendance-days/export.csv?from=2026-11-16&to=2026-11-16&employee=E401');
    expect(exported.map((r) => [r.first_in, r.last_out, r.flags])).toEqual([['2026-11-16 08:58:00', '2026-11-16 16:31:00', 'late clock_ahead']]);
    const daily = await csv('/reports/daily.csv?date=2026-11-16');
    expect(daily.filter((r) => r.employee === 'E401').map((r) => r.flags)).toEqual(['late clock_ahead']);
    const exceptions = await csv('/reports/exceptions.csv?from=2026-11-16&to=2026-11-16');
    expect(exceptions.filter((r) => r.employee === 'E401').map((r) => [r.kind, r.hours])).toEqual([
      ['late', '0.97'],
      ['clock_ahead', ''],
    ]);
    const chosen = await csv('/reports/exceptions.csv?from=2026-11-16&to=2026-11-16&kind=clock_ahead');
    expect(chosen.map((r) => [r.employee, r.kind])).toEqual([['E401', 'clock_ahead']]);
  });

  test('within the drift tolerance (DEVICE_CLOCK_DRIFT_MAX, 2 minutes) a punch ahead is not flagged', async () => {
    now = Date.parse('2026-11-17T07:58:00+01:00');
    await punchNow('E402', 90_000);
    now = Date.parse('2026-11-17T16:31:00+01:00');
    await punchNow('E402', 0);
    expect((await punchesOf('E402')).map((p) => [p.local_time, p.flags])).toEqual([
      ['2026-11-17 07:59:30', []],
      ['2026-11-17 16:31:00', []],
    ]);
    const day = (await server.admin.get('/attendance-days/?employee=E402&from=2026-11-17&to=2026-11-17')).body.results[0];
    expect(day.flags).toEqual([]);
  });

  test('a punch of the terminal’s log uploaded long after its time is not ahead: not flagged, even from a clock that ran fast', async () => {
    // Made at 07:58 real time on a clock an hour fast (08:58), kept on the terminal, uploaded at noon.
    now = Date.parse('2026-11-18T12:00:00+01:00');
    terminal.clockOffMs = 0;
    expect(await terminal.punch([{ pin: pins.E403!, localTime: '2026-11-18 08:58:00' }])).toEqual({ status: 200, body: 'OK:1' });
    expect((await punchesOf('E403')).map((p) => [p.local_time, p.received_at, p.flags])).toEqual([['2026-11-18 08:58:00', '2026-11-18T11:00:00.000Z', []]]);
  });
});

describe('a wall time of the fall-back night', () => {
  test('shown twice by the terminal is flagged dst_overlap, and so is the day it counts for', async () => {
    await created('/work-schedules/', { name: 'night', start: '22:00', end: '06:00', grace_in: '5m', grace_out: '5m', weekdays: [0, 1, 2, 3, 4, 5, 6] });
    await created('/shift-assignments/', { schedule: 'night', enrollee: ids.E404, from: '2026-10-24' });
    // Saturday 22:00 (CEST); the clocks go back at 03:00 CEST (01:00 UTC).
    now = Date.parse('2026-10-24T22:00:00+02:00');
    await terminal.handshake();
    expect(await terminal.punch([{ pin: pins.E404!, localTime: '2026-10-24 22:00:00' }])).toEqual({ status: 200, body: 'OK:1' });
    // The terminal's handshake after the change tells it +01:00: from then on it shows 02:00–03:00 again.
    now = Date.parse('2026-10-25T01:10:00Z');
    await terminal.handshake();
    now = Date.parse('2026-10-25T01:30:00Z');
    expect(await terminal.punch([{ pin: pins.E404!, localTime: '2026-10-25 02:30:00' }])).toEqual({ status: 200, body: 'OK:1' });
    expect((await punchesOf('E404')).map((p) => [p.local_time, p.flags])).toEqual([
      ['2026-10-24 22:00:00', []],
      ['2026-10-25 02:30:00', ['dst_overlap']],
    ]);

    // Saturday's night, left at 02:30 (the earlier of the two: 00:30 UTC), before its 06:00 end.
    const day = (await server.admin.get('/attendance-days/?employee=E404&from=2026-10-24&to=2026-10-24')).body.results[0];
    expect(day).toMatchObject({ status: 'present', last_out: '2026-10-25T00:30:00.000Z', flags: ['early_leave', 'dst_overlap'] });
    const exported = await csv('/attendance-days/export.csv?from=2026-10-24&to=2026-10-24&employee=E404');
    // The time columns keep their format; the flag says the 02:30 is ambiguous.
    expect(exported.map((r) => [r.first_in, r.last_out, r.flags])).toEqual([['2026-10-24 22:00:00', '2026-10-25 02:30:00', 'early_leave dst_overlap']]);
    const exceptions = await csv('/reports/exceptions.csv?from=2026-10-24&to=2026-10-24&kind=dst_overlap');
    expect(exceptions.map((r) => [r.employee, r.kind, r.last_out])).toEqual([['E404', 'dst_overlap', '2026-10-25 02:30:00']]);
  });
});

describe('a punch of a clock that started over (a flat clock battery)', () => {
  test('is flagged clock_reset, and so is its day, with a row of the exceptions report', async () => {
    now = Date.parse('2026-11-19T08:00:00+01:00');
    terminal.clockOffMs = 0;
    expect(await terminal.punch([{ pin: pins.E405!, localTime: '2000-01-01 00:03:12' }])).toEqual({ status: 200, body: 'OK:1' });
    expect((await punchesOf('E405')).map((p) => [p.local_time, p.flags])).toEqual([['2000-01-01 00:03:12', ['clock_reset']]]);

    const day = (await server.admin.get('/attendance-days/?employee=E405&from=2000-01-01&to=2000-01-01')).body.results[0];
    expect(day.status).toBe('incomplete');
    expect(day.flags).toContain('clock_reset');
    const exported = await csv('/attendance-days/export.csv?from=2000-01-01&to=2000-01-01&employee=E405');
    expect(exported.map((r) => (r.flags ?? '').split(' ').includes('clock_reset'))).toEqual([true]);
    const exceptions = await csv('/reports/exceptions.csv?from=2000-01-01&to=2000-01-01');
    expect(exceptions.filter((r) => r.employee === 'E405').map((r) => [r.kind, r.hours])).toEqual([
      ['missing_punch', ''],
      ['clock_reset', ''],
    ]);
    const chosen = await csv('/reports/exceptions.csv?from=2000-01-01&to=2000-01-01&kind=clock_reset');
    expect(chosen.map((r) => [r.employee, r.kind, r.first_in])).toEqual([['E405', 'clock_reset', '2000-01-01 00:03:12']]);
  });
});
