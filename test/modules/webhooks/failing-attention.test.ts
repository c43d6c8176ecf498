/**
 * An endpoint whose receiver fails for a while is in `health/`'s attention, and its webhook part
 * is `warning`, once it has failed for ten minutes with messages waiting: a soak tester watched
 * `status: ok` and an empty `attention` for twenty minutes while the backlog grew to 20,000 and
 * the retries backed off (payroll hours behind, only the oldest-age gauge saying so). A receiver
 * restarting for a minute is not news; one that answers again clears it once delivered.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { clientAs, startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, punchLines } from '../../support/punch-feed';
import { receiver, waitFor } from '../../support/webhook-receiver';

let offset = 0;
const clock = { now: () => Date.now() + offset };
let server: TestServer;
let device: DeviceRow;

async function webhooksHealth() {
  const res = await server.admin.get('/health/');
  expect(res.status).toBe(200);
  return res.body.webhooks;
}

beforeAll(async () => {
  server = await startTestServer(
    { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 50, WEBHOOK_MAX_ATTEMPTS: 100, WEBHOOK_TIMEOUT: 2_000 },
    { clock },
  );
  device = await approvedDevice(server, 'FAILING1');
});
afterAll(async () => {
  await server.close();
});

describe('an endpoint failing', () => {
  test('for ten minutes with messages waiting needs attention (warning); answering again clears it', async () => {
    let failing = true;
    const rx = receiver(() => (failing ? new Response('down', { status: 503 }) : new Response('ok')));
    try {
      const hook = (await server.admin.post('/webhooks/', { url: rx.url })).body as { id: string };
      await ingest(server, device, punchLines('7', 2, Date.UTC(2025, 0, 6, 8)));
      await waitFor(() => rx.calls.length > 0, 'a first failed delivery');
      // A minute of failures is no news.
      offset += 60_000;
      expect(await webhooksHealth()).toMatchObject({ status: 'ok', attention: [] });
      offset += 10 * 60_000;
      const health = await webhooksHealth();
      expect(health.status).toBe('warning');
      expect(health.attention).toEqual([{ endpoint: hook.id, disabled: false, failing_since: expect.any(String), held: 0, dead_letters: 0 }]);
      // Only for those who may see the endpoints.
      expect((await (await clientAs(server, 'hr')).get('/health/')).body.webhooks.attention).toEqual([]);
      failing = false;
      await waitFor(async () => (await webhooksHealth()).backlog === 0, 'the messages delivered');
      expect(await webhooksHealth()).toMatchObject({ status: 'ok', attention: [] });
      await server.admin.delete(`/webhooks/${hook.id}/`);
    } finally {
      rx.stop();
    }
  });

  test('deletes waiting for terminals are counted apart in health’s commands', async () => {
    const commands = (await server.admin.get('/health/')).body.commands;
    expect(commands).toEqual({ pending: expect.any(Number), failed: expect.any(Number), deletes_pending: 0 });
  });
});
