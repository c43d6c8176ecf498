/**
 * Several instances on one database: a terminal's record is cached on each for two seconds after
 * it was read (README "Scale"), and a terminal that keeps talking to one instance does not make
 * that cache last. A change another instance made (written here straight into the database, as
 * another process writes it: nothing tells this instance) reaches it within the two seconds,
 * however often the terminal uploads. A multi-instance tester's find: each upload pushed the
 * expiry on, and a terminal uploading every 1.5 s was served as it was before the change (its
 * punches taken after it was disabled or removed, read in its old time zone) for as long as it
 * kept uploading.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { devices } from '../../src/app/schema';
import type { Clock } from '../../src/platform/runtime';
import { startTestServer, type TestServer } from '../support/harness';
import { namedTerminal } from '../support/terminals';

let server: TestServer;
let now = Date.parse('2026-11-29T08:00:00Z');
const clock: Clock = { now: () => now };

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC' }, { clock, startJobs: false });
});
afterAll(async () => {
  await server.close();
});

/** One ATTLOG line of PIN 1 at a wall time (days old: a real-time punch would have its drift measured, which reads the record again). */
async function upload(sn: string, localTime: string): Promise<[number, string]> {
  const res = await fetch(`${server.url}/iclock/cdata?SN=${sn}&table=ATTLOG`, { method: 'POST', body: `1\t${localTime}\t0\t1\t0\t0\t0\n` });
  return [res.status, (await res.text()).trim()];
}

describe('a terminal record changed by another instance', () => {
  test('reaches this one within two seconds of its last read, while the terminal keeps uploading here', async () => {
    await namedTerminal(server, 'MULTI001', 'Gate', ['default'], { now: clock.now });
    expect(await upload('MULTI001', '2026-11-20 08:00:00')).toEqual([200, 'OK:1']);
    // Another instance disables it.
    await server.fpa.db.write(async ({ tx }) => {
      await tx.update(devices).set({ status: 'disabled' }).where(eq(devices.serialNumber, 'MULTI001'));
    });
    now += 1_500;
    // Within the two seconds, this instance may still serve its copy…
    expect(await upload('MULTI001', '2026-11-20 08:00:01')).toEqual([200, 'OK:1']);
    now += 1_500;
    // …and not after them, though the upload before came within them.
    expect(await upload('MULTI001', '2026-11-20 08:00:03')).toEqual([403, 'device disabled']);
  });
});
