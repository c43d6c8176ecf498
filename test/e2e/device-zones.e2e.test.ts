/**
 * Time zones through the real server. A terminal's zone: only IANA names are taken (a fixed offset
 * such as `+02:00` has no DST rules, though Intl accepts it), stored as the tz database spells
 * them, and what the terminal is told at its handshake follows from that. Wall times a person
 * types (manual punches, imports) in ATTENDANCE_TIME_ZONE: a skipped or repeated one is read by
 * the terminals' DST rule and flagged as theirs are.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

let now = Date.parse('2026-07-01T10:00:00Z');
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC', ATTENDANCE_TIME_ZONE: 'America/New_York' }, { clock: { now: () => now } });
  expect((await server.admin.post('/devices/', { serial_number: 'ZONE0001' })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

describe('a terminal’s time zone', () => {
  test.each(['+02:00', '+05:30', '-0800', 'UTC+2', 'GMT+2', 'Z', 'Mars/Olympus'])('%s is refused (400), nothing stored', async (zone) => {
    const patched = await server.admin.patch('/devices/ZONE0001/', { time_zone: zone });
    expect({ zone, status: patched.status, field: patched.body.error?.details?.field }).toEqual({ zone, status: 400, field: 'time_zone' });
    const created = await server.admin.post('/devices/', { serial_number: 'ZONE0002', time_zone: zone });
    expect(created.status).toBe(400);
    expect((await server.admin.get('/devices/ZONE0001/')).body.time_zone).toBe('UTC');
    expect((await server.admin.get('/devices/ZONE0002/')).status).toBe(404);
  });

  test('an IANA name in another letter case is stored as the tz database spells it; Etc/GMT-2 is UTC+2', async () => {
    const patched = await server.admin.patch('/devices/ZONE0001/', { time_zone: 'europe/berlin' });
    expect(patched.status).toBe(200);
    expect(patched.body.time_zone).toBe('Europe/Berlin');
    const created = await server.admin.post('/devices/', { serial_number: 'ZONE0003', time_zone: 'etc/gmt-2' });
    expect(created.status).toBe(201);
    expect(created.body.time_zone).toBe('Etc/GMT-2');
    const t = new SimulatedTerminal({ url: server.url, sn: 'ZONE0003', now: () => now });
    expect((await t.handshake()).TimeZone).toBe('120');
  });
});

describe('wall times typed in ATTENDANCE_TIME_ZONE', () => {
  let person: string;
  beforeAll(async () => {
    now = Date.parse('2026-11-20T12:00:00Z');
    expect((await server.admin.post('/employees/', { id: 'NY-1', name: 'Nia' })).status).toBe(201);
    const e = await server.admin.post('/enrollees/', { employee: 'NY-1' });
    expect(e.status).toBe(201);
    person = e.body.id;
  });

  test('a manual punch in the spring gap or the autumn overlap: the terminals’ rule, flagged', async () => {
    const gap = await server.admin.post('/punches/manual/', { enrollee: person, at: '2026-03-08 02:30', reason: 'reader down' });
    expect(gap.status).toBe(201);
    // 02:30 never happened in New York: read with the offset before the gap (−05:00).
    expect(gap.body).toMatchObject({ punched_at: '2026-03-08T07:30:00.000Z', flags: ['dst_gap'] });
    const overlap = await server.admin.post('/punches/manual/', { enrollee: person, at: '2026-11-01 01:30', reason: 'reader down' });
    expect(overlap.status).toBe(201);
    // 01:30 happened twice: the earlier (−04:00).
    expect(overlap.body).toMatchObject({ punched_at: '2026-11-01T05:30:00.000Z', flags: ['dst_overlap'] });
    const exact = await server.admin.post('/punches/manual/', { enrollee: person, at: '2026-11-02 09:00', reason: 'reader down' });
    expect(exact.body.flags).toEqual([]);
  });

  test('an import flags them the same way', async () => {
    const res = await server.admin.post('/punches/import/', [
      { employee: 'NY-1', at: '2026-03-08 02:45' },
      { employee: 'NY-1', at: '2026-11-01 01:45' },
    ]);
    expect(res.body).toMatchObject({ imported: 2, errors: [] });
    const page = await server.admin.get('/punches/?employee=NY-1&limit=100');
    const byTime = Object.fromEntries(
      (page.body.results as { punched_at: string; flags: string[] }[]).map((p) => [p.punched_at, p.flags.filter((f) => f.startsWith('dst_'))]),
    );
    expect(byTime['2026-03-08T07:45:00.000Z']).toEqual(['dst_gap']);
    expect(byTime['2026-11-01T05:45:00.000Z']).toEqual(['dst_overlap']);
  });
});
