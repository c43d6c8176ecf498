/**
 * A terminal back from a short network outage uploads the punches it kept meanwhile, minutes old:
 * they are a backlog, not a measure of its clock, so it is not flagged `clock_drifting`. A punch
 * made after its return still measures a clock that is off (README "Decisions", clock drift).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { approvedTerminal, enrolledPerson } from '../support/terminals';

const MINUTE = 60_000;
let now = Date.parse('2026-11-16T09:00:00Z');
let server: TestServer;
let pin: string;

async function drifting(sn: string): Promise<{ clock_drift_seconds: number | null; clock_drifting: boolean }> {
  const res = await server.admin.get(`/devices/${sn}/`);
  expect(res.status).toBe(200);
  return { clock_drift_seconds: res.body.clock_drift_seconds, clock_drifting: res.body.clock_drifting };
}

/** A punch the terminal made `minutesAgo` minutes ago by its own clock, uploaded now. */
async function upload(t: SimulatedTerminal, minutesAgo: number): Promise<void> {
  const made = now - minutesAgo * MINUTE + (t.clockOffMs ?? 0);
  const localTime = new Date(made).toISOString().slice(0, 19).replace('T', ' ');
  expect(await t.punch([{ pin, localTime }])).toEqual({ status: 200, body: 'OK:1' });
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC' }, { clock: { now: () => now } });
  pin = (await enrolledPerson(server, 'E-OUT', 'Otto Outage', ['gate'])).device_pin;
});
afterAll(async () => {
  await server?.close();
});

describe('a terminal back from a short outage', () => {
  test('its punch kept while it was away is no clock drift; one made after its return measures the clock', async () => {
    const right = await approvedTerminal(server, 'OUTAGE01', ['gate'], { now: () => now });
    await upload(right, 0);
    expect(await drifting('OUTAGE01')).toEqual({ clock_drift_seconds: 0, clock_drifting: false });
    // Six minutes without a word (DEVICE_OFFLINE_AFTER is five), then the punch of five minutes ago.
    now += 6 * MINUTE;
    await upload(right, 5);
    expect(await drifting('OUTAGE01')).toEqual({ clock_drift_seconds: 0, clock_drifting: false });

    // A clock five minutes slow: its punches after the return still tell.
    const slow = await approvedTerminal(server, 'OUTAGE02', ['gate'], { now: () => now });
    slow.clockOffMs = -5 * MINUTE;
    now += 6 * MINUTE;
    await upload(slow, 0);
    // Polling every minute since: once its clock reads past its return, its punches measure it.
    for (let i = 0; i < 6; i++) {
      now += MINUTE;
      await slow.poll();
    }
    await upload(slow, 0);
    expect(await drifting('OUTAGE02')).toMatchObject({ clock_drift_seconds: -300, clock_drifting: true });
  });
});
