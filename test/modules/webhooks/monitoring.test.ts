/**
 * What monitoring says of webhook delivery (README "Check it"): a disabled endpoint and dead
 * letters vanished from it (`health/` said `backlog: 0`, `/metrics` `fpa_webhook_messages_pending
 * 0`, while a disabled endpoint's held messages waited and payroll got nothing). Now the backlog
 * counts held messages too, `health/` names the endpoints disabled and the dead letters kept and
 * its webhook part is `warning` (the service is not down), and `/metrics` has
 * `fpa_webhook_endpoints_disabled` and `fpa_webhook_dead_letters`. Scraped often: the counts are
 * read on indexes, and a disabled endpoint's held messages are counted once, then only the
 * events recorded since.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { BacklogCounter } from '../../../src/modules/webhooks/backlog';
import { clientAs, startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, punchLines } from '../../support/punch-feed';
import { queryPlan } from '../../support/query-plan';
import { receiver, waitFor } from '../../support/webhook-receiver';

const DAY = 86_400_000;
let offset = 0;
const clock = { now: () => Date.now() + offset };
let server: TestServer;
let device: DeviceRow;
let hours = 0;

/** `n` punches, each at a time of its own (a repeat would be a duplicate, not a punch). */
function punches(n: number) {
  hours += n;
  return ingest(server, device, punchLines('7', n, Date.UTC(2025, 0, 6, 8, 0, 0) + hours * 3_600_000));
}

async function webhooksHealth() {
  const res = await server.admin.get('/health/');
  expect(res.status).toBe(200);
  return res.body.webhooks;
}

/** The value of each gauge named (without labels) in `/metrics`. */
async function gauges(...names: string[]): Promise<Record<string, number>> {
  const res = await fetch(`${server.url}/metrics`, { headers: server.admin.headers });
  expect(res.status).toBe(200);
  const text = await res.text();
  return Object.fromEntries(names.map((name) => [name, Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])]));
}

beforeAll(async () => {
  server = await startTestServer(
    { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 50, WEBHOOK_MAX_ATTEMPTS: 2, WEBHOOK_TIMEOUT: 2_000, RETENTION_DELIVERIES_DAYS: 30 },
    { clock },
  );
  device = await approvedDevice(server, 'MONITOR1');
});
afterAll(async () => {
  await server.close();
});

describe('a disabled endpoint', () => {
  test('its held messages are in the backlog and the oldest age; it is counted as disabled; health is warning until it is enabled', async () => {
    const rx = receiver((n) => new Response(n === 1 ? 'gone' : 'ok', { status: n === 1 ? 410 : 200 }));
    try {
      const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
      await punches(1);
      await waitFor(async () => (await server.admin.get(`/webhooks/${hook.id}/`)).body.active === false, 'the endpoint to be disabled');
      await punches(2);
      offset += 60_000;

      const health = await webhooksHealth();
      expect(health).toMatchObject({
        status: 'warning',
        backlog: 3,
        held: 3,
        endpoints_disabled: 1,
        dead_letters: 0,
        attention: [{ endpoint: hook.id, disabled: true, held: 3, dead_letters: 0 }],
      });
      // Since when it failed (the 410 that disabled it), as the endpoint's own view says.
      const own = (await server.admin.get(`/webhooks/${hook.id}/`)).body.failing_since;
      expect(own).toEqual(expect.any(String));
      expect(health.attention[0]?.failing_since).toBe(own);
      expect(health.oldest_pending_age_seconds).toBeGreaterThanOrEqual(60);
      // HR reads health/ but not the endpoints (GET webhooks/ is not theirs): the counts, not which.
      const hr = await clientAs(server, 'hr');
      expect((await hr.get('/health/')).body.webhooks).toMatchObject({ status: 'warning', endpoints_disabled: 1, held: 3, attention: [] });
      const scraped = await gauges(
        'fpa_webhook_messages_pending',
        'fpa_webhook_endpoints_disabled',
        'fpa_webhook_dead_letters',
        'fpa_webhook_oldest_pending_age_seconds',
      );
      expect(scraped).toMatchObject({ fpa_webhook_messages_pending: 3, fpa_webhook_endpoints_disabled: 1, fpa_webhook_dead_letters: 0 });
      expect(scraped.fpa_webhook_oldest_pending_age_seconds).toBeGreaterThanOrEqual(60);
      // Held messages keep coming while it stays disabled: counted on from where the last count stopped.
      await punches(2);
      expect(await webhooksHealth()).toMatchObject({ backlog: 5, held: 5, attention: [{ endpoint: hook.id, held: 5 }] });

      expect((await server.admin.post(`/webhooks/${hook.id}/enable/`)).status).toBe(200);
      await waitFor(async () => (await webhooksHealth()).backlog === 0, 'the held messages delivered');
      expect(await webhooksHealth()).toMatchObject({
        status: 'ok',
        backlog: 0,
        held: 0,
        endpoints_disabled: 0,
        dead_letters: 0,
        attention: [],
        oldest_pending_at: null,
      });
      expect(await gauges('fpa_webhook_messages_pending', 'fpa_webhook_endpoints_disabled', 'fpa_webhook_oldest_pending_age_seconds')).toEqual({
        fpa_webhook_messages_pending: 0,
        fpa_webhook_endpoints_disabled: 0,
        fpa_webhook_oldest_pending_age_seconds: 0,
      });
      expect(rx.calls).toHaveLength(6);
      await server.admin.delete(`/webhooks/${hook.id}/`);
    } finally {
      rx.stop();
    }
  });

  test('a caller limited to areas is told nothing of the webhooks, as before', async () => {
    const rx = receiver(() => new Response('gone', { status: 410 }));
    try {
      const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
      await punches(1);
      await waitFor(async () => (await server.admin.get(`/webhooks/${hook.id}/`)).body.active === false, 'the endpoint to be disabled');
      expect((await webhooksHealth()).status).toBe('warning');
      const limited = await clientAs(server, 'viewer', ['north']);
      expect((await limited.get('/health/')).body.webhooks).toEqual({
        status: 'ok',
        backlog: 0,
        held: 0,
        oldest_pending_at: null,
        oldest_pending_age_seconds: null,
        endpoints_disabled: 0,
        dead_letters: 0,
        attention: [],
      });
      await server.admin.delete(`/webhooks/${hook.id}/`);
      expect((await webhooksHealth()).status).toBe('ok');
    } finally {
      rx.stop();
    }
  });
});

