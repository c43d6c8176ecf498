/**
 * A day off worked, through the real server (an HR officer's finding): a day shift 08:00–16:30
 * with a 30-minute unpaid break, Monday to Friday, for the area `south`; a holiday on Thursday
 * 19 November 2026. E231 works the Wednesday and the holiday with the same punches, 07:57 12:00
 * 12:20 16:30 (8:13 of pairs, 20 minutes out). The workday's row names its schedule and has the
 * rest of its break deducted (8:03); the holiday's row names no schedule, so no schedule's break
 * is taken from it: 8:13 worked, all overtime. The export explains its own numbers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseCsv } from '../../src/platform/csv';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
const now = Date.parse('2026-11-23T09:00:00+01:00');
let server: TestServer;
let terminal: SimulatedTerminal;
let pin = '';

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

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  await created('/employees/', { id: 'E231', name: 'Lena Wolf' });
  pin = (await created('/enrollees/', { employee: 'E231', areas: ['south'] })).device_pin;
  terminal = new SimulatedTerminal({ url: server.url, sn: 'TERMS001', timeZone: ZONE });
  await terminal.handshake();
  expect((await server.admin.post('/devices/TERMS001/approve/', { areas: ['south'] })).status).toBe(200);
  await created('/work-schedules/', { name: 'day', start: '08:00', end: '16:30', grace_in: '5m', grace_out: '5m', break: '30m', weekdays: [1, 2, 3, 4, 5] });
  await created('/shift-assignments/', { schedule: 'day', area: 'south', from: '2026-11-01' });
  await created('/holidays/', { date: '2026-11-19', name: 'Day of prayer', areas: ['south'] });
  const lines = ['2026-11-18', '2026-11-19'].flatMap((date) => ['07:57', '12:00', '12:20', '16:30'].map((time) => ({ pin, localTime: `${date} ${time}:00` })));
  expect(await terminal.punch(lines)).toEqual({ status: 200, body: 'OK:8' });
});
afterAll(async () => {
  await server.close();
});

describe('a holiday worked', () => {
  test('names no schedule and has no break deducted: its worked time is its pairs, all overtime; a workday keeps its break', async () => {
    const rows = await csv('/attendance-days/export.csv?from=2026-11-18&to=2026-11-19&employee=E231');
    const shown = rows.map((r) => [r.date, r.status, r.schedule, r.worked, r.expected, r.overtime, r.flags]);
    expect(shown).toEqual([
      ['2026-11-18', 'present', 'day', '8:03', '8:00', '0:00', ''],
      ['2026-11-19', 'present', '', '8:13', '0:00', '8:13', 'worked_on_holiday overtime'],
    ]);
    // The days as the API and the summary give them.
    const days = await server.admin.get('/attendance-days/?employee=E231&from=2026-11-19&to=2026-11-19');
    expect(days.body.results[0]).toMatchObject({ schedule: null, worked_seconds: 8 * 3600 + 13 * 60, overtime_seconds: 8 * 3600 + 13 * 60 });
    const summary = await server.admin.get('/attendance-summary/?from=2026-11-18&to=2026-11-19&employee=E231');
    expect(summary.body.results[0]).toMatchObject({ worked_seconds: 16 * 3600 + 16 * 60, overtime_seconds: 8 * 3600 + 13 * 60 });
  });
});
