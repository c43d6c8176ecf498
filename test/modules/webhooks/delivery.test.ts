import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import type { DeviceRow } from '../../../src/modules/devices/service';
import { startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, postAttlog, punchLines } from '../../support/punch-feed';
import { receiver, waitFor } from '../../support/webhook-receiver';

const FAST = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: true,
  WEBHOOK_RETRY_BACKOFF: 50,
  WEBHOOK_MAX_ATTEMPTS: 3,
  WEBHOOK_TIMEOUT: 2_000,
};

let pinCounter = 100;
const nextPin = () => String(pinCounter++);

describe('webhooks through the real server', () => {
  let server: TestServer;
  let device: DeviceRow;

  beforeAll(async () => {
    server = await startTestServer(FAST);
    device = await approvedDevice(server, 'HOOK0001');
  });
  afterAll(async () => {
    await server.close();
  });

  async function endpoint(url: string) {
    const created = await server.admin.post('/webhooks/', { url });
    expect(created.status).toBe(201);
    return created.body as { id: string; secret: string };
  }

  test('endpoints: created with a secret shown once, listed without it, validated, deleted', async () => {
    const created = await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/a', events: ['punch_received'] });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect(created.body.events).toEqual(['punch_received']);
    expect(created.body.active).toBe(true);
    expect(created.body.created_by).toBe('admin@example.com');

    const list = await server.admin.get('/webhooks/');
    expect(list.body.results.map((w: { id: string }) => w.id)).toContain(created.body.id);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const one = await server.admin.get(`/webhooks/${created.body.id}/`);
    expect(one.body.url).toBe('http://127.0.0.1:9/a');
    expect(one.body.secret).toBeUndefined();

    const badEvent = await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/b', events: ['nope'] });
    expect(badEvent.status).toBe(400);
    const badScheme = await server.admin.post('/webhooks/', { url: 'ftp://127.0.0.1/x' });
    expect(badScheme.status).toBe(422);
    expect(badScheme.body.error.code).toBe('webhook_url_refused');
    const credentials = await server.admin.post('/webhooks/', { url: 'http://user:pw@127.0.0.1/x' });
    expect(credentials.body.error.code).toBe('webhook_url_refused');

    expect((await server.admin.delete(`/webhooks/${created.body.id}/`)).status).toBe(204);
    expect((await server.admin.get(`/webhooks/${created.body.id}/`)).status).toBe(404);
    expect((await server.admin.delete(`/webhooks/${created.body.id}/`)).status).toBe(404);
    const anonymous = await fetch(`${server.url}/api/fingerprint/v1/webhooks/`);
    expect(anonymous.status).toBe(401);
  });

  test('a punch is delivered signed (Standard Webhooks), once per punch, with one outbox row each', async () => {
    const rx = receiver();
    const hook = await endpoint(rx.url);
    expect((await postAttlog(server, 'HOOK0001', punchLines(nextPin(), 3))).text).toBe('OK:3');
    const result = { lastSequence: (await server.admin.get('/punches/?limit=1')).body.results[0].sequence as number };
    await waitFor(() => rx.calls.length >= 3, 'three deliveries');
    await Bun.sleep(100);
    expect(rx.calls).toHaveLength(3);

    const verifier = new Webhook(hook.secret);
    const sequences: number[] = [];
    for (const call of rx.calls) {
      const payload = verifier.verify(call.body, call.headers) as {
        type: string;
        timestamp: string;
        data: { punch: { sequence: number; device: string }; sender: { serial_number: string } };
      };
      expect(payload.type).toBe('punch_received');
      expect(payload.data.sender.serial_number).toBe('HOOK0001');
      expect(payload.data.punch.device).toBe('HOOK0001');
      expect(call.headers['content-type']).toBe('application/json');
      sequences.push(payload.data.punch.sequence);
    }
    expect(sequences.sort((a, b) => a - b)).toEqual([result.lastSequence! - 2, result.lastSequence! - 1, result.lastSequence!]);
    // A tampered body does not verify.
    expect(() => verifier.verify(rx.calls[0]!.body.replace('HOOK0001', 'EVIL0001'), rx.calls[0]!.headers)).toThrow();

    const rows = await server.fpa.db.client.execute({ sql: 'select punch_sequence, status from fpa_webhook_outbox where endpoint_id = ?', args: [hook.id] });
    expect(rows.rows.map((r) => Number(r.punch_sequence)).sort((a, b) => a - b)).toEqual(sequences);
    expect(rows.rows.every((r) => r.status === 'delivered')).toBe(true);
    const messages = await server.admin.get(`/webhooks/${hook.id}/messages/`);
    expect(new Set(messages.body.results.map((m: { id: string }) => m.id))).toEqual(new Set(rx.calls.map((c) => c.headers['webhook-id'])));

    await server.admin.delete(`/webhooks/${hook.id}/`);
    rx.stop();
  });

  test('a failing receiver (500 twice) is retried with the same webhook-id until it accepts; attempts are logged', async () => {
    const rx = receiver((n) => new Response(n <= 2 ? 'down' : 'ok', { status: n <= 2 ? 500 : 200 }));
    const hook = await endpoint(rx.url);
    await ingest(server, device, punchLines(nextPin(), 1));
    await waitFor(() => rx.calls.length >= 3, 'the third attempt');
    await Bun.sleep(150);
    expect(rx.calls).toHaveLength(3);
    const ids = new Set(rx.calls.map((c) => c.headers['webhook-id']));
    expect(ids.size).toBe(1);
    for (const call of rx.calls) new Webhook(hook.secret).verify(call.body, call.headers);

    const log = await server.admin.get(`/webhooks/${hook.id}/deliveries/`);
    expect(log.status).toBe(200);
    const attempts = [...log.body.results].reverse();
    expect(attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3]);
    expect(attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);
    expect(attempts[0].error).toBe('HTTP 500');
    expect(typeof attempts[0].next_retry_at).toBe('string');
    expect(attempts[2].next_retry_at).toBeNull();
    expect(attempts[2].error).toBeNull();
    expect(typeof attempts[0].duration_ms).toBe('number');
    expect(attempts.every((a: { message_id: string }) => a.message_id === [...ids][0])).toBe(true);
    const paged = await server.admin.get(`/webhooks/${hook.id}/deliveries/?limit=2`);
    expect(paged.body.results).toHaveLength(2);
    const rest = await server.admin.get(`/webhooks/${hook.id}/deliveries/?limit=2&cursor=${paged.body.next_cursor}`);
    expect(rest.body.results.map((a: { attempt: number }) => a.attempt)).toEqual([1]);
    expect((await server.admin.get(`/webhooks/${hook.id}/`)).body.failing_since).toBeNull();

    await server.admin.delete(`/webhooks/${hook.id}/`);
    rx.stop();
  });

  test('after WEBHOOK_MAX_ATTEMPTS the message is dead; redelivered by hand it goes out again', async () => {
    let healthy = false;
    const rx = receiver(() => new Response(null, { status: healthy ? 204 : 503 }));
    const hook = await endpoint(rx.url);
    await ingest(server, device, punchLines(nextPin(), 1));
    const dead = async () => (await server.admin.get(`/webhooks/${hook.id}/messages/?status=dead`)).body.results.length === 1;
    await waitFor(dead, 'the message to be dead-lettered');
    await Bun.sleep(300);
    expect(rx.calls).toHaveLength(3);
    const [message] = (await server.admin.get(`/webhooks/${hook.id}/messages/?status=dead`)).body.results;
    expect(message.attempts).toBe(3);
    expect(message.last_error).toBe('HTTP 503');
    expect(message.next_attempt_at).toBeNull();
    expect((await server.admin.get(`/webhooks/${hook.id}/`)).body.failing_since).not.toBeNull();

    healthy = true;
    const again = await server.admin.post(`/webhooks/${hook.id}/messages/${message.id}/redeliver/`);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('pending');
    await waitFor(() => rx.calls.length === 4, 'the redelivery');
    expect(rx.calls[3]!.headers['webhook-id']).toBe(message.id);
    await waitFor(async () => (await server.admin.get(`/webhooks/${hook.id}/messages/?status=delivered`)).body.results.length === 1, 'delivered status');

    // A delivered message can be sent again by hand too.
    await server.admin.post(`/webhooks/${hook.id}/messages/${message.id}/redeliver/`);
    await waitFor(() => rx.calls.length === 5, 'the second redelivery');
    expect(rx.calls[4]!.headers['webhook-id']).toBe(message.id);
    expect((await server.admin.post(`/webhooks/${hook.id}/messages/msg_nothing/redeliver/`)).status).toBe(404);
    expect((await server.admin.get(`/webhooks/${hook.id}/messages/?status=weird`)).status).toBe(400);

    await server.admin.delete(`/webhooks/${hook.id}/`);
    rx.stop();
  });

  test('410 Gone disables the endpoint at once; it gets no more messages until enabled', async () => {
    const rx = receiver(() => new Response('gone', { status: 410 }));
    const hook = await endpoint(rx.url);
    await ingest(server, device, punchLines(nextPin(), 1));
    await waitFor(async () => (await server.admin.get(`/webhooks/${hook.id}/`)).body.active === false, 'the endpoint to be disabled');
    const view = (await server.admin.get(`/webhooks/${hook.id}/`)).body;
    expect(view.disabled_reason).toContain('410');
    expect(rx.calls).toHaveLength(1);
    const [message] = (await server.admin.get(`/webhooks/${hook.id}/messages/`)).body.results;
    expect(message.status).toBe('dead');

    await ingest(server, device, punchLines(nextPin(), 2));
    await Bun.sleep(300);
    expect(rx.calls).toHaveLength(1);
    // Held while disabled, not sent (test/webhooks-held.test.ts follows them through enabling).
    const statuses = (await server.admin.get(`/webhooks/${hook.id}/messages/`)).body.results.map((m: { status: string }) => m.status);
    expect(statuses.sort()).toEqual(['dead', 'held', 'held']);
    const refused = await server.admin.post(`/webhooks/${hook.id}/messages/${message.id}/redeliver/`);
    expect(refused.status).toBe(409);

    const enabled = await server.admin.post(`/webhooks/${hook.id}/enable/`);
    expect(enabled.body.active).toBe(true);
    expect(enabled.body.disabled_reason).toBeNull();
    await server.admin.delete(`/webhooks/${hook.id}/`);
    rx.stop();
  });

  test('an endpoint failing continuously for WEBHOOK_DISABLE_AFTER is disabled', async () => {
    const other = await startTestServer({ ...FAST, WEBHOOK_DISABLE_AFTER: 1, WEBHOOK_MAX_ATTEMPTS: 10 });
    try {
      const rx = receiver(() => new Response('no', { status: 500 }));
      const created = await other.admin.post('/webhooks/', { url: rx.url });
      const dev = await approvedDevice(other, 'FAIL0001');
      await ingest(other, dev, punchLines('1', 1));
      await waitFor(async () => (await other.admin.get(`/webhooks/${created.body.id}/`)).body.active === false, 'the endpoint to be disabled');
      const view = (await other.admin.get(`/webhooks/${created.body.id}/`)).body;
      expect(view.disabled_reason).toContain('failing continuously');
      expect(rx.calls.length).toBeLessThan(10);
      const [message] = (await other.admin.get(`/webhooks/${created.body.id}/messages/`)).body.results;
      expect(message.status).toBe('dead');
      rx.stop();
    } finally {
      await other.close();
    }
  });

  test('redirects are not followed: a 3xx is a failed attempt', async () => {
    const target = receiver();
    const rx = receiver(() => new Response(null, { status: 302, headers: { location: target.url } }));
    const hook = await endpoint(rx.url);
    await ingest(server, device, punchLines(nextPin(), 1));
    await waitFor(async () => (await server.admin.get(`/webhooks/${hook.id}/messages/?status=dead`)).body.results.length === 1, 'dead-lettering');
    expect(rx.calls).toHaveLength(3);
    expect(target.calls).toHaveLength(0);
    const log = await server.admin.get(`/webhooks/${hook.id}/deliveries/`);
    expect(log.body.results[0].status_code).toBe(302);
    expect(log.body.results[0].error).toContain('redirects are not followed');
    await server.admin.delete(`/webhooks/${hook.id}/`);
    rx.stop();
    target.stop();
  });
});

