/**
 * The webhook hot path: outcomes recorded in batches still give every message exactly one
 * state and every attempt its log row; an outcome whose claim was voided meanwhile is
 * discarded (stale) even inside a batch; a 410 stops the messages queued behind it; host
 * lookups are shared for a second but never failures; a per-endpoint signer signs exactly as
 * signWebhook does.
 */
import { describe, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook, verifyWebhook, WebhookSigner } from '../../../src/modules/webhooks/signing';
import { cachingResolver, checkWebhookUrl } from '../../../src/modules/webhooks/ssrf';
import { startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, punchLines } from '../../support/punch-feed';
import { receiver, waitFor } from '../../support/webhook-receiver';

const FAST = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 50, WEBHOOK_MAX_ATTEMPTS: 3, WEBHOOK_TIMEOUT: 2_000 };

async function rowsOf(server: TestServer, endpoint: string) {
  const result = await server.fpa.db.client.execute({
    sql: 'select id, status, attempts, delivered_at, claim_token, lease_until from fpa_webhook_outbox where endpoint_id = ? order by punch_sequence',
    args: [endpoint],
  });
  return result.rows.map((r) => ({
    id: String(r.id),
    status: String(r.status),
    attempts: Number(r.attempts),
    deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at),
    claimToken: r.claim_token,
    leaseUntil: r.lease_until,
  }));
}

async function attemptsOf(server: TestServer, endpoint: string) {
  const result = await server.fpa.db.client.execute({
    sql: 'select outbox_id, attempt, status_code, created_at from fpa_webhook_deliveries where endpoint_id = ? order by id',
    args: [endpoint],
  });
  return result.rows.map((r) => ({
    outboxId: String(r.outbox_id),
    attempt: Number(r.attempt),
    statusCode: r.status_code === null ? null : Number(r.status_code),
    createdAt: Number(r.created_at),
  }));
}

describe('batched outcomes', () => {
  test('a burst to two endpoints: each message sent once, delivered, one attempt logged each, one failing endpoint retried', async () => {
    const server = await startTestServer({ ...FAST, WEBHOOK_CONCURRENCY: 8 });
    const good = receiver(() => new Response(null, { status: 204 }));
    // The second endpoint refuses each message the first time it sees it.
    const seen = new Set<string>();
    const flaky = receiver((_, call) => {
      const first = !seen.has(call.id);
      seen.add(call.id);
      return new Response(null, { status: first ? 503 : 200 });
    });
    try {
      const a = (await server.admin.post('/webhooks/', { url: good.url })).body as { id: string; secret: string };
      const b = (await server.admin.post('/webhooks/', { url: flaky.url })).body as { id: string; secret: string };
      const device = await approvedDevice(server, 'BATCH001');
      const total = 240;
      for (let i = 0; i < total; i += 60) await ingest(server, device, punchLines(String(i), 60));
      await waitFor(
        async () => (await rowsOf(server, a.id)).every((r) => r.status === 'delivered') && (await rowsOf(server, b.id)).every((r) => r.status === 'delivered'),
        'every message delivered',
      );

      expect(good.calls).toHaveLength(total);
      expect(new Set(good.calls.map((c) => c.id)).size).toBe(total);
      for (const call of good.calls.slice(0, 10)) expect(verifyWebhook(a.secret, call.headers, call.body)).toBe(true);
      const rowsA = await rowsOf(server, a.id);
      expect(rowsA).toHaveLength(total);
      expect(new Set(rowsA.map((r) => r.id))).toEqual(new Set(good.calls.map((c) => c.id)));
      for (const row of rowsA) {
        expect(row).toMatchObject({ status: 'delivered', attempts: 1, claimToken: null, leaseUntil: null });
        expect(row.deliveredAt).toBeGreaterThan(0);
      }
      const logA = await attemptsOf(server, a.id);
      expect(logA).toHaveLength(total);
      expect(new Set(logA.map((l) => l.outboxId)).size).toBe(total);
      expect(logA.every((l) => l.attempt === 1 && l.statusCode === 204)).toBe(true);

      // Two attempts per message on the flaky endpoint, in order, both logged.
      const rowsB = await rowsOf(server, b.id);
      expect(rowsB.every((r) => r.attempts === 2)).toBe(true);
      expect(flaky.calls).toHaveLength(2 * total);
      const logB = await attemptsOf(server, b.id);
      expect(logB).toHaveLength(2 * total);
      const byMessage = new Map<string, number[]>();
      for (const l of logB) byMessage.set(l.outboxId, [...(byMessage.get(l.outboxId) ?? []), l.statusCode ?? 0]);
      expect([...byMessage.values()].every((codes) => codes.join() === '503,200')).toBe(true);
      // The last outcome was a success: the endpoint is healthy.
      expect((await server.admin.get(`/webhooks/${b.id}/`)).body.failing_since).toBeNull();
    } finally {
      good.stop();
      flaky.stop();
      await server.close();
    }
  });

  test('an outcome whose claim was voided meanwhile is stale: logged, but the message keeps its newer state', async () => {
    const server = await startTestServer({ ...FAST, WEBHOOK_WORKER: false });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const rx = receiver(async () => {
      await held;
      return new Response(null, { status: 204 });
    });
    try {
      const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
      await ingest(server, await approvedDevice(server, 'STALE001'), punchLines('1', 4));
      const run = server.admin.post('/jobs/deliver-webhooks/run/');
      await waitFor(() => rx.calls.length === 4, 'four requests in flight');
      // Redelivering by hand voids the claim of the attempt in flight.
      const voided = rx.calls[1]!.id;
      expect((await server.admin.post(`/webhooks/${hook.id}/messages/${voided}/redeliver/`)).status).toBe(200);
      release();
      const result = (await run).body.result;
      expect(result).toMatchObject({ claimed: 4, delivered: 3, stale: 1 });

      const rows = await rowsOf(server, hook.id);
      const voidedRow = rows.find((r) => r.id === voided)!;
      expect(voidedRow).toMatchObject({ status: 'pending', attempts: 0, deliveredAt: null });
      expect(rows.filter((r) => r.id !== voided).every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true);
      // All four attempts are in the log, the stale one included.
      expect((await attemptsOf(server, hook.id)).map((l) => l.outboxId).sort()).toEqual(rx.calls.map((c) => c.id).sort());

      // The redelivered message goes out again under the same webhook-id.
      const again = (await server.admin.post('/jobs/deliver-webhooks/run/')).body.result;
      expect(again).toMatchObject({ claimed: 1, delivered: 1 });
      expect(rx.calls[4]!.id).toBe(voided);
      expect((await rowsOf(server, hook.id)).every((r) => r.status === 'delivered')).toBe(true);
    } finally {
      release();
      rx.stop();
      await server.close();
    }
  });

  test('a 410 stops the messages already claimed behind it: one request, the rest dead', async () => {
    // One request at a time, so the second claimed message waits for the first one's answer.
    const server = await startTestServer({ ...FAST, WEBHOOK_CONCURRENCY: 1 });
    const rx = receiver(() => new Response('gone', { status: 410 }));
    try {
      const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
      await ingest(server, await approvedDevice(server, 'GONE0001'), punchLines('1', 3));
      await waitFor(async () => (await rowsOf(server, hook.id)).every((r) => r.status === 'dead'), 'every message dead');
      await Bun.sleep(100);
      expect(rx.calls).toHaveLength(1);
      const view = (await server.admin.get(`/webhooks/${hook.id}/`)).body;
      expect(view.active).toBe(false);
      expect(view.disabled_reason).toContain('410');
      expect(await attemptsOf(server, hook.id)).toHaveLength(1);
    } finally {
      rx.stop();
      await server.close();
    }
  });
});

