/**
 * Webhooks through the real server and real receivers: endpoints, signed delivery of each
 * subscribed event in order with its event id as `webhook-id`, retries from the endpoint's
 * position, 4xx dead-lettering and recovery, redelivery by hand, 410 and continuous failure
 * disabling an endpoint that resumes where it stopped, the test send, and nothing written at
 * ingest.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import type { DeviceRow } from '../../../src/modules/devices/tables';
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

interface PunchBody {
  type: string;
  timestamp: string;
  data: { punch: { sequence: number; device: string }; sender: { serial_number: string } };
}

const punchOf = (body: string) => (JSON.parse(body) as PunchBody).data.punch.sequence;

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

  async function endpoint(url: string, events?: string[]) {
    const created = await server.admin.post('/webhooks/', { url, ...(events ? { events } : {}) });
    expect(created.status).toBe(201);
    return created.body as { id: string; secret: string; position: number };
  }

  const view = async (id: string) => (await server.admin.get(`/webhooks/${id}/`)).body;
  const messages = async (id: string, query = '') => (await server.admin.get(`/webhooks/${id}/messages/${query}`)).body.results as Record<string, unknown>[];

  /** The `punch_received` events of these punch sequences, from the log. */
  async function eventsOf(sequences: number[]): Promise<Map<number, string>> {
    const log = await server.admin.get('/events/?type=punch_received&limit=1000');
    const out = new Map<number, string>();
    for (const e of log.body.results as { id: string; data: { punch: { sequence: number } } }[]) {
      if (sequences.includes(e.data.punch.sequence)) out.set(e.data.punch.sequence, e.id);
    }
    return out;
  }

  test('endpoints: created with a secret shown once, listed without it, validated, deleted', async () => {
    const created = await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/a', events: ['punch_received'] });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect(created.body.events).toEqual(['punch_received']);
    expect(created.body.active).toBe(true);
    expect(created.body.created_by).toBe('admin@example.com');
    expect(created.body).toMatchObject({ attempts: 0, next_attempt_at: null, last_error: null, last_delivered_at: null });
    // It starts at the log's head: no history is replayed.
    const head = (await server.admin.get('/events/?limit=1000')).body.last_sequence as number;
    expect(created.body.position).toBe(head);

    const list = await server.admin.get('/webhooks/');
    expect(list.body.results.map((w: { id: string }) => w.id)).toContain(created.body.id);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const one = await server.admin.get(`/webhooks/${created.body.id}/`);
    expect(one.body.url).toBe('http://127.0.0.1:9/a');
    expect(one.body.secret).toBeUndefined();

    // Any event type of the log may be subscribed; the default is punch_received.
    const several = await server.admin.post('/webhooks/', {
      url: 'http://127.0.0.1:9/c',
      events: ['device_online', 'attendance_day_changed', 'device_online'],
    });
    expect(several.status).toBe(201);
    expect(several.body.events).toEqual(['device_online', 'attendance_day_changed']);
    expect((await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/d' })).body.events).toEqual(['punch_received']);
    const badEvent = await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/b', events: ['nope'] });
    expect(badEvent.status).toBe(400);
    expect((await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/b', events: ['webhook_test'] })).status).toBe(400);
    // An empty list is told what it may hold, as an unknown type is.
    const none = await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/b', events: [] });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: 'validation_error', message: badEvent.body.error.message, details: { field: 'events', unknown: [] } });
    expect(none.body.error.message).toStartWith('events must be a non-empty list of: ');
    const badScheme = await server.admin.post('/webhooks/', { url: 'ftp://127.0.0.1/x' });
    expect(badScheme.status).toBe(422);
    expect(badScheme.body.error.code).toBe('webhook_url_refused');
    const credentials = await server.admin.post('/webhooks/', { url: 'http://user:pw@127.0.0.1/x' });
    expect(credentials.body.error.code).toBe('webhook_url_refused');

    for (const id of [created.body.id, several.body.id]) expect((await server.admin.delete(`/webhooks/${id}/`)).status).toBe(204);
    for (const w of (await server.admin.get('/webhooks/')).body.results as { id: string }[]) await server.admin.delete(`/webhooks/${w.id}/`);
    expect((await server.admin.get(`/webhooks/${created.body.id}/`)).status).toBe(404);
    expect((await server.admin.delete(`/webhooks/${created.body.id}/`)).status).toBe(404);
    const anonymous = await fetch(`${server.url}/api/fingerprint/v1/webhooks/`);
    expect(anonymous.status).toBe(401);
  });

  test('a punch is delivered signed (Standard Webhooks), once, its event id the webhook-id; nothing is written at ingest', async () => {
    const rx = receiver();
    const hook = await endpoint(rx.url);
    expect((await postAttlog(server, 'HOOK0001', punchLines(nextPin(), 3))).text).toBe('OK:3');
    const last = (await server.admin.get('/punches/?limit=1')).body.results[0].sequence as number;
    // The ingest wrote no delivery state: message rows exist only for exceptions.
    const rows = await server.fpa.db.client.execute({ sql: 'select count(*) as n from fpa_webhook_messages where endpoint_id = ?', args: [hook.id] });
    expect(Number(rows.rows[0]!.n)).toBe(0);
    await waitFor(() => rx.calls.length >= 3, 'three deliveries');
    await Bun.sleep(100);
    expect(rx.calls).toHaveLength(3);

    const verifier = new Webhook(hook.secret);
    const sequences: number[] = [];
    // Started in log order, up to WEBHOOK_CONCURRENCY at once: they may arrive in any order.
    const calls = [...rx.calls].sort((a, b) => sequenceOf(a.body) - sequenceOf(b.body));
    for (const call of calls) {
      const payload = verifier.verify(call.body, call.headers) as PunchBody;
      expect(payload.type).toBe('punch_received');
      expect(payload.data.sender.serial_number).toBe('HOOK0001');
      expect(payload.data.punch.device).toBe('HOOK0001');
      expect(call.headers['content-type']).toBe('application/json');
      sequences.push(payload.data.punch.sequence);
    }
    expect(sequences).toEqual([last - 2, last - 1, last]);
    // A tampered body does not verify.
    expect(() => verifier.verify(calls[0]!.body.replace('HOOK0001', 'EVIL0001'), calls[0]!.headers)).toThrow();

    const ids = await eventsOf(sequences);
    expect(calls.map((c) => c.id)).toEqual(sequences.map((s) => ids.get(s)!));
    expect(calls.every((c) => c.id.startsWith('evt_'))).toBe(true);
    // The body carries the event's log sequence: the events of one upload share their timestamp,
    // so a receiver restores their order by it.
    const logged = (await server.admin.get('/events/?type=punch_received&limit=1000')).body.results as { id: string; sequence: number }[];
    const logSequence = new Map(logged.map((e) => [e.id, e.sequence]));
    const bodies = calls.map((c) => JSON.parse(c.body) as { timestamp: string; sequence: number });
    expect(bodies.map((b) => b.sequence)).toEqual(calls.map((c) => logSequence.get(c.id)!));
    expect(new Set(bodies.map((b) => b.timestamp)).size).toBe(1);
    expect(bodies.map((b) => b.sequence)).toEqual([...bodies.map((b) => b.sequence)].sort((a, b) => a - b));
    // The receiver has all three before the server has their answers: a progress write may
    // land between them, with the position past the first ones only.
    await waitFor(
      async () => (await view(hook.id)).last_delivered_at !== null && (await messages(hook.id, '?status=pending')).length === 0,
      'the position to move past all three',
    );
    const listed = await messages(hook.id);
    expect(listed.map((m) => m.id)).toEqual([...calls.map((c) => c.id)].reverse());
    expect(listed.every((m) => m.status === 'delivered' && m.event_type === 'punch_received')).toBe(true);
    expect(await messages(hook.id, '?status=pending')).toEqual([]);
    const paged = await server.admin.get(`/webhooks/${hook.id}/messages/?limit=2`);
    expect(paged.body.results).toHaveLength(2);
    const rest = await server.admin.get(`/webhooks/${hook.id}/messages/?limit=2&cursor=${paged.body.next_cursor}`);
    expect(rest.body.results.map((m: { id: string }) => m.id)).toEqual([calls[0]!.id]);
    expect(rest.body.next_cursor).toBeNull();
    // One row in the attempt log for the run of in-order deliveries.
    const log = (await server.admin.get(`/webhooks/${hook.id}/deliveries/`)).body.results as { count: number; message_id: string; status_code: number }[];
    expect(log.reduce((n, l) => n + l.count, 0)).toBe(3);
    expect(log[0]!.message_id).toBe(calls[2]!.id);

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

    // The success is written with the endpoint's next write (at most a quarter second later).
    await waitFor(async () => (await server.admin.get(`/webhooks/${hook.id}/deliveries/`)).body.results.length === 3, 'three attempts logged');
    const log = await server.admin.get(`/webhooks/${hook.id}/deliveries/`);
    expect(log.status).toBe(200);
    const attempts = [...log.body.results].reverse();
    expect(attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3]);
    expect(attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);
    expect(attempts[0].error).toBe('HTTP 500');
    expect(typeof attempts[0].next_retry_at).toBe('string');
    expect(attempts[2].next_retry_at).toBeNull();
    expect(attempts[2].error).toBeNull();
    expect(attempts[2].count).toBe(1);
    expect(typeof attempts[0].duration_ms).toBe('number');
    expect(attempts.every((a: { message_id: string }) => a.message_id === [...ids][0])).toBe(true);
    const paged = await server.admin.get(`/webhooks/${hook.id}/deliveries/?limit=2`);
    expect(paged.body.results).toHaveLength(2);
    const rest = await server.admin.get(`/webhooks/${hook.id}/deliveries/?limit=2&cursor=${paged.body.next_cursor}`);
    expect(rest.body.results.map((a: { attempt: number }) => a.attempt)).toEqual([1]);
    const filtered = await server.admin.get(`/webhooks/${hook.id}/deliveries/?message=${[...ids][0]}`);
    expect(filtered.body.results).toHaveLength(3);
    expect((await view(hook.id)).failing_since).toBeNull();
    expect(await view(hook.id)).toMatchObject({ attempts: 0, last_error: null });

    await server.admin.delete(`/webhooks/${hook.id}/`);
    rx.stop();
  });

  test('a retryable failure never drops a message: the endpoint backs off from its position and shows it', async () => {
    let healthy = false;
    const rx = receiver(() => new Response(null, { status: healthy ? 204 : 503 }));
    const hook = await endpoint(rx.url);
    await ingest(server, device, punchLines(nextPin(), 2));
    // Well past WEBHOOK_MAX_ATTEMPTS: the ordered delivery keeps trying.
    await waitFor(async () => (await view(hook.id)).attempts >= 4, 'four failed attempts recorded');
    const failing = await view(hook.id);
    expect(failing.last_error).toBe('HTTP 503');
    expect(failing.failing_since).not.toBeNull();
    expect(failing.active).toBe(true);
    const pending = await messages(hook.id, '?status=pending');
    expect(pending).toHaveLength(2);
    expect(await messages(hook.id, '?status=dead')).toEqual([]);
    // The first message after the position carries the endpoint's attempts.
    expect(pending[1]).toMatchObject({ attempts: failing.attempts, last_error: 'HTTP 503' });
    // Both were in the window of the first attempt (WEBHOOK_CONCURRENCY); the retries send the first only.
    expect(new Set(rx.calls.map((c) => c.id))).toEqual(new Set(pending.map((m) => String(m.id))));
    expect(pending[0]).toMatchObject({ attempts: 1, last_error: null });
    expect(rx.calls.filter((c) => c.id === pending[0]!.id)).toHaveLength(1);

    healthy = true;
    await waitFor(async () => (await messages(hook.id, '?status=delivered')).length === 2, 'both delivered');
    expect(await view(hook.id)).toMatchObject({ attempts: 0, failing_since: null, last_error: null });
    await server.admin.delete(`/webhooks/${hook.id}/`);
    rx.stop();
  });

  test('a 4xx refused WEBHOOK_MAX_ATTEMPTS times dead-letters one message, delivery goes on past it; recover sends it again', async () => {
    let refuse = true;
    const rx = receiver((_, call) => new Response(null, { status: refuse && punchOf(call.body) % 2 === 0 ? 422 : 204 }));
    const hook = await endpoint(rx.url);
    await ingest(server, device, punchLines(nextPin(), 4));
    await waitFor(
      async () => (await messages(hook.id, '?status=delivered')).length === 2 && (await messages(hook.id, '?status=dead')).length === 2,
      'two dead',
    );
    // Each refused message was retried until its attempt WEBHOOK_MAX_ATTEMPTS (3) was refused too.
    const dead = await messages(hook.id, '?status=dead');
    for (const m of dead) expect(m).toMatchObject({ attempts: 3, last_error: 'HTTP 422', next_attempt_at: null });
    // The last message handed off was dead-lettered: a failure, so the endpoint is failing still.
    const endpointView = await view(hook.id);
    expect(endpointView.failing_since).not.toBeNull();
    expect(endpointView.last_error).toBe('HTTP 422');
    const log = (await server.admin.get(`/webhooks/${hook.id}/deliveries/`)).body.results as {
      status_code: number;
      next_retry_at: string | null;
      message_id: string;
      attempt: number;
    }[];
    for (const m of dead) {
      const tries = log.filter((l) => l.message_id === m.id && l.status_code === 422).map((l) => [l.attempt, l.next_retry_at === null]);
      expect(tries).toContainEqual([3, true]);
      expect(tries).toContainEqual([1, false]);
    }
    const sent = rx.calls.length;

    refuse = false;
    const since = new Date(Date.now() - 60_000).toISOString();
    const recovered = await server.admin.post(`/webhooks/${hook.id}/recover/`, { since });
    expect(recovered.status).toBe(200);
    expect(recovered.body).toEqual({ requeued: 2 });
    await waitFor(() => rx.calls.length === sent + 2, 'the two again');
    expect(new Set(rx.calls.slice(sent).map((c) => c.id))).toEqual(new Set(dead.map((m) => String(m.id))));
    await waitFor(async () => (await messages(hook.id, '?status=delivered')).length === 4, 'all delivered');
    const rows = (await messages(hook.id)).filter((m) => m.attempts !== null);
    expect(rows.every((m) => m.status === 'delivered' && typeof m.delivered_at === 'string')).toBe(true);
    // Nothing left to recover; an instant after everything recovers nothing.
    expect((await server.admin.post(`/webhooks/${hook.id}/recover/`, { since })).body).toEqual({ requeued: 0 });
    expect((await server.admin.post(`/webhooks/${hook.id}/recover/`, { since: 'yesterday' })).status).toBe(400);
    const audit = await server.admin.get('/audit-log/?action=webhook.recovered');
    expect(audit.body.results[0]).toMatchObject({ target_id: hook.id, details: { requeued: 0 } });
    await server.admin.delete(`/webhooks/${hook.id}/`);
    rx.stop();
  });

  test('redelivered by hand a message goes out again under its webhook-id; retried through 5xx, dead after a 4xx at WEBHOOK_MAX_ATTEMPTS', async () => {
    let status = 204;
    const rx = receiver(() => new Response(null, { status }));
    const hook = await endpoint(rx.url);
    await ingest(server, device, punchLines(nextPin(), 1));
    await waitFor(async () => (await messages(hook.id, '?status=delivered')).length === 1, 'delivered');
    const [message] = await messages(hook.id);
    expect(message!.attempts).toBeNull();
    expect(message!.delivered_at).toBeNull();

    // A delivered message can be sent again by hand: it becomes a message row.
    const again = await server.admin.post(`/webhooks/${hook.id}/messages/${message!.id}/redeliver/`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: message!.id, status: 'pending', attempts: 0 });
    await waitFor(() => rx.calls.length === 2, 'the redelivery');
    expect(rx.calls[1]!.id).toBe(String(message!.id));
    new Webhook(hook.secret).verify(rx.calls[1]!.body, rx.calls[1]!.headers);
    await waitFor(async () => (await messages(hook.id))[0]!.delivered_at !== null, 'delivered again');

    // A message row failing with 5xx is retried past WEBHOOK_MAX_ATTEMPTS (3): its horizon is
    // the endpoint's own (WEBHOOK_DISABLE_AFTER, outage.test.ts); a 4xx answered from attempt
    // WEBHOOK_MAX_ATTEMPTS on dead-letters it.
    status = 503;
    await server.admin.post(`/webhooks/${hook.id}/messages/${message!.id}/redeliver/`);
    await waitFor(() => rx.calls.length >= 7, 'five attempts');
    const [failing] = await messages(hook.id, '?status=pending');
    expect(failing).toMatchObject({ id: message!.id, last_error: 'HTTP 503' });
    status = 422;
    await waitFor(async () => (await messages(hook.id, '?status=dead')).length === 1, 'dead after a 4xx');
    const [dead] = await messages(hook.id, '?status=dead');
    expect(dead).toMatchObject({ id: message!.id, last_error: 'HTTP 422', next_attempt_at: null });
    const tries = Number(dead!.attempts);
    expect(tries).toBeGreaterThanOrEqual(6);
    // Hand-queued rows do not make the endpoint fail: its ordered delivery is healthy.
    expect((await view(hook.id)).failing_since).toBeNull();
    const attempts = (await server.admin.get(`/webhooks/${hook.id}/deliveries/?message=${message!.id}`)).body.results as { attempt: number }[];
    expect(attempts.map((a) => a.attempt)).toEqual([...Array.from({ length: tries }, (_, i) => tries - i), 1, 1]);

    expect((await server.admin.post(`/webhooks/${hook.id}/messages/evt_nothing/redeliver/`)).status).toBe(404);
    expect((await server.admin.get(`/webhooks/${hook.id}/messages/?status=weird`)).status).toBe(400);
    await server.admin.delete(`/webhooks/${hook.id}/`);
    rx.stop();
  });

  test('410 Gone disables the endpoint at once; it holds its position and resumes there when enabled', async () => {
    let gone = true;
    const rx = receiver(() => new Response(gone ? 'gone' : 'ok', { status: gone ? 410 : 200 }));
    const hook = await endpoint(rx.url);
    await ingest(server, device, punchLines(nextPin(), 1));
    await waitFor(async () => (await view(hook.id)).active === false, 'the endpoint to be disabled');
    const disabled = await view(hook.id);
    expect(disabled.disabled_reason).toContain('410');
    expect(rx.calls).toHaveLength(1);
    const [first] = await messages(hook.id);
    expect(first!.status).toBe('held');

    await ingest(server, device, punchLines(nextPin(), 2));
    await Bun.sleep(300);
    expect(rx.calls).toHaveLength(1);
    // Held while disabled, not sent; nothing dead.
    const statuses = (await messages(hook.id)).map((m) => m.status);
    expect(statuses).toEqual(['held', 'held', 'held']);
    expect(await messages(hook.id, '?status=held')).toHaveLength(3);
    expect(await messages(hook.id, '?status=pending')).toEqual([]);
    const refused = await server.admin.post(`/webhooks/${hook.id}/messages/${first!.id}/redeliver/`);
    expect(refused.status).toBe(409);

    gone = false;
    const enabled = await server.admin.post(`/webhooks/${hook.id}/enable/`);
    expect(enabled.body.active).toBe(true);
    expect(enabled.body.disabled_reason).toBeNull();
    await waitFor(() => rx.calls.length === 4, 'the held messages');
    // Each once (requests of a window may arrive in any order; order is tested one at a time).
    const order = rx.calls.slice(1).map((c) => punchOf(c.body));
    expect(new Set(order).size).toBe(3);
    expect(rx.calls.slice(1).map((c) => c.id)).toContain(rx.calls[0]!.id);
    await waitFor(async () => (await messages(hook.id, '?status=delivered')).length === 3, 'all delivered');
    await server.admin.delete(`/webhooks/${hook.id}/`);
    rx.stop();
  });

  test('redirects are not followed: a 3xx is a failed attempt, retried', async () => {
    const target = receiver();
    const rx = receiver(() => new Response(null, { status: 302, headers: { location: target.url } }));
    const hook = await endpoint(rx.url);
    await ingest(server, device, punchLines(nextPin(), 1));
    await waitFor(() => rx.calls.length >= 3, 'three attempts');
    expect(target.calls).toHaveLength(0);
    const log = await server.admin.get(`/webhooks/${hook.id}/deliveries/`);
    expect(log.body.results[0].status_code).toBe(302);
    expect(log.body.results[0].error).toContain('redirects are not followed');
    expect(await messages(hook.id, '?status=pending')).toHaveLength(1);
    await server.admin.delete(`/webhooks/${hook.id}/`);
    rx.stop();
    target.stop();
  });

  test('the test send: a signed webhook_test now, its answer, shown in the attempt log as a test; no message, the endpoint untouched', async () => {
    const rx = receiver((n) => new Response(null, { status: n === 1 ? 204 : 500 }));
    const hook = await endpoint(rx.url);
    const before = await view(hook.id);
    const sent = await server.admin.post(`/webhooks/${hook.id}/test/`);
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ status_code: 204, error: null, duration_ms: expect.any(Number) });
    expect(rx.calls).toHaveLength(1);
    const body = new Webhook(hook.secret).verify(rx.calls[0]!.body, rx.calls[0]!.headers) as { type: string; timestamp: string; sequence: null; data: unknown };
    expect(body).toEqual({ type: 'webhook_test', timestamp: expect.any(String), sequence: null, data: { endpoint: hook.id } });
    expect(Math.abs(Date.parse(body.timestamp) - Date.now())).toBeLessThan(10_000);

    const failed = await server.admin.post(`/webhooks/${hook.id}/test/`);
    expect(failed.body).toMatchObject({ status_code: 500, error: 'HTTP 500' });
    expect(rx.calls[1]!.id).not.toBe(rx.calls[0]!.id);
    // The endpoint is untouched; the attempt log shows the two tests as tests (issue 26), no message is queued.
    expect(await view(hook.id)).toEqual(before);
    const attempts = (await server.admin.get(`/webhooks/${hook.id}/deliveries/`)).body.results;
    expect(attempts.map((d: any) => [d.test, d.event_type, d.status_code])).toEqual([
      [true, 'webhook_test', 500],
      [true, 'webhook_test', 204],
    ]);
    expect(await messages(hook.id)).toEqual([]);
    const audit = await server.admin.get('/audit-log/?action=webhook.tested');
    expect(audit.body.results[0]).toMatchObject({ actor: 'admin@example.com', target_id: hook.id, details: { status_code: 500 } });

    // A refused URL is answered, not sent.
    const strict = await startTestServer({ ...FAST, WEBHOOK_ALLOW_PRIVATE_NETWORKS: false }, { dir: server.dir, db: server.fpa.db, startJobs: false });
    try {
      const refused = await strict.admin.post(`/webhooks/${hook.id}/test/`);
      expect(refused.body).toMatchObject({ status_code: null, error: expect.stringContaining('URL refused') });
      expect(rx.calls).toHaveLength(2);
    } finally {
      await strict.close();
    }
    expect((await server.admin.post('/webhooks/00000000-0000-4000-8000-000000000000/test/')).status).toBe(404);
    await server.admin.delete(`/webhooks/${hook.id}/`);
    rx.stop();
  });
});

