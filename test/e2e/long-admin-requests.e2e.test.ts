/**
 * An administrator's request answers however long its work takes. Bun closes a connection that
 * sends and receives nothing for its idle timeout (30 s under Elysia) even while the handler still
 * runs: at ten million punches a purge run over the API was answered with a reset connection
 * after 30 s while the job went on, as would be any GET that takes as long before its first byte.
 * Here the timeout is 1 s, and the writer is held longer than Bun takes to act on it (it checks
 * its timeouts every 4 s: a 1 s timeout closed connections 4 to 8 s in), so any request that writes
 * waits that long.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { admsFetch } from '../support/adms';
import { startTestServer, type TestServer } from '../support/harness';

/** Past the latest moment a 1 s idle timeout can fire (two 4 s ticks). */
const HOLD_MS = 9_000;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { idleTimeoutSeconds: 1 });
});
afterAll(async () => {
  await server?.close();
});

/** Keeps the database's writer busy (a long write ahead of every other) for `ms`, or until `until` settles. */
function holdWriter(ms: number, until?: Promise<unknown>): Promise<unknown> {
  const ends: Promise<unknown>[] = [Bun.sleep(ms)];
  if (until) ends.push(until.catch(() => undefined));
  return server.fpa.db.write(() => Promise.race(ends));
}

describe('a long administrator request', () => {
  test('a job run that waits longer than the idle timeout is answered with its outcome', async () => {
    const held = holdWriter(HOLD_MS);
    const started = performance.now();
    // Without a body, as the bench sent it: in our trials Bun timed out GETs and body-less POSTs,
    // not POSTs that carried a body (so the `fpa:*` scripts, which send their parameters, were spared).
    const run = await server.admin.request<{ status: string }>('POST', '/jobs/purge-retention/run/');
    expect(performance.now() - started).toBeGreaterThan(HOLD_MS - 500);
    expect(run.status).toBe(200);
    expect(run.body.status).toBe('succeeded');
    await held;
  }, 30_000);

  // Shows the timeout bites here, so the test above would fail without the exemption. A terminal
  // keeps it: its answers take seconds at most, and it asks again on its next cycle.
  test("the control: a new terminal's first request, waiting as long, has its connection closed", async () => {
    // The writer is let go as soon as the answer (or the reset) comes.
    const gate = Promise.withResolvers<void>();
    const held = holdWriter(3 * HOLD_MS, gate.promise);
    const handshake = admsFetch(server.url, '/iclock/cdata?SN=IDLE0002&options=all&pushver=2.4.1');
    await expect(handshake.finally(() => gate.resolve())).rejects.toThrow(/ECONNRESET|closed/);
    await held;
  }, 40_000);
});
