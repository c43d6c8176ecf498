/**
 * Held messages and the lease: events recorded while an endpoint is disabled are held for it
 * (its position does not move) and sent in order once it is enabled; a deleted endpoint gets
 * nothing; a new one starts at the log's head. The SSRF check's lookup is bounded and a claim's
 * lease covers lookup plus requests; the request goes to the vetted address with the URL's Host
 * header and TLS name, so fetch never resolves the name again.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { endpointLeaseOf } from '../../../src/modules/webhooks/ordered-delivery';
import { fetchSender, pinnedTarget } from '../../../src/modules/webhooks/sender';
import { checkWebhookUrl } from '../../../src/modules/webhooks/ssrf';
import { leaseDurationOf } from '../../../src/modules/webhooks/worker';
import { startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, punchLines } from '../../support/punch-feed';
import { receiver, waitFor } from '../../support/webhook-receiver';

const FAST = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 50, WEBHOOK_MAX_ATTEMPTS: 3, WEBHOOK_TIMEOUT: 2_000 };

async function statusesOf(server: TestServer, endpoint: string): Promise<string[]> {
  const page = await server.admin.get(`/webhooks/${endpoint}/messages/`);
  return (page.body.results as { status: string }[]).map((m) => m.status).reverse();
}

describe('events while an endpoint is disabled', () => {
  let server: TestServer;
  let device: DeviceRow;

  beforeAll(async () => {
    server = await startTestServer(FAST);
    device = await approvedDevice(server, 'HELD0001');
  });
  afterAll(async () => {
    await server.close();
  });

  test('are held for it, not sent; enabling it sends them, signed, in order, from where it stopped', async () => {
    // 410 disables the endpoint at once; afterwards the receiver accepts.
    const rx = receiver((n) => new Response(n === 1 ? 'gone' : 'ok', { status: n === 1 ? 410 : 200 }));
    try {
      const created = await server.admin.post('/webhooks/', { url: rx.url });
      const hook = created.body as { id: string; secret: string; position: number };
      await ingest(server, device, punchLines('11', 1));
      await waitFor(async () => (await server.admin.get(`/webhooks/${hook.id}/`)).body.active === false, 'the endpoint to be disabled');
      const stopped = (await server.admin.get(`/webhooks/${hook.id}/`)).body.position as number;

      const whileOff = await ingest(server, device, punchLines('12', 2));
      await Bun.sleep(300);
      expect(rx.calls).toHaveLength(1);
      expect(await statusesOf(server, hook.id)).toEqual(['held', 'held', 'held']);
      expect((await server.admin.get(`/webhooks/${hook.id}/`)).body.position).toBe(stopped);
      const held = await server.admin.get(`/webhooks/${hook.id}/messages/?status=held`);
      expect(held.status).toBe(200);
      expect(held.body.results.every((m: { next_attempt_at: string | null }) => m.next_attempt_at === null)).toBe(true);
      // Held, not forgotten: the health backlog counts them (it said 0), and names the endpoint.
      const health = await server.admin.get('/health/');
      expect(health.body.webhooks).toMatchObject({ status: 'warning', backlog: 3, held: 3, endpoints_disabled: 1 });

      const enabled = await server.admin.post(`/webhooks/${hook.id}/enable/`);
      expect(enabled.status).toBe(200);
      await waitFor(() => rx.calls.length === 4, 'the held messages');
      const sent = rx.calls
        .slice(1)
        .map((c) => (new Webhook(hook.secret).verify(c.body, c.headers) as { data: { punch: { sequence: number } } }).data.punch.sequence);
      expect(sent.sort((a, b) => a - b)).toEqual([whileOff.lastSequence! - 2, whileOff.lastSequence! - 1, whileOff.lastSequence!]);
      // The message the 410 answered is sent again, under the same webhook-id.
      expect(rx.calls.slice(1).map((c) => c.id)).toContain(rx.calls[0]!.id);
      await waitFor(async () => (await statusesOf(server, hook.id)).join() === 'delivered,delivered,delivered', 'all delivered');
      const audit = await server.admin.get('/audit-log/?action=webhook.enabled');
      expect(audit.body.results[0]).toMatchObject({ target_id: hook.id, details: { resumed_after: stopped, held: 3 } });
      await server.admin.delete(`/webhooks/${hook.id}/`);
    } finally {
      rx.stop();
    }
  });

  test('a deleted endpoint gets nothing; a new one starts at the head of the log', async () => {
    const rx = receiver();
    try {
      const gone = await server.admin.post('/webhooks/', { url: rx.url });
      expect((await server.admin.delete(`/webhooks/${gone.body.id}/`)).status).toBe(204);
      await ingest(server, device, punchLines('13', 2));
      const fresh = await server.admin.post('/webhooks/', { url: rx.url });
      await Bun.sleep(300);
      expect(rx.calls).toHaveLength(0);
      expect((await server.admin.get(`/webhooks/${fresh.body.id}/messages/`)).body.results).toEqual([]);
      await ingest(server, device, punchLines('14', 1));
      await waitFor(() => rx.calls.length === 1, 'the new punch');
      await server.admin.delete(`/webhooks/${fresh.body.id}/`);
    } finally {
      rx.stop();
    }
  });
});

describe('SSRF: bounded lookup, lease, no second resolution', () => {
  test('a lookup that hangs is given up after lookupTimeoutMs', async () => {
    const started = performance.now();
    const hanging = () => new Promise<string[]>(() => undefined);
    const result = await checkWebhookUrl('https://hooks.example.com/x', { allowPrivateNetworks: false, resolve: hanging, lookupTimeoutMs: 50 });
    expect(result).toEqual({ ok: false, reason: 'host lookup timed out' });
    expect(performance.now() - started).toBeLessThan(1_000);
    // A resolver that fails is still "could not be resolved".
    const failing = () => Promise.reject(new Error('ENOTFOUND'));
    expect(await checkWebhookUrl('https://hooks.example.com/x', { allowPrivateNetworks: false, resolve: failing })).toEqual({
      ok: false,
      reason: 'host could not be resolved',
    });
  });

  test('a claimed endpoint is leased for a lookup plus its batch of requests; a message row for two rounds', async () => {
    const server = await startTestServer({ ...FAST, WEBHOOK_WORKER: false, WEBHOOK_TIMEOUT: 60_000 });
    let release: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => {
      release = resolve;
    });
    const rx = receiver(async () => {
      await answered;
      return new Response('ok');
    });
    try {
      const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
      await ingest(server, await approvedDevice(server, 'LEASE001'), punchLines('1', 1));
      const claimedFrom = Date.now();
      const run = server.admin.post('/jobs/deliver-webhooks/run/');
      await waitFor(() => rx.calls.length === 1, 'the request');
      const rows = await server.fpa.db.client.execute({ sql: 'select lease_until from fpa_webhook_endpoints where id = ?', args: [hook.id] });
      const lease = Number(rows.rows[0]!.lease_until) - claimedFrom;
      // Lookup at most min(WEBHOOK_TIMEOUT, 5 s), then ceil(100 / 16) = 7 rounds of requests.
      expect(lease).toBeGreaterThanOrEqual(5_000 + 7 * 60_000);
      expect(endpointLeaseOf(60_000, 100, 16)).toBeGreaterThanOrEqual(5_000 + 7 * 60_000);
      expect(endpointLeaseOf(2_000, 10, 1)).toBeGreaterThanOrEqual(2_000 + 10 * 2_000);
      expect(leaseDurationOf(60_000)).toBeGreaterThanOrEqual(2 * (5_000 + 60_000));
      expect(leaseDurationOf(2_000)).toBeGreaterThanOrEqual(2 * (2_000 + 2_000));
      release();
      expect((await run).body.result).toMatchObject({ delivered: 1 });
      const after = await server.fpa.db.client.execute({ sql: 'select lease_until, claim_token from fpa_webhook_endpoints where id = ?', args: [hook.id] });
      expect(after.rows[0]).toMatchObject({ lease_until: null, claim_token: null });
    } finally {
      release();
      rx.stop();
      await server.close();
    }
  });

  test('the request goes to the vetted address with the URL’s Host header: no second DNS lookup', async () => {
    const rx = receiver();
    try {
      // `.invalid` never resolves (RFC 6761): only a pinned connection can reach the receiver.
      const url = `http://hooks.invalid:${rx.port}/hook?x=1`;
      const unpinned = await fetchSender({ url, headers: {}, body: '{}', timeoutMs: 2_000 });
      expect(unpinned.statusCode).toBeNull();
      const pinned = await fetchSender({ url, headers: { 'content-type': 'application/json' }, body: '{"a":1}', timeoutMs: 2_000, connectTo: '127.0.0.1' });
      expect(pinned).toMatchObject({ statusCode: 200, error: null });
      expect(rx.calls).toHaveLength(1);
      expect(rx.calls[0]).toMatchObject({ host: `hooks.invalid:${rx.port}`, body: '{"a":1}' });
    } finally {
      rx.stop();
    }
  });

  test('https keeps the TLS server name of the URL; IPv6 addresses are bracketed; literals are left alone', () => {
    expect(pinnedTarget('https://hooks.example.com/a?b=1', '93.184.216.34')).toEqual({
      url: 'https://93.184.216.34/a?b=1',
      headers: { host: 'hooks.example.com' },
      serverName: 'hooks.example.com',
    });
    expect(pinnedTarget('https://hooks.example.com.:8443/a', '2606:2800:220:1::1')).toEqual({
      url: 'https://[2606:2800:220:1::1]:8443/a',
      headers: { host: 'hooks.example.com.:8443' },
      serverName: 'hooks.example.com',
    });
    expect(pinnedTarget('http://hooks.example.com/a', '93.184.216.34')).toEqual({ url: 'http://93.184.216.34/a', headers: { host: 'hooks.example.com' } });
    expect(pinnedTarget('https://8.8.8.8/a', '8.8.8.8')).toEqual({ url: 'https://8.8.8.8/a', headers: {} });
    expect(pinnedTarget('https://[2606:4700:4700::1111]/a', '2606:4700:4700::1111')).toEqual({ url: 'https://[2606:4700:4700::1111]/a', headers: {} });
    expect(pinnedTarget('https://hooks.example.com/a', undefined)).toEqual({ url: 'https://hooks.example.com/a', headers: {} });
  });
});
