/**
 * A receiver that refuses with a 4xx and then comes back, as an integrator met it: with
 * WEBHOOK_MAX_ATTEMPTS 2, a failing endpoint is sent one message per try whatever the answer
 * (a 404 dead-letters one message per retry, as a 500 retries one), never a burst that
 * dead-letters every message it had in flight; once the receiver is back, `recover` sends the
 * dead messages again and the first one accepted ends the failing period: `failing_since` and
 * `last_error` are cleared and `last_delivered_at` is when it was accepted. The worker is off:
 * each try is the `deliver-webhooks` job run at the time the retry falls due (the clock moved).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, punchLines } from '../../support/punch-feed';
import { receiver } from '../../support/webhook-receiver';

let offset = 0;
const clock = { now: () => Date.now() + offset };
let server: TestServer;
let device: DeviceRow;
let pin = 1;

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_MAX_ATTEMPTS: 2, WEBHOOK_WORKER: false, WEBHOOK_TIMEOUT: 2_000 }, { clock });
  device = await approvedDevice(server, 'REFUSE01');
});
afterAll(async () => {
  await server.close();
});

const run = async () => (await server.admin.post('/jobs/deliver-webhooks/run/')).body.result as Record<string, number>;
const view = async (id: string) => (await server.admin.get(`/webhooks/${id}/`)).body;
const dead = async (id: string) => (await server.admin.get(`/webhooks/${id}/messages/?status=dead`)).body.results as { id: string }[];

/** Moves the clock to the endpoint's next try and runs it. */
async function nextTry(id: string): Promise<Record<string, number>> {
  const due = Date.parse((await view(id)).next_attempt_at);
  expect(Number.isFinite(due)).toBe(true);
  offset += due - clock.now() + 1;
  return run();
}

describe('a receiver refusing with a 4xx, then back', () => {
  for (const status of [500, 404]) {
    test(`answering ${status}: after the first round, one message per try`, async () => {
      const rx = receiver(() => new Response('no', { status }));
      try {
        const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
        await ingest(server, device, punchLines(String(pin++), 3));
        // The first round: not failing yet, the three are in flight together.
        await run();
        expect(rx.calls).toHaveLength(3);
        // Failing: each try sends the first message after the position, and only it.
        for (let round = 1; round <= 3; round++) {
          await nextTry(hook.id);
          expect([round, rx.calls.length]).toEqual([round, 3 + round]);
        }
        // A 404 at the last attempt dead-letters that message (one per try); a 500 never does.
        expect((await dead(hook.id)).length).toBe(status === 404 ? 3 : 0);
        await server.admin.delete(`/webhooks/${hook.id}/`);
      } finally {
        rx.stop();
      }
    });
  }

  test('recover sends the dead messages again; the first one accepted ends the failing period', async () => {
    let status = 404;
    const rx = receiver(() => new Response(null, { status }));
    try {
      const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
      await ingest(server, device, punchLines(String(pin++), 3));
      await run();
      while ((await dead(hook.id)).length < 3) await nextTry(hook.id);
      const failing = await view(hook.id);
      expect(failing).toMatchObject({ last_error: 'HTTP 404', last_delivered_at: null });
      expect(failing.failing_since).not.toBeNull();

      status = 200;
      offset += 60_000;
      const recoveredAt = clock.now();
      const recovered = await server.admin.post(`/webhooks/${hook.id}/recover/`, { since: new Date(recoveredAt - 3_600_000).toISOString() });
      expect(recovered.body).toEqual({ requeued: 3 });
      const sent = rx.calls.length;
      expect(await run()).toMatchObject({ messages: 3, delivered: 3 });
      expect(rx.calls.length).toBe(sent + 3);
      expect((await server.admin.get(`/webhooks/${hook.id}/messages/?status=delivered`)).body.results).toHaveLength(3);

      const after = await view(hook.id);
      expect(after).toMatchObject({ active: true, failing_since: null, last_error: null, next_attempt_at: null });
      expect(Date.parse(after.last_delivered_at)).toBeGreaterThanOrEqual(recoveredAt);
      await server.admin.delete(`/webhooks/${hook.id}/`);
    } finally {
      rx.stop();
    }
  });
});