describe('shared host lookups', () => {
  test('one lookup per host per TTL, shared by concurrent callers; failures and empty answers are not kept', async () => {
    let clock = 0;
    const lookups: string[] = [];
    let answer: () => Promise<string[]> = async () => ['93.184.216.34'];
    const resolve = cachingResolver(
      async (host) => {
        lookups.push(host);
        return answer();
      },
      1_000,
      () => clock,
    );
    const both = await Promise.all([resolve('a.example.com'), resolve('a.example.com')]);
    expect(both).toEqual([['93.184.216.34'], ['93.184.216.34']]);
    expect(lookups).toEqual(['a.example.com']);
    // Callers get copies: changing one cannot poison the cache.
    both[0]!.push('10.0.0.1');
    clock = 999;
    expect(await resolve('a.example.com')).toEqual(['93.184.216.34']);
    expect(lookups).toHaveLength(1);
    await resolve('b.example.com');
    expect(lookups).toEqual(['a.example.com', 'b.example.com']);

    clock = 1_000;
    answer = async () => ['10.0.0.1'];
    expect(await resolve('a.example.com')).toEqual(['10.0.0.1']);
    expect(lookups).toHaveLength(3);

    clock = 5_000;
    answer = async () => {
      throw new Error('ENOTFOUND');
    };
    await expect(resolve('c.example.com')).rejects.toThrow('ENOTFOUND');
    await expect(resolve('c.example.com')).rejects.toThrow('ENOTFOUND');
    answer = async () => [];
    expect(await resolve('d.example.com')).toEqual([]);
    expect(await resolve('d.example.com')).toEqual([]);
    expect(lookups.filter((h) => h === 'c.example.com' || h === 'd.example.com')).toHaveLength(4);
  });

  test('every check still classifies the (shared) answer: a rebound private address is refused at once', async () => {
    let clock = 0;
    let addresses = ['93.184.216.34'];
    const resolve = cachingResolver(
      async () => addresses,
      1_000,
      () => clock,
    );
    const options = { allowPrivateNetworks: false, resolve };
    expect(await checkWebhookUrl('https://hooks.example.com/x', options)).toMatchObject({ ok: true, addresses: ['93.184.216.34'] });
    addresses = ['127.0.0.1'];
    // Within the TTL the vetted answer is reused (and is what the sender connects to)…
    expect(await checkWebhookUrl('https://hooks.example.com/x', options)).toMatchObject({ ok: true, addresses: ['93.184.216.34'] });
    clock = 1_001;
    // …after it the new answer is checked before anything is sent.
    expect(await checkWebhookUrl('https://hooks.example.com/x', options)).toEqual({ ok: false, reason: 'host resolves to a private or reserved address' });
  });
});

test('a per-endpoint signer signs exactly like signWebhook', () => {
  const secret = generateWebhookSecret();
  const signer = new WebhookSigner(secret);
  const message = { id: 'msg_abc', timestamp: new Date(1_700_000_000_000), body: '{"a":1}' };
  const headers = signer.sign(message);
  expect(headers).toEqual(signWebhook(secret, message));
  expect(new Webhook(secret).sign(message.id, message.timestamp, message.body)).toBe(headers['webhook-signature']);
  expect(signer.sign({ ...message, id: 'msg_def' })['webhook-signature']).not.toBe(headers['webhook-signature']);
  expect(() => signer.sign({ ...message, id: 'bad.id' })).toThrow();
  expect(() => new WebhookSigner('not-a-secret')).toThrow('invalid webhook secret');
});