describe('webhooks with their own settings', () => {
  test('an endpoint failing continuously for WEBHOOK_DISABLE_AFTER is disabled; its messages are held, not dead', async () => {
    const other = await startTestServer({ ...FAST, WEBHOOK_DISABLE_AFTER: 300 });
    try {
      let up = false;
      const rx = receiver(() => new Response(null, { status: up ? 204 : 500 }));
      const created = await other.admin.post('/webhooks/', { url: rx.url });
      const dev = await approvedDevice(other, 'FAIL0001');
      await ingest(other, dev, punchLines('1', 2));
      await waitFor(async () => (await other.admin.get(`/webhooks/${created.body.id}/`)).body.active === false, 'the endpoint to be disabled');
      const view = (await other.admin.get(`/webhooks/${created.body.id}/`)).body;
      expect(view.disabled_reason).toContain('failing continuously');
      const statuses = (await other.admin.get(`/webhooks/${created.body.id}/messages/`)).body.results.map((m: { status: string }) => m.status);
      expect(statuses).toEqual(['held', 'held']);
      const calls = rx.calls.length;
      await Bun.sleep(200);
      expect(rx.calls).toHaveLength(calls);
      const audit = await other.admin.get('/audit-log/?action=webhook.disabled');
      expect(audit.body.results[0]).toMatchObject({ actor: 'system', target_id: created.body.id });

      up = true;
      expect((await other.admin.post(`/webhooks/${created.body.id}/enable/`)).status).toBe(200);
      await waitFor(async () => (await other.admin.get(`/webhooks/${created.body.id}/messages/?status=delivered`)).body.results.length === 2, 'both delivered');
      rx.stop();
    } finally {
      await other.close();
    }
  });

  test('each endpoint gets its events in log order', async () => {
    const server = await startTestServer({ ...FAST, WEBHOOK_CONCURRENCY: 1, WEBHOOK_BATCH_SIZE: 7 });
    // Every fifth request fails, so the order must survive retries from the position.
    const rx = receiver((n) => new Response(null, { status: n % 5 === 0 ? 503 : 204 }));
    const other = receiver();
    try {
      await server.admin.post('/webhooks/', { url: rx.url });
      await server.admin.post('/webhooks/', { url: other.url });
      const dev = await approvedDevice(server, 'ORDER001');
      for (let i = 0; i < 6; i++) await ingest(server, dev, punchLines(String(i + 1), 10));
      await waitFor(() => new Set(rx.calls.map((c) => c.id)).size === 60 && other.calls.length === 60, 'every punch to both');
      const accepted = rx.calls.filter((_, i) => (i + 1) % 5 !== 0).map((c) => punchOf(c.body));
      expect(accepted).toEqual([...accepted].sort((a, b) => a - b));
      expect(new Set(accepted).size).toBe(60);
      const second = other.calls.map((c) => punchOf(c.body));
      expect(second).toEqual([...second].sort((a, b) => a - b));
      expect(new Set(second).size).toBe(60);
    } finally {
      rx.stop();
      other.stop();
      await server.close();
    }
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
      expect(run.body.result).toMatchObject({ endpoints: 1, delivered: 4, dead: 0, stale: 0 });
      expect(rx.calls).toHaveLength(4);
      for (const call of rx.calls) new Webhook(created.body.secret).verify(call.body, call.headers);
      expect((await server.admin.post('/jobs/deliver-webhooks/run/')).body.result).toMatchObject({ endpoints: 0, delivered: 0 });
      const jobs = await server.admin.get('/jobs/');
      expect(jobs.body.results.find((j: { name: string }) => j.name === 'deliver-webhooks').schedule).not.toBeNull();
    } finally {
      rx.stop();
      await server.close();
    }
  });

  test('two instances on one database deliver each event once per endpoint', async () => {
    const first = await startTestServer(FAST);
    const second = await startTestServer(FAST, { dir: first.dir, db: first.fpa.db });
    const a = receiver();
    const b = receiver();
    try {
      const endpoints = [(await first.admin.post('/webhooks/', { url: a.url })).body.id, (await second.admin.post('/webhooks/', { url: b.url })).body.id];
      const dev = await approvedDevice(first, 'TWIN0001');
      const total = 60;
      // Both instances write punches, so both workers are woken and race for the endpoints.
      for (let i = 0; i < 3; i++) {
        await Promise.all([ingest(first, dev, punchLines(`1${i}`, total / 6)), ingest(second, dev, punchLines(`2${i}`, total / 6))]);
      }
      await waitFor(() => a.calls.length >= total && b.calls.length >= total, 'every message');
      await Bun.sleep(1_200);
      for (const rx of [a, b]) {
        const ids = rx.calls.map((c) => c.id);
        expect(ids).toHaveLength(total);
        expect(new Set(ids).size).toBe(total);
      }
      expect(new Set(a.calls.map((c) => c.id))).toEqual(new Set(b.calls.map((c) => c.id)));
      for (const id of endpoints) {
        const delivered = await first.fpa.db.client.execute({
          sql: 'select sum(count) as n from fpa_webhook_deliveries where endpoint_id = ? and error is null',
          args: [id],
        });
        expect(Number(delivered.rows[0]!.n)).toBe(total);
      }
    } finally {
      a.stop();
      b.stop();
      await second.close();
      await first.close();
    }
  });
});

/** The punch sequence a `punch_received` webhook body carries. */
function sequenceOf(body: string): number {
  return (JSON.parse(body) as PunchBody).data.punch.sequence;
}
