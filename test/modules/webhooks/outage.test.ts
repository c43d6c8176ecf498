/**
 * Long receiver outages, with the clock moved on instead of waited for: under the default
 * retry schedule (30 s doubling, capped at an hour) a 3-day outage is retried to its end and
 * then delivered in full, once each, in order; an outage longer than WEBHOOK_DISABLE_AFTER
 * (7 days) disables the endpoint, which holds everything and resumes where it stopped when
 * enabled; a message refused with a 4xx is retried, dead-lettered after WEBHOOK_MAX_ATTEMPTS
 * refusals, and dead until `recover` sends it again. The worker is
 * off: each retry is run by the `deliver-webhooks` job at the time it falls due.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, punchLines } from '../../support/punch-feed';
import { type ReceivedCall, receiver } from '../../support/webhook-receiver';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let offset = 0;
const clock = { now: () => Date.now() + offset };
let server: TestServer;
let device: DeviceRow;
let pin = 1;

beforeAll(async () => {
  // Default WEBHOOK_RETRY_BACKOFF, WEBHOOK_DISABLE_AFTER and WEBHOOK_MAX_ATTEMPTS; one request at
  // a time, so arrival order is send order.
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_TIMEOUT: 2_000, WEBHOOK_WORKER: false, WEBHOOK_CONCURRENCY: 1 }, { clock });
  device = await approvedDevice(server, 'OUTAGE01');
});
afterAll(async () => {
  await server.close();
});

/** A receiver that is down until `up`, answering `refuse(call)` (default 204) once up. */
function flakyReceiver() {
  const state = { up: false, refuse: (_: ReceivedCall) => false };
  const accepted: ReceivedCall[] = [];
  const rx = receiver((_, call) => {
    if (!state.up) return new Response('down', { status: 503 });
    if (state.refuse(call)) return new Response('no', { status: 422 });
    accepted.push(call);
    return new Response(null, { status: 204 });
  });
  return { rx, state, accepted };
}

const run = async () => (await server.admin.post('/jobs/deliver-webhooks/run/')).body.result as Record<string, number>;
const view = async (id: string) => (await server.admin.get(`/webhooks/${id}/`)).body;

async function punches(count: number): Promise<void> {
  await ingest(server, device, punchLines(String(pin++), count));
}

/** Event ids of the punches since `after`, in log order. */
async function punchEventsAfter(after: number): Promise<string[]> {
  const page = await server.admin.get(`/events/?after=${after}&type=punch_received&limit=1000`);
  return (page.body.results as { id: string }[]).map((e) => e.id);
}

/** Every accepted call was signed with the secret at its own (moved) timestamp. */
function expectSigned(secret: string, calls: ReceivedCall[]): void {
  const signer = new Webhook(secret);
  for (const c of calls) {
    const at = new Date(Number(c.headers['webhook-timestamp']) * 1000);
    expect(signer.sign(c.id, at, c.body)).toBe(c.headers['webhook-signature']!);
  }
}

