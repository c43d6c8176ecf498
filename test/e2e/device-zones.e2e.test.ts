/**
 * A terminal's time zone through the real server: only IANA names are taken (a fixed offset such
 * as `+02:00` has no DST rules, though Intl accepts it), stored as the tz database spells them,
 * and what the terminal is told at its handshake follows from that.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

const now = Date.parse('2026-07-01T10:00:00Z');
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC' }, { clock: { now: () => now } });
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