describe('dead letters', () => {
  test('a message the receiver refused is counted, and the endpoint named, until it is sent again or older than RETENTION_DELIVERIES_DAYS', async () => {
    let refusing = true;
    const rx = receiver(() => (refusing ? new Response('no', { status: 400 }) : new Response('ok')));
    try {
      const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
      await punches(1);
      await waitFor(async () => (await webhooksHealth()).dead_letters === 1, 'the dead letter');
      const health = await webhooksHealth();
      // Still active (failing): its message is dead, not held.
      expect(health).toMatchObject({
        status: 'warning',
        endpoints_disabled: 0,
        dead_letters: 1,
        attention: [{ endpoint: hook.id, disabled: false, held: 0, dead_letters: 1 }],
      });
      expect(await gauges('fpa_webhook_dead_letters')).toEqual({ fpa_webhook_dead_letters: 1 });

      // Sent again and accepted: no longer a dead letter.
      refusing = false;
      const recovered = await server.admin.post(`/webhooks/${hook.id}/recover/`, { since: new Date(clock.now() - DAY).toISOString() });
      expect(recovered.body.requeued).toBe(1);
      await waitFor(async () => (await webhooksHealth()).dead_letters === 0, 'the recovered message delivered');
      expect(await webhooksHealth()).toMatchObject({ status: 'ok', attention: [] });

      // Another refused: counted while its attempts are kept, not once they are past the window.
      refusing = true;
      await punches(1);
      await waitFor(async () => (await webhooksHealth()).dead_letters === 1, 'the second dead letter');
      offset += 29 * DAY;
      expect((await webhooksHealth()).dead_letters).toBe(1);
      offset += 2 * DAY;
      expect(await webhooksHealth()).toMatchObject({ status: 'ok', dead_letters: 0, attention: [] });
      expect(await gauges('fpa_webhook_dead_letters')).toEqual({ fpa_webhook_dead_letters: 0 });
      refusing = false;
      await server.admin.delete(`/webhooks/${hook.id}/`);
    } finally {
      rx.stop();
    }
  });
});

describe('the cost of a scrape', () => {
  test('a disabled endpoint’s held messages are counted once, then only the events recorded since', async () => {
    const rx = receiver(() => new Response('gone', { status: 410 }));
    try {
      const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
      await punches(1);
      await waitFor(async () => (await server.admin.get(`/webhooks/${hook.id}/`)).body.active === false, 'the endpoint to be disabled');
      await punches(3);
      const log = server.fpa.service.events;
      const counted: [number, number][] = [];
      const recording = {
        lastSequence: () => log.lastSequence(),
        countBetween: (after: number, upTo: number, types: readonly string[]) => {
          counted.push([after, upTo]);
          return log.countBetween(after, upTo, types);
        },
      };
      const counter = new BacklogCounter({ db: server.fpa.db, clock, settings: { RETENTION_DELIVERIES_DAYS: 30 } }, recording);
      const position = (await server.admin.get(`/webhooks/${hook.id}/`)).body.position as number;
      const first = await counter.read();
      expect(first).toMatchObject({ pending: 4, held: 4, endpoints_disabled: 1 });
      const head = await log.lastSequence();
      expect(counted).toEqual([[position, head]]);

      await punches(2);
      counted.length = 0;
      expect(await counter.read()).toMatchObject({ pending: 6, held: 6 });
      expect(counted).toEqual([[head, await log.lastSequence()]]);
      // The gauges of one scrape, read at once, share one reading.
      counted.length = 0;
      const [a, b] = await Promise.all([counter.read(), counter.read()]);
      expect(a).toBe(b);
      expect(counted).toHaveLength(1);
      await server.admin.delete(`/webhooks/${hook.id}/`);
    } finally {
      rx.stop();
    }
  });

  test('the message rows are counted on an index', async () => {
    const plan = (sql: string) => queryPlan(server.fpa.db.filePath, sql, [0]);
    expect(
      (await plan("select endpoint_id, count(*) from fpa_webhook_messages where status = 'dead' and next_attempt_at >= ? group by endpoint_id")).join('\n'),
    ).toContain('USING INDEX fpa_webhook_messages_due (status=? AND next_attempt_at>?)');
    expect(
      (await plan("select endpoint_id, count(*), min(event_at) from fpa_webhook_messages where status = 'pending' and ? = 0 group by endpoint_id")).join('\n'),
    ).toContain('USING INDEX fpa_webhook_messages_due (status=?)');
    expect(
      (await plan("select count(*), min(at) from fpa_events where sequence > ? and sequence <= 1000 and type in ('punch_received')")).join('\n'),
    ).toContain('USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)');
  });
});