describe('a receiver down for days', () => {
  test('3 days: retried on the default schedule to the end (hourly at most apart), nothing dead, then delivered in full, once each, in order', async () => {
    const { rx, state, accepted } = flakyReceiver();
    try {
      const created = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string; secret: string; position: number };
      await punches(3);
      expect(await run()).toMatchObject({ retrying: 1, delivered: 0 });
      const began = clock.now();
      let retries = 1;
      let day = 1;
      while (clock.now() - began < 3 * DAY) {
        const next = Date.parse((await view(created.id)).next_attempt_at);
        offset += next - clock.now() + 1;
        // New punches keep arriving during the outage.
        if (clock.now() - began > day * DAY) {
          await punches(2);
          day++;
        }
        expect((await run()).delivered).toBe(0);
        retries++;
      }
      const during = await view(created.id);
      expect(during).toMatchObject({ active: true, attempts: retries, last_error: 'HTTP 503' });
      expect(began - Date.parse(during.failing_since)).toBeLessThan(5_000);
      // The cap: no wait longer than an hour (plus jitter), and it was reached.
      const log = (await server.admin.get(`/webhooks/${created.id}/deliveries/?limit=1000`)).body.results as { next_retry_at: string; created_at: string }[];
      const waits = log.filter((l) => l.next_retry_at !== null).map((l) => Date.parse(l.next_retry_at) - Date.parse(l.created_at));
      expect(Math.max(...waits)).toBeLessThanOrEqual(1.2 * HOUR);
      expect(waits.filter((w) => w >= 0.8 * HOUR).length).toBeGreaterThan(60);
      expect(retries).toBeGreaterThan(70);
      const ids = await punchEventsAfter(created.position);
      const total = 3 + 2 * (day - 1);
      expect(ids).toHaveLength(total);
      expect((await server.admin.get(`/webhooks/${created.id}/messages/?status=pending`)).body.results).toHaveLength(total);
      expect((await server.admin.get(`/webhooks/${created.id}/messages/?status=dead`)).body.results).toEqual([]);
      const health = (await server.admin.get('/health/')).body.webhooks;
      expect(health.backlog).toBe(total);
      expect(health.oldest_pending_age_seconds).toBeGreaterThanOrEqual(3 * 86_400);

      // Back up: the next retry (within the hour) delivers everything once, in order.
      state.up = true;
      offset += Date.parse((await view(created.id)).next_attempt_at) - clock.now() + 1;
      expect(await run()).toMatchObject({ delivered: total, retrying: 0, dead: 0 });
      expect(accepted.map((c) => c.id)).toEqual(ids);
      expectSigned(created.secret, accepted);
      expect(await view(created.id)).toMatchObject({ attempts: 0, failing_since: null, last_error: null });
      expect((await server.admin.get('/health/')).body.webhooks.backlog).toBe(0);
      expect(await run()).toMatchObject({ delivered: 0 });
      await server.admin.delete(`/webhooks/${created.id}/`);
    } finally {
      rx.stop();
    }
  });

  test('longer than WEBHOOK_DISABLE_AFTER: disabled, everything held, recovered in full, once each, after enable; a 4xx dead until recover', async () => {
    const { rx, state, accepted } = flakyReceiver();
    try {
      const created = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string; secret: string; position: number };
      await punches(2);
      await run();
      // A day at a time: one retry a day, until the endpoint has failed for 7 days.
      for (let d = 1; d <= 8 && (await view(created.id)).active; d++) {
        offset += DAY;
        await punches(1);
        await run();
      }
      const disabled = await view(created.id);
      expect(disabled.active).toBe(false);
      expect(disabled.disabled_reason).toContain('failing continuously since');
      // Disabled: held, nothing sent, nothing dead; more punches are held too.
      await punches(2);
      offset += DAY;
      expect(await run()).toMatchObject({ endpoints: 0, messages: 0 });
      const held = (await server.admin.get(`/webhooks/${created.id}/messages/`)).body.results as { status: string }[];
      expect(held.length).toBeGreaterThanOrEqual(11);
      expect(held.every((m) => m.status === 'held')).toBe(true);
      // recover while disabled: nothing is sent until the endpoint is enabled.
      expect((await server.admin.post(`/webhooks/${created.id}/recover/`, { since: new Date(clock.now() - 30 * DAY).toISOString() })).body).toEqual({
        requeued: held.length,
      });
      expect(await run()).toMatchObject({ endpoints: 0, messages: 0 });
      expect(accepted).toEqual([]);

      // Back up, and one message is refused (4xx): retried on the backoff like an outage (a
      // misrouted path during a deploy), until its attempt WEBHOOK_MAX_ATTEMPTS (12) is refused
      // too: then it is dead-lettered and delivery goes on past it at the next try.
      const ids = await punchEventsAfter(created.position);
      expect(ids).toHaveLength(held.length);
      const refused = ids[4]!;
      state.up = true;
      state.refuse = (call) => call.id === refused;
      expect((await server.admin.post(`/webhooks/${created.id}/enable/`)).status).toBe(200);
      expect(await run()).toMatchObject({ delivered: 4, dead: 0, retrying: 1 });
      // Past each retry (an hour at most, +20 % jitter).
      for (let attempt = 2; attempt < 12; attempt++) {
        offset += 2 * HOUR;
        expect([attempt, await run()]).toEqual([attempt, expect.objectContaining({ delivered: 0, dead: 0, retrying: 1 })]);
        expect((await view(created.id)).last_error).toBe('HTTP 422');
      }
      offset += 2 * HOUR;
      // Dead-lettered, the message ends that try like any failure (one message per try while
      // failing); the next try, one backoff later, goes on past it.
      expect(await run()).toMatchObject({ delivered: 0, dead: 1, retrying: 0 });
      offset += Date.parse((await view(created.id)).next_attempt_at) - clock.now() + 1;
      expect(await run()).toMatchObject({ delivered: ids.length - 5, dead: 0, retrying: 0 });
      expect(accepted.map((c) => c.id)).toEqual(ids.filter((id) => id !== refused));
      const dead = (await server.admin.get(`/webhooks/${created.id}/messages/?status=dead`)).body.results as { id: string }[];
      expect(dead.map((m) => m.id)).toEqual([refused]);

      // recover since before the outage: only the dead message goes out again, once.
      state.refuse = () => false;
      const recovered = await server.admin.post(`/webhooks/${created.id}/recover/`, { since: new Date(clock.now() - 30 * DAY).toISOString() });
      expect(recovered.body).toEqual({ requeued: 1 });
      expect(await run()).toMatchObject({ messages: 1, delivered: 1 });
      expect(accepted.map((c) => c.id).sort()).toEqual([...ids].sort());
      expect(new Set(accepted.map((c) => c.id)).size).toBe(accepted.length);
      expectSigned(created.secret, accepted);
      const statuses = (await server.admin.get(`/webhooks/${created.id}/messages/`)).body.results as { status: string }[];
      expect(statuses.every((m) => m.status === 'delivered')).toBe(true);
      expect(await run()).toMatchObject({ delivered: 0, messages: 0 });
    } finally {
      rx.stop();
    }
  });
});
