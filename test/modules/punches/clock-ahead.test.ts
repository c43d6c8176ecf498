/**
 * A punch dated after it arrived is flagged `clock_ahead` as it is stored (punches/service.ts):
 * beyond the drift tolerance DEVICE_CLOCK_DRIFT_MAX (here 10 minutes), never less than a minute.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, punchLines } from '../../support/punch-feed';

const now = Date.parse('2026-11-16T07:00:00Z');
const MINUTE = 60_000;
let server: TestServer;
let device: DeviceRow;

beforeAll(async () => {
  server = await startTestServer({ DEVICE_CLOCK_DRIFT_MAX: '10m' }, { clock: { now: () => now } });
  device = await approvedDevice(server, 'AHEAD010');
});
afterAll(async () => {
  await server.close();
});

describe('clock_ahead', () => {
  test('follows DEVICE_CLOCK_DRIFT_MAX: a punch 9 minutes ahead of its arrival is not flagged, one 11 minutes ahead is', async () => {
    const lines = [...punchLines('1', 1, now - 5 * MINUTE), ...punchLines('2', 1, now + 9 * MINUTE), ...punchLines('3', 1, now + 11 * MINUTE)];
    expect(await ingest(server, device, lines)).toMatchObject({ inserted: 3 });
    const listed = (await server.admin.get('/punches/?device=AHEAD010&limit=10')).body.results as {
      device_pin: string;
      received_at: string;
      flags: string[];
    }[];
    expect(Object.fromEntries(listed.map((p) => [p.device_pin, p.flags.filter((f) => f !== 'unknown_pin')]))).toEqual({ 1: [], 2: [], 3: ['clock_ahead'] });
    expect(listed.every((p) => p.received_at === new Date(now).toISOString())).toBe(true);
  });
});
