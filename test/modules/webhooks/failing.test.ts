/**
 * An endpoint that keeps failing, through the real server and a real receiver: a message is
 * sent at most WEBHOOK_MAX_ATTEMPTS times before it is dead-lettered, however many were in
 * flight with it, and each send is logged with its own attempt number; dead letters are
 * failures, so a receiver refusing everything is disabled after WEBHOOK_DISABLE_AFTER; once a
 * delivery is accepted, `last_error` and `failing_since` are cleared and stay cleared.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, punchLines } from '../../support/punch-feed';
import { receiver, waitFor } from '../../support/webhook-receiver';

const MAX_ATTEMPTS = 3;
const DISABLE_AFTER = 1_500;
const settings = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: true,
  WEBHOOK_RETRY_BACKOFF: 50,
  WEBHOOK_MAX_ATTEMPTS: MAX_ATTEMPTS,
  WEBHOOK_TIMEOUT: 2_000,
  WEBHOOK_DISABLE_AFTER: DISABLE_AFTER,
  WEBHOOK_CONCURRENCY: 4,
};
let server: TestServer;
let device: DeviceRow;
let pin = 500;

beforeAll(async () => {
  server = await startTestServer(settings);
  device = await approvedDevice(server, 'FAILING1');
});
afterAll(async () => {
  await server.close();
});

const view = async (id: string, on = server) => (await on.admin.get(`/webhooks/${id}/`)).body;
const messages = async (id: string, query = '', on = server) =>
  (await on.admin.get(`/webhooks/${id}/messages/${query}`)).body.results as { id: string; status: string; attempts: number }[];
const punches = (count: number) => ingest(server, device, punchLines(String(pin++), count));

async function attemptLog(on: TestServer, id: string) {
  const log = (await on.admin.get(`/webhooks/${id}/deliveries/?limit=1000`)).body.results as {
    message_id: string;
    attempt: number;
    status_code: number;
    next_retry_at: string | null;
  }[];
  return log.reverse();
}

describe('a receiver that keeps failing, every message behind the first', () => {
  // Its own server: eighteen failed sends one after another take about WEBHOOK_DISABLE_AFTER
  // above, and on a busy machine longer; an endpoint disabled half-way would leave messages
  // pending, which is the next test's subject, not this one's.
  let own: TestServer;
  let terminal: DeviceRow;
  beforeAll(async () => {
    own = await startTestServer({ ...settings, WEBHOOK_DISABLE_AFTER: 10 * 60_000 });
    terminal = await approvedDevice(own, 'FAILING2');
  });
  afterAll(async () => {
    await own.close();
  });

  test('is sent at most WEBHOOK_MAX_ATTEMPTS times, each send logged with its own attempt', async () => {
    const rx = receiver(() => new Response('not here', { status: 404 }));
    const hook = (await own.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
    try {
      // Six at once: four are in flight together (WEBHOOK_CONCURRENCY) on the first attempt.
      await ingest(own, terminal, punchLines('400', 6));
      await waitFor(
        async () => {
          if ((await view(hook.id, own)).active !== true) throw new Error('the endpoint was disabled before all six were dead-lettered');
          return (await messages(hook.id, '?status=dead', own)).length === 6;
        },
        'all six dead-lettered',
        40_000,
      );
      const dead = await messages(hook.id, '?status=dead', own);
      for (const m of dead) expect(m.attempts).toBe(MAX_ATTEMPTS);
      const sends = new Map<string, number>();
      for (const call of rx.calls) sends.set(call.id, (sends.get(call.id) ?? 0) + 1);
      expect([...sends.values()]).toEqual(dead.map(() => MAX_ATTEMPTS));
      // Each message: attempts 1..MAX logged once each, retried until the last, which is not.
      const log = await attemptLog(own, hook.id);
      for (const m of dead) {
        const mine = log.filter((l) => l.message_id === m.id);
        expect(mine.map((l) => [l.attempt, l.status_code, l.next_retry_at === null])).toEqual([
          [1, 404, false],
          [2, 404, false],
          [3, 404, true],
        ]);
      }
    } finally {
      await own.admin.delete(`/webhooks/${hook.id}/`);
      rx.stop();
    }
  });
});

describe('a receiver that keeps failing', () => {
  test('refusing every message (dead letters): disabled after WEBHOOK_DISABLE_AFTER, failing_since kept from the first failure', async () => {
    const rx = receiver(() => new Response('not here', { status: 404 }));
    const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
    let feeding = true;
    // A punch every 400 ms (deliveries wait for a 250 ms pause in uploads): each is dead-lettered
    // within a few hundred milliseconds.
    const feed = (async () => {
      while (feeding) {
        await punches(1);
        await Bun.sleep(400);
      }
    })();
    try {
      await waitFor(async () => (await view(hook.id)).failing_since !== null, 'the first failure');
      const since = (await view(hook.id)).failing_since as string;
      await waitFor(async () => (await messages(hook.id, '?status=dead')).length >= 2, 'two dead letters');
      const failing = await view(hook.id);
      expect(failing).toMatchObject({ active: true, failing_since: since, last_error: 'HTTP 404' });
      await waitFor(async () => (await view(hook.id)).active === false, 'the endpoint disabled', 4 * DISABLE_AFTER);
      const disabled = await view(hook.id);
      expect(disabled.failing_since).toBe(since);
      expect(disabled.disabled_reason).toBe(`failing continuously since ${since}`);
      expect(Date.now() - Date.parse(since)).toBeGreaterThanOrEqual(DISABLE_AFTER);
      const audit = (await server.admin.get('/audit-log/?action=webhook.disabled')).body.results as { target_id: string }[];
      expect(audit.map((a) => a.target_id)).toContain(hook.id);
    } finally {
      feeding = false;
      await feed;
      await server.admin.delete(`/webhooks/${hook.id}/`);
      rx.stop();
    }
  });

  test('one message refused, then nothing to send: a quiet endpoint is not disabled, however long the quiet lasts', async () => {
    const rx = receiver(() => new Response('not here', { status: 404 }));
    const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
    try {
      await punches(1);
      await waitFor(async () => (await messages(hook.id, '?status=dead')).length >= 1, 'the message dead-lettered');
      expect((await view(hook.id)).failing_since).not.toBeNull();
      // Quiet for twice WEBHOOK_DISABLE_AFTER, while the delivery job keeps claiming the endpoint.
      const until = Date.now() + 2 * DISABLE_AFTER;
      while (Date.now() < until) {
        expect((await server.admin.post('/jobs/deliver-webhooks/run/')).status).toBe(200);
        await Bun.sleep(250);
      }
      expect((await view(hook.id)).active).toBe(true);
    } finally {
      await server.admin.delete(`/webhooks/${hook.id}/`);
      rx.stop();
    }
  });

  test('healthy again: once a delivery is accepted, last_error and failing_since are cleared and stay cleared', async () => {
    let status = 404;
    const rx = receiver(() => new Response(null, { status }));
    const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
    try {
      await punches(3);
      await waitFor(async () => (await messages(hook.id, '?status=dead')).length >= 1, 'a dead letter');
      expect(await view(hook.id)).toMatchObject({ last_error: 'HTTP 404', active: true });
      status = 200;
      const recovered = await server.admin.post(`/webhooks/${hook.id}/recover/`, { since: new Date(Date.now() - 60_000).toISOString() });
      expect(recovered.status).toBe(200);
      await waitFor(async () => (await messages(hook.id)).every((m) => m.status === 'delivered'), 'everything delivered');
      // Past the run's linger and its last write (the endpoint's claim given up).
      await waitFor(
        async () =>
          (await server.fpa.db.client.execute({ sql: 'select claim_token from fpa_webhook_endpoints where id = ?', args: [hook.id] })).rows[0]?.claim_token ===
          null,
        'the claim given up',
      );
      expect(await view(hook.id)).toMatchObject({ last_error: null, failing_since: null, attempts: 0, active: true });
      await punches(1);
      await waitFor(async () => (await messages(hook.id)).every((m) => m.status === 'delivered'), 'the next one delivered');
      await Bun.sleep(1_000);
      expect(await view(hook.id)).toMatchObject({ last_error: null, failing_since: null, attempts: 0 });
    } finally {
      await server.admin.delete(`/webhooks/${hook.id}/`);
      rx.stop();
    }
  });
});
