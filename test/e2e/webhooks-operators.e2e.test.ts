/**
 * Webhooks for operators, through the real server, real receivers on 127.0.0.1 and the
 * `standardwebhooks` package as a receiver uses it:
 * - WEBHOOK_ALLOWED_NETWORKS opens chosen networks: an endpoint on 127.0.0.1 is accepted only
 *   when 127.0.0.0/8 or 127.0.0.1/32 is listed, refused again at delivery when the list no
 *   longer holds it; 169.254.169.254 is refused even with WEBHOOK_ALLOW_PRIVATE_NETWORKS;
 * - a secret rotation: during WEBHOOK_SECRET_ROTATION_OVERLAP a receiver verifying with the old
 *   secret and one with the new both accept every delivery; after it only the new;
 * - a receiver answering 404 for hours (a misrouted path during a deploy) gets everything once
 *   it is back, nothing dead-lettered; 410 still disables;
 * - a message queued by hand retries as long as the endpoint's own delivery would (until failing
 *   for WEBHOOK_DISABLE_AFTER), not about five hours.
 * The clock is injected and moved; the worker is off, each pass is the `deliver-webhooks` job.
 */
import { afterAll, beforeAll, describe, expect, setSystemTime, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import type { DeviceRow } from '../../src/modules/devices/tables';
import { generateEncryptionKey } from '../../src/platform/crypto/template-cipher';
import { startTestServer, TEST_KEY, type TestServer, tempDir } from '../support/harness';
import { approvedDevice, ingest, punchLines } from '../support/punch-feed';
import { type ReceivedCall, receiver, waitFor } from '../support/webhook-receiver';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Verifies a call as a receiver would at the moment it came (the package checks the timestamp against its clock). */
function verifies(secret: string, call: ReceivedCall): boolean {
  setSystemTime(new Date(Number(call.headers['webhook-timestamp']) * 1000));
  try {
    new Webhook(secret).verify(call.body, call.headers);
    return true;
  } catch {
    return false;
  } finally {
    setSystemTime();
  }
}

describe('WEBHOOK_ALLOWED_NETWORKS', () => {
  const servers: TestServer[] = [];
  const rx = receiver(() => new Response(null, { status: 204 }));
  afterAll(async () => {
    rx.stop();
    for (const s of servers) await s.close();
  });
  const start = async (settings: Record<string, unknown>, options: Parameters<typeof startTestServer>[1] = {}) => {
    const server = await startTestServer({ WEBHOOK_RETRY_BACKOFF: 50, WEBHOOK_TIMEOUT: 2_000, ...settings }, options);
    servers.push(server);
    return server;
  };

  test('a receiver on 127.0.0.1 is accepted only when a listed network holds it', async () => {
    for (const [networks, accepted] of [
      [[], false],
      [['10.0.0.0/8', 'fd00::/8'], false],
      [['127.0.0.2/32'], false],
      [['127.0.0.0/8'], true],
      [['127.0.0.1/32'], true],
      [['192.168.0.0/16', '127.0.0.1'], true],
    ] as const) {
      const server = await start({ WEBHOOK_ALLOWED_NETWORKS: [...networks] });
      const created = await server.admin.post('/webhooks/', { url: rx.url });
      expect([networks, created.status]).toEqual([networks, accepted ? 201 : 422]);
      if (!accepted) expect(created.body.error).toMatchObject({ code: 'webhook_url_refused', message: expect.stringContaining('WEBHOOK_ALLOWED_NETWORKS') });
    }
  });

  test('a receiver on a public address must be https; plain http only on the networks opened', async () => {
    const server = await start({ WEBHOOK_ALLOWED_NETWORKS: ['127.0.0.1/32'] });
    const plain = await server.admin.post('/webhooks/', { url: 'http://93.184.216.34/hook' });
    expect(plain.status).toBe(422);
    expect(plain.body.error).toMatchObject({ code: 'webhook_url_refused', message: expect.stringContaining('use https') });
    expect((await server.admin.post('/webhooks/', { url: 'https://93.184.216.34/hook' })).status).toBe(201);
    expect((await server.admin.post('/webhooks/', { url: rx.url })).status).toBe(201);
  });

  test('the metadata and link-local addresses are refused whatever the settings; the old switch still opens loopback', async () => {
    const server = await start({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_ALLOWED_NETWORKS: ['0.0.0.0/0', '::/0'] });
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]/x', 'http://[::ffff:169.254.169.254]/x', 'http://[fd00:ec2::254]/x']) {
      const refused = await server.admin.post('/webhooks/', { url });
      expect([url, refused.status, refused.body.error.message]).toEqual([url, 422, expect.stringContaining('never allowed')]);
    }
    expect((await server.admin.post('/webhooks/', { url: rx.url })).status).toBe(201);
    expect((await server.admin.post('/webhooks/', { url: 'http://10.1.2.3/x' })).status).toBe(201);
  });

  test('delivery checks the address again: an endpoint whose network is no longer listed is not sent to', async () => {
    const open = await start({ WEBHOOK_ALLOWED_NETWORKS: ['127.0.0.1/32'] });
    const device = await approvedDevice(open, 'CIDR0001');
    const hook = (await open.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
    await ingest(open, device, punchLines('1', 1));
    await waitFor(() => rx.calls.length === 1, 'the first delivery');
    await open.stop();
    const narrowed = await start({ WEBHOOK_ALLOWED_NETWORKS: ['10.0.0.0/8'] }, { dir: open.dir });
    await ingest(narrowed, device, punchLines('2', 1));
    await waitFor(
      async () => (await narrowed.admin.get(`/webhooks/${hook.id}/deliveries/`)).body.results.some((d: { error: string | null }) => d.error !== null),
      'a refused attempt',
    );
    const log = (await narrowed.admin.get(`/webhooks/${hook.id}/deliveries/`)).body.results as { status_code: number | null; error: string | null }[];
    expect(log[0]).toMatchObject({ status_code: null, error: expect.stringContaining('URL refused') });
    expect(rx.calls).toHaveLength(1);
  });
});