describe('webhooks across instances and without the in-process worker', () => {
  test('private addresses are refused at creation when WEBHOOK_ALLOW_PRIVATE_NETWORKS is off, and again before each delivery', async () => {
    const permissive = await startTestServer({ ...FAST, WEBHOOK_WORKER: false });
    const strict = await startTestServer({ ...FAST, WEBHOOK_ALLOW_PRIVATE_NETWORKS: false }, { dir: permissive.dir, db: permissive.fpa.db });
    const rx = receiver();
    try {
      for (const url of [rx.url, 'http://localhost:8080/x', 'http://10.0.0.5/x', 'http://169.254.169.254/latest', 'http://[::1]/x']) {
        const refused = await strict.admin.post('/webhooks/', { url });
        expect(refused.status).toBe(422);
        expect(refused.body.error.code).toBe('webhook_url_refused');
      }
      // Created where private networks are allowed, delivered by a worker where they are not.
      const created = await permissive.admin.post('/webhooks/', { url: rx.url });
      expect(created.status).toBe(201);
      const dev = await approvedDevice(permissive, 'PRIV0001');
      await ingest(permissive, dev, punchLines('1', 1));
      await waitFor(async () => (await strict.admin.get(`/webhooks/${created.body.id}/deliveries/`)).body.results.length >= 1, 'a refused attempt');
      const log = await strict.admin.get(`/webhooks/${created.body.id}/deliveries/`);
      expect(log.body.results[0].error).toContain('URL refused');
      expect(log.body.results[0].status_code).toBeNull();
      expect(rx.calls).toHaveLength(0);
    } finally {
      rx.stop();
      await strict.close();
      await permissive.close();
    }
  });

  test('with WEBHOOK_WORKER off nothing is sent until the deliver-webhooks job runs', async () => {
    const server = await startTestServer({ ...FAST, WEBHOOK_WORKER: false });
    const rx = receiver();
    try {
      const created = await server.admin.post('/webhooks/', { url: rx.url });
      const dev = await approvedDevice(server, 'JOB00001');
      await ingest(server, dev, punchLines('1', 4));
      await Bun.sleep(1_200);
      expect(rx.calls).toHaveLength(0);
      const run = await server.admin.post('/jobs/deliver-webhooks/run/');
      expect(run.status).toBe(200);
      expect(run.body.status).toBe('succeeded');
      expect(run.body.result).toMatchObject({ claimed: 4, delivered: 4, dead: 0 });
      expect(rx.calls).toHaveLength(4);
      for (const call of rx.calls) new Webhook(created.body.secret).verify(call.body, call.headers);
      const jobs = await server.admin.get('/jobs/');
      expect(jobs.body.results.find((j: { name: string }) => j.name === 'deliver-webhooks').schedule).not.toBeNull();
    } finally {
      rx.stop();
      await server.close();
    }
  });

  test('two instances on one database deliver each message once', async () => {
    const first = await startTestServer(FAST);
    const second = await startTestServer(FAST, { dir: first.dir, db: first.fpa.db });
    const rx = receiver();
    try {
      const created = await first.admin.post('/webhooks/', { url: rx.url });
      const dev = await approvedDevice(first, 'TWIN0001');
      const total = 60;
      // Both instances write punches, so both workers are woken and race for the rows.
      await Promise.all([ingest(first, dev, punchLines('1', total / 2)), ingest(second, dev, punchLines('2', total / 2))]);
      await waitFor(() => rx.calls.length >= total, 'every message');
      await Bun.sleep(1_200);
      const ids = rx.calls.map((c) => c.headers['webhook-id']);
      expect(ids).toHaveLength(total);
      expect(new Set(ids).size).toBe(total);
      const attempts = await first.fpa.db.client.execute({
        sql: 'select count(*) as n from fpa_webhook_deliveries where endpoint_id = ?',
        args: [created.body.id],
      });
      expect(Number(attempts.rows[0]!.n)).toBe(total);
    } finally {
      rx.stop();
      await second.close();
      await first.close();
    }
  });
});
