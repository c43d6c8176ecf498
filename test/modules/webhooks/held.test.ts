/**
 * Webhook fixes: punches that arrive while an endpoint is disabled are held for it and sent
 * once it is enabled (and purged by retention like delivered ones); the SSRF check's lookup is
 * bounded and a claim's lease covers lookup plus request; the request goes to the vetted
 * address with the URL's Host header and TLS name, so fetch never resolves the name again.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import type { DeviceRow } from '../../../src/modules/devices/service';
import { fetchSender, pinnedTarget } from '../../../src/modules/webhooks/sender';
import { checkWebhookUrl } from '../../../src/modules/webhooks/ssrf';
import { leaseDurationOf } from '../../../src/modules/webhooks/worker';
import { startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, punchLines } from '../../support/punch-feed';
import { receiver, waitFor } from '../../support/webhook-receiver';

const FAST = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 50, WEBHOOK_MAX_ATTEMPTS: 3, WEBHOOK_TIMEOUT: 2_000 };

async function statusesOf(server: TestServer, endpoint: string): Promise<string[]> {
  const rows = await server.fpa.db.client.execute({
    sql: 'select status from fpa_webhook_outbox where endpoint_id = ? order by punch_sequence',
    args: [endpoint],
  });
  return rows.rows.map((r) => String(r.status));
}

describe('punches while an endpoint is disabled', () => {
  let server: TestServer;
  let device: DeviceRow;

  beforeAll(async () => {
    server = await startTestServer({ ...FAST, RETENTION_DELIVERIES_DAYS: 7 });
    device = await approvedDevice(server, 'HELD0001');
  });
  afterAll(async () => {
    await server.close();
  });

  test('are held for it, not sent; enabling it sends them, signed, with their punches', async () => {
    // 410 disables the endpoint at once; afterwards the receiver accepts.
    const rx = receiver((n) => new Response(n === 1 ? 'gone' : 'ok', { status: n === 1 ? 410 : 200 }));
    try {
      const created = await server.admin.post('/webhooks/', { url: rx.url });
      const hook = created.body as { id: string; secret: string };
      await ingest(server, device, punchLines('11', 1));
      await waitFor(async () => (await server.admin.get(`/webhooks/${hook.id}/`)).body.active === false, 'the endpoint to be disabled');

      const whileOff = await ingest(server, device, punchLines('12', 2));
      await Bun.sleep(300);
      expect(rx.calls).toHaveLength(1);
      expect(await statusesOf(server, hook.id)).toEqual(['dead', 'held', 'held']);
      const held = await server.admin.get(`/webhooks/${hook.id}/messages/?status=held`);
      expect(held.status).toBe(200);
      const heldViews = held.body.results.map((m: { punch_sequence: number; next_attempt_at: string | null }) => [m.punch_sequence, m.next_attempt_at]);
      expect(heldViews.sort()).toEqual([
        [whileOff.lastSequence! - 1, null],
        [whileOff.lastSequence, null],
      ]);

      const enabled = await server.admin.post(`/webhooks/${hook.id}/enable/`);
      expect(enabled.status).toBe(200);
      await waitFor(() => rx.calls.length === 3, 'the held messages');
      const sent = rx.calls
        .slice(1)
        .map((c) => (new Webhook(hook.secret).verify(c.body, c.headers) as { data: { punch: { sequence: number } } }).data.punch.sequence);
      expect(sent.sort((a, b) => a - b)).toEqual([whileOff.lastSequence! - 1, whileOff.lastSequence!]);
      await waitFor(async () => (await statusesOf(server, hook.id)).join() === 'dead,delivered,delivered', 'both delivered');
      // The punch that was dead-lettered by the 410 stays dead until redelivered by hand.
      await Bun.sleep(200);
      expect(rx.calls).toHaveLength(3);
      await server.admin.delete(`/webhooks/${hook.id}/`);
    } finally {
      rx.stop();
    }
  });

  test('a deleted endpoint gets nothing', async () => {
    const gone = await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/gone' });
    expect((await server.admin.delete(`/webhooks/${gone.body.id}/`)).status).toBe(204);
    await ingest(server, device, punchLines('13', 2));
    expect(await statusesOf(server, gone.body.id)).toEqual([]);
  });

  test('held messages older than RETENTION_DELIVERIES_DAYS are purged; newer ones stay', async () => {
    const rx = receiver(() => new Response('gone', { status: 410 }));
    try {
      const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
      await ingest(server, device, punchLines('14', 1));
      await waitFor(async () => (await server.admin.get(`/webhooks/${hook.id}/`)).body.active === false, 'the endpoint to be disabled');
      await ingest(server, device, punchLines('15', 2));
      expect(await statusesOf(server, hook.id)).toEqual(['dead', 'held', 'held']);
      // One held message was written eight days ago.
      const eightDaysAgo = Date.now() - 8 * 86_400_000;
      await server.fpa.db.write(({ tx }) =>
        tx.run(
          `update fpa_webhook_outbox set created_at = ${eightDaysAgo} where id = (select id from fpa_webhook_outbox where endpoint_id = '${hook.id}' and status = 'held' order by punch_sequence limit 1)`,
        ),
      );
      const run = await server.admin.post('/jobs/purge-retention/run/');
      expect(run.status).toBe(200);
      expect(await statusesOf(server, hook.id)).toEqual(['dead', 'held']);
      await server.admin.delete(`/webhooks/${hook.id}/`);
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

  test('a claimed row is leased for two rounds of lookup plus request', async () => {
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
      const rows = await server.fpa.db.client.execute({ sql: 'select lease_until from fpa_webhook_outbox where endpoint_id = ?', args: [hook.id] });
      const lease = Number(rows.rows[0]!.lease_until) - claimedFrom;
      // Lookup at most min(WEBHOOK_TIMEOUT, 5 s), request at most WEBHOOK_TIMEOUT, twice.
      expect(lease).toBeGreaterThanOrEqual(2 * (5_000 + 60_000));
      expect(leaseDurationOf(60_000)).toBeGreaterThanOrEqual(2 * (5_000 + 60_000));
      expect(leaseDurationOf(2_000)).toBeGreaterThanOrEqual(2 * (2_000 + 2_000));
      release();
      expect((await run).body.result).toMatchObject({ delivered: 1 });
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