describe('with the clock moved', () => {
  let offset = 0;
  const clock = { now: () => Date.now() + offset };
  let server: TestServer;
  let device: DeviceRow;
  let pin = 1;

  beforeAll(async () => {
    server = await startTestServer(
      { WEBHOOK_ALLOWED_NETWORKS: ['127.0.0.0/8'], WEBHOOK_TIMEOUT: 2_000, WEBHOOK_WORKER: false, WEBHOOK_CONCURRENCY: 1 },
      { clock },
    );
    device = await approvedDevice(server, 'OPS00001');
  });
  afterAll(async () => {
    await server.close();
  });
  const run = async () => (await server.admin.post('/jobs/deliver-webhooks/run/')).body.result as Record<string, number>;
  const punch = (count = 1) => ingest(server, device, punchLines(String(pin++), count));

  test('a rotated secret: both signatures during the overlap, the new one alone after it, the old secret dropped', async () => {
    const rx = receiver(() => new Response(null, { status: 204 }));
    try {
      const created = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string; secret: string };
      await punch();
      expect(await run()).toMatchObject({ delivered: 1 });
      expect(rx.calls[0]!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
      expect(verifies(created.secret, rx.calls[0]!)).toBe(true);

      const rotated = await server.admin.post(`/webhooks/${created.id}/rotate-secret/`);
      expect(rotated.status).toBe(200);
      const secret = rotated.body.secret as string;
      expect(secret).toMatch(/^whsec_/);
      expect(secret).not.toBe(created.secret);
      expect(Date.parse(rotated.body.previous_secret_valid_until) - clock.now()).toBeWithin(DAY - 60_000, DAY + 1);
      // Shown this once: never in the endpoint's view, and sealed at rest like the first.
      const view = (await server.admin.get(`/webhooks/${created.id}/`)).body;
      expect(view.secret).toBeUndefined();
      expect(view.previous_secret_valid_until).toBe(rotated.body.previous_secret_valid_until);
      const stored = await server.fpa.db.client.execute({ sql: 'select secret, previous_secret from fpa_webhook_endpoints where id = ?', args: [created.id] });
      expect(String(stored.rows[0]!.secret)).toStartWith('sealed1:');
      expect(String(stored.rows[0]!.previous_secret)).toStartWith('sealed1:');
      const audit = await server.admin.get('/audit-log/?action=webhook.secret_rotated');
      expect(audit.body.results[0]).toMatchObject({
        target_id: created.id,
        details: { previous_secret_valid_until: rotated.body.previous_secret_valid_until },
      });

      // During the overlap every delivery (and a test send) verifies with either secret.
      await punch();
      expect(await run()).toMatchObject({ delivered: 1 });
      expect((await server.admin.post(`/webhooks/${created.id}/test/`)).body.status_code).toBe(204);
      offset += 23 * HOUR;
      await punch();
      expect(await run()).toMatchObject({ delivered: 1 });
      for (const call of rx.calls.slice(1)) {
        expect(call.headers['webhook-signature']!.split(' ')).toHaveLength(2);
        expect(verifies(created.secret, call)).toBe(true);
        expect(verifies(secret, call)).toBe(true);
      }
      expect(verifies('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', rx.calls[1]!)).toBe(false);

      // After it: the new secret alone, and the old one leaves the database.
      offset += 2 * HOUR;
      const before = rx.calls.length;
      await punch();
      expect(await run()).toMatchObject({ delivered: 1 });
      const after = rx.calls[before]!;
      expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
      expect(verifies(secret, after)).toBe(true);
      expect(verifies(created.secret, after)).toBe(false);
      await waitFor(async () => {
        const rs = await server.fpa.db.client.execute({ sql: 'select previous_secret from fpa_webhook_endpoints where id = ?', args: [created.id] });
        return rs.rows[0]!.previous_secret === null;
      }, 'the old secret dropped');
      expect((await server.admin.get(`/webhooks/${created.id}/`)).body.previous_secret_valid_until).toBeNull();
      expect((await server.admin.post('/webhooks/00000000-0000-4000-8000-000000000000/rotate-secret/')).status).toBe(404);
      await server.admin.delete(`/webhooks/${created.id}/`);
    } finally {
      rx.stop();
    }
  });

  test('a receiver answering 404 for hours gets everything, in order, once it is back: nothing dead, no recover', async () => {
    let status = 404;
    const accepted: string[] = [];
    const rx = receiver((_, call) => {
      if (status === 204) accepted.push(call.id);
      return new Response(null, { status });
    });
    try {
      const created = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string; position: number };
      await punch(3);
      expect(await run()).toMatchObject({ delivered: 0, dead: 0, retrying: 1 });
      // Fourteen more hours of 404, each run past the retry due (attempts 2 to 8 of the first
      // message; only from attempt WEBHOOK_MAX_ATTEMPTS, 12, would a 4xx dead-letter it).
      for (let i = 0; i < 7; i++) {
        offset += 2 * HOUR;
        expect(await run()).toMatchObject({ delivered: 0, dead: 0, retrying: 1 });
      }
      const backingOff = (await server.admin.get(`/webhooks/${created.id}/`)).body;
      expect(backingOff).toMatchObject({ active: true, attempts: 8, last_error: 'HTTP 404' });
      status = 204;
      offset += 2 * HOUR;
      expect(await run()).toMatchObject({ delivered: 3, dead: 0 });
      const events = (await server.admin.get(`/events/?after=${created.position}&type=punch_received&limit=10`)).body.results as { id: string }[];
      expect(accepted).toEqual(events.map((e) => e.id));
      expect((await server.admin.get(`/webhooks/${created.id}/messages/?status=dead`)).body.results).toEqual([]);

      // 410 Gone still disables the endpoint at once.
      status = 410;
      await punch();
      await run();
      expect((await server.admin.get(`/webhooks/${created.id}/`)).body).toMatchObject({ active: false, disabled_reason: expect.stringContaining('410') });
      await server.admin.delete(`/webhooks/${created.id}/`);
    } finally {
      rx.stop();
    }
  });

  test('a message queued by hand retries as long as the endpoint would: still trying after a day, dead after WEBHOOK_DISABLE_AFTER', async () => {
    let status = 204;
    const rx = receiver(() => new Response(null, { status }));
    try {
      const created = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
      await punch();
      expect(await run()).toMatchObject({ delivered: 1 });
      const [message] = (await server.admin.get(`/webhooks/${created.id}/messages/`)).body.results as { id: string }[];
      status = 503;
      expect((await server.admin.post(`/webhooks/${created.id}/messages/${message!.id}/redeliver/`)).status).toBe(200);
      expect(await run()).toMatchObject({ messages: 1, retrying: 1 });
      const firstFailure = clock.now();
      // Every 6 hours (past each retry, an hour apart at most): 13 attempts after three days,
      // where the old limit (WEBHOOK_MAX_ATTEMPTS, ≈5 h) had dead-lettered it at 12.
      let attempts = 1;
      while (clock.now() - firstFailure < 7 * DAY - 6 * HOUR) {
        offset += 6 * HOUR;
        if (clock.now() - firstFailure >= 7 * DAY) break;
        expect(await run()).toMatchObject({ messages: 1, retrying: 1, dead: 0 });
        attempts++;
      }
      expect(attempts).toBeGreaterThan(20);
      const [pending] = (await server.admin.get(`/webhooks/${created.id}/messages/?status=pending`)).body.results as { attempts: number }[];
      expect(pending).toMatchObject({ attempts, last_error: 'HTTP 503' });
      // Failing for WEBHOOK_DISABLE_AFTER (7 days by default): dead, `recover` sends it again.
      offset += 12 * HOUR;
      expect(await run()).toMatchObject({ messages: 1, dead: 1 });
      const [dead] = (await server.admin.get(`/webhooks/${created.id}/messages/?status=dead`)).body.results as { id: string; last_error: string }[];
      expect(dead).toMatchObject({ id: message!.id, attempts: attempts + 1, last_error: expect.stringContaining('failing since') });
      status = 204;
      expect((await server.admin.post(`/webhooks/${created.id}/recover/`, { since: '2000-01-01T00:00:00Z' })).body).toEqual({ requeued: 1 });
      expect(await run()).toMatchObject({ messages: 1, delivered: 1 });
    } finally {
      rx.stop();
    }
  });
});

