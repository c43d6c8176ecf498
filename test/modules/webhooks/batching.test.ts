/**
 * The webhook hot path: endpoints in a burst each get every event once, their position moved
 * once per batch and one attempt-log row per run of in-order deliveries; a failing endpoint
 * retries from its position without holding up the other; message rows (queued by hand) are
 * recorded in batches, and an outcome whose claim was voided meanwhile is discarded (stale);
 * a 410 stops the requests behind it; host lookups are shared for a second but never
 * failures; a per-endpoint signer signs exactly as signWebhook does.
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
    sql: 'select event_id, status, attempts, delivered_at, claim_token, lease_until from fpa_webhook_messages where endpoint_id = ? order by event_sequence',
    args: [endpoint],
  });
  return result.rows.map((r) => ({
    id: String(r.event_id),
    status: String(r.status),
    attempts: Number(r.attempts),
    deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at),
    claimToken: r.claim_token,
    leaseUntil: r.lease_until,
  }));
}

async function attemptsOf(server: TestServer, endpoint: string) {
  const result = await server.fpa.db.client.execute({
    sql: 'select message_id, attempt, count, status_code, next_retry_at from fpa_webhook_deliveries where endpoint_id = ? order by id',
    args: [endpoint],
  });
  return result.rows.map((r) => ({
    messageId: String(r.message_id),
    attempt: Number(r.attempt),
    count: Number(r.count),
    statusCode: r.status_code === null ? null : Number(r.status_code),
    nextRetryAt: r.next_retry_at === null ? null : Number(r.next_retry_at),
  }));
}

async function endpointOf(server: TestServer, id: string) {
  return (await server.admin.get(`/webhooks/${id}/`)).body as {
    position: number;
    active: boolean;
    failing_since: string | null;
    disabled_reason: string | null;
  };
}

describe('a burst', () => {
  test('to two endpoints: each event sent to each, in-order runs logged once, the failing endpoint retried from its position', async () => {
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
      const head = (await server.admin.get('/events/?limit=1000')).body.last_sequence as number;
      await waitFor(
        async () => (await endpointOf(server, a.id)).position === head && (await endpointOf(server, b.id)).position === head,
        'both endpoints at the head',
      );

      expect(good.calls).toHaveLength(total);
      expect(new Set(good.calls.map((c) => c.id)).size).toBe(total);
      for (const call of good.calls.slice(0, 10)) expect(verifyWebhook(a.secret, call.headers, call.body)).toBe(true);
      // No message rows: every event is accounted for by the position.
      expect(await rowsOf(server, a.id)).toEqual([]);
      const logA = await attemptsOf(server, a.id);
      expect(logA.reduce((n, l) => n + l.count, 0)).toBe(total);
      expect(logA.length).toBeLessThan(total / 10);
      expect(logA.every((l) => l.statusCode === 204)).toBe(true);

      // Every event reached the flaky endpoint, some more than once (the window is re-sent
      // after a failure); the accepted ones count each event exactly once.
      expect(seen.size).toBe(total);
      expect(await rowsOf(server, b.id)).toEqual([]);
      const logB = await attemptsOf(server, b.id);
      expect(logB.filter((l) => l.statusCode === 200).reduce((n, l) => n + l.count, 0)).toBe(total);
      expect(logB.filter((l) => l.statusCode === 503).every((l) => l.nextRetryAt !== null && l.count === 1)).toBe(true);
      // The last outcome was a success: the endpoint is healthy.
      expect((await endpointOf(server, b.id)).failing_since).toBeNull();
    } finally {
      good.stop();
      flaky.stop();
      await server.close();
    }
  });

  test('a 410 stops the requests behind it: one request, the endpoint disabled, everything held', async () => {
    // One request at a time, so the second event waits for the first one's answer.
    const server = await startTestServer({ ...FAST, WEBHOOK_CONCURRENCY: 1 });
    const rx = receiver(() => new Response('gone', { status: 410 }));
    try {
      const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
      await ingest(server, await approvedDevice(server, 'GONE0001'), punchLines('1', 3));
      await waitFor(async () => !(await endpointOf(server, hook.id)).active, 'the endpoint disabled');
      await Bun.sleep(100);
      expect(rx.calls).toHaveLength(1);
      expect((await endpointOf(server, hook.id)).disabled_reason).toContain('410');
      const messages = (await server.admin.get(`/webhooks/${hook.id}/messages/`)).body.results as { status: string }[];
      expect(messages.map((m) => m.status)).toEqual(['held', 'held', 'held']);
      expect(await attemptsOf(server, hook.id)).toHaveLength(1);
    } finally {
      rx.stop();
      await server.close();
    }
  });
});

describe('message rows (queued by hand)', () => {
  /** An endpoint whose four messages were refused (dead rows), on a server without the worker. */
  async function deadRows(serial: string) {
    // WEBHOOK_MAX_ATTEMPTS 1: the first 4xx dead-letters a message (later ones retry, dispatch.ts verdictOf).
    const server = await startTestServer({ ...FAST, WEBHOOK_WORKER: false, WEBHOOK_CONCURRENCY: 4, WEBHOOK_MAX_ATTEMPTS: 1 });
    let answer: () => Promise<Response> = async () => new Response(null, { status: 400 });
    const rx = receiver(() => answer());
    const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
    await ingest(server, await approvedDevice(server, serial), punchLines('1', 4));
    expect((await server.admin.post('/jobs/deliver-webhooks/run/')).body.result).toMatchObject({ delivered: 0, dead: 4 });
    expect((await rowsOf(server, hook.id)).map((r) => r.status)).toEqual(['dead', 'dead', 'dead', 'dead']);
    rx.calls.length = 0;
    return {
      server,
      rx,
      hook,
      answer: (next: () => Promise<Response>) => {
        answer = next;
      },
    };
  }

  test('an outcome whose claim was voided meanwhile is stale: logged, but the message keeps its newer state', async () => {
    const { server, rx, hook, answer } = await deadRows('STALE001');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    answer(async () => {
      await held;
      return new Response(null, { status: 204 });
    });
    try {
      expect((await server.admin.post(`/webhooks/${hook.id}/recover/`, { since: '2000-01-01T00:00:00Z' })).body).toEqual({ requeued: 4 });
      const run = server.admin.post('/jobs/deliver-webhooks/run/');
      await waitFor(() => rx.calls.length === 4, 'four requests in flight');
      // Redelivering by hand voids the claim of the attempt in flight.
      const voided = rx.calls[1]!.id;
      expect((await server.admin.post(`/webhooks/${hook.id}/messages/${voided}/redeliver/`)).status).toBe(200);
      release();
      const result = (await run).body.result;
      expect(result).toMatchObject({ messages: 4, delivered: 3, stale: 1 });

      const rows = await rowsOf(server, hook.id);
      const voidedRow = rows.find((r) => r.id === voided)!;
      expect(voidedRow).toMatchObject({ status: 'pending', attempts: 0, deliveredAt: null });
      expect(rows.filter((r) => r.id !== voided).every((r) => r.status === 'delivered' && r.attempts === 1 && r.claimToken === null)).toBe(true);
      // All four attempts are in the log, the stale one included.
      const log = (await attemptsOf(server, hook.id)).filter((l) => l.statusCode === 204);
      expect(log.map((l) => l.messageId).sort()).toEqual(rx.calls.map((c) => c.id).sort());

      // The redelivered message goes out again under the same webhook-id.
      const again = (await server.admin.post('/jobs/deliver-webhooks/run/')).body.result;
      expect(again).toMatchObject({ messages: 1, delivered: 1 });
      expect(rx.calls[4]!.id).toBe(voided);
      expect((await rowsOf(server, hook.id)).every((r) => r.status === 'delivered')).toBe(true);
    } finally {
      release();
      rx.stop();
      await server.close();
    }
  });

  test('a 410 stops the rows already claimed behind it: one request, the endpoint disabled, the rest held', async () => {
    const { server, rx, hook, answer } = await deadRows('GONE0002');
    answer(async () => new Response('gone', { status: 410 }));
    // A worker with one request at a time: it claims two rounds ahead, the second row waits.
    const worker = await startTestServer({ ...FAST, WEBHOOK_CONCURRENCY: 1 }, { dir: server.dir, db: server.fpa.db });
    try {
      expect((await worker.admin.post(`/webhooks/${hook.id}/recover/`, { since: '2000-01-01T00:00:00Z' })).body).toEqual({ requeued: 4 });
      await waitFor(async () => !(await endpointOf(server, hook.id)).active, 'the endpoint disabled');
      await Bun.sleep(200);
      expect(rx.calls).toHaveLength(1);
      expect((await rowsOf(server, hook.id)).map((r) => r.status).sort()).toEqual(['dead', 'pending', 'pending', 'pending']);
      expect((await rowsOf(server, hook.id)).every((r) => r.claimToken === null)).toBe(true);
      const held = (await server.admin.get(`/webhooks/${hook.id}/messages/?status=held`)).body.results;
      expect(held).toHaveLength(3);
      // Nothing is claimed for a disabled endpoint.
      expect((await server.admin.post('/jobs/deliver-webhooks/run/')).body.result).toMatchObject({ messages: 0 });
    } finally {
      rx.stop();
      await worker.close();
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
    expect(await checkWebhookUrl('https://hooks.example.com/x', options)).toEqual({ ok: false, reason: expect.stringContaining('host resolves to a private') });
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
  // Byte for byte the package's signature, whatever the body (non-ASCII text included).
  for (const body of ['', '{"name":"Zhāng Sān 张三"}', 'x'.repeat(10_000), '\u0000\uffff😀']) {
    const other = generateWebhookSecret();
    const at = new Date(1_800_000_000_123);
    expect(new WebhookSigner(other).sign({ id: 'evt_1', timestamp: at, body })['webhook-signature']).toBe(new Webhook(other).sign('evt_1', at, body));
  }
  expect(() => new WebhookSigner('not-a-secret')).toThrow('invalid webhook secret');
});

describe('a burst of uploads', () => {
  test('deliveries wait until the terminals pause (at most WEBHOOK_MAX_LAG), then every punch is sent once', async () => {
    const server = await startTestServer({ ...FAST, WEBHOOK_MAX_LAG: 5_000 });
    let firstCallAt = Number.POSITIVE_INFINITY;
    const hook = receiver(() => {
      firstCallAt = Math.min(firstCallAt, performance.now());
      return new Response(null, { status: 204 });
    });
    try {
      await server.admin.post('/webhooks/', { url: hook.url });
      const device = await approvedDevice(server, 'BURST001');
      // Uploads 50 ms apart for about a second and a half: never a 250 ms pause.
      let lastUploadAt = 0;
      const uploads = 30;
      for (let i = 0; i < uploads; i++) {
        await ingest(server, device, punchLines(String(100 + i), 5));
        lastUploadAt = performance.now();
        await Bun.sleep(50);
      }
      await waitFor(() => hook.calls.length >= uploads * 5, 'every punch delivered');
      // The first delivery came only after the last upload (and the pause after it).
      expect(firstCallAt).toBeGreaterThan(lastUploadAt);
      await Bun.sleep(100);
      expect(hook.calls).toHaveLength(uploads * 5);
      expect(new Set(hook.calls.map((c) => c.id)).size).toBe(uploads * 5);
    } finally {
      hook.stop();
      await server.close();
    }
  });

  test('under uploads that never pause, deliveries go on once WEBHOOK_MAX_LAG has passed', async () => {
    const server = await startTestServer({ ...FAST, WEBHOOK_MAX_LAG: 600 });
    const hook = receiver(() => new Response(null, { status: 204 }));
    try {
      await server.admin.post('/webhooks/', { url: hook.url });
      const device = await approvedDevice(server, 'BURST002');
      let deliveredWhileUploading = 0;
      const start = performance.now();
      for (let i = 0; performance.now() - start < 2_500; i++) {
        await ingest(server, device, punchLines(String(100 + i), 2));
        await Bun.sleep(40);
        deliveredWhileUploading = hook.calls.length;
      }
      expect(deliveredWhileUploading).toBeGreaterThan(0);
    } finally {
      hook.stop();
      await server.close();
    }
  });
});