describe('a rotation under way and the key ring', () => {
  test('rotate-keys re-seals the old secret too: with only the new key both signatures still verify', async () => {
    const tmp = tempDir('fpa-hook-rotation-');
    const rx = receiver(() => new Response(null, { status: 204 }));
    const settings = { WEBHOOK_ALLOWED_NETWORKS: ['127.0.0.1/32'], WEBHOOK_WORKER: false, WEBHOOK_TIMEOUT: 2_000 };
    let server = await startTestServer({ ...settings, TEMPLATE_ENCRYPTION_KEYS: [TEST_KEY] }, { dir: tmp.dir });
    try {
      const created = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string; secret: string };
      const secret = (await server.admin.post(`/webhooks/${created.id}/rotate-secret/`)).body.secret as string;
      await server.close();
      const newKey = generateEncryptionKey();
      server = await startTestServer({ ...settings, TEMPLATE_ENCRYPTION_KEYS: [newKey, TEST_KEY] }, { dir: tmp.dir });
      const run = await server.fpa.jobs.run('rotate-keys');
      expect(run.result.webhook_secrets).toBe(2);
      await server.close();
      server = await startTestServer({ ...settings, TEMPLATE_ENCRYPTION_KEYS: [newKey] }, { dir: tmp.dir });
      expect((await server.admin.post(`/webhooks/${created.id}/test/`)).body.status_code).toBe(204);
      const call = rx.calls[0]!;
      expect(call.headers['webhook-signature']!.split(' ')).toHaveLength(2);
      expect(verifies(secret, call)).toBe(true);
      expect(verifies(created.secret, call)).toBe(true);
    } finally {
      await server.close();
      rx.stop();
      tmp.cleanup();
    }
  });
});
