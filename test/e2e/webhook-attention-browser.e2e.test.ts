/**
 * The console's Overview in a real browser: a webhook endpoint disabled (it answered 410 Gone;
 * its messages are held, payroll gets nothing) and one holding a dead letter (the receiver
 * refused a message) need attention, each said with its receiver and linking to that endpoint on
 * Integrations, which opens its deliveries and shows what it holds. Before, the Overview showed
 * nothing: `health/` counted neither (its backlog said 0).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { goTo, launchBrowser, onSignedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';
import { approvedDevice, ingest, punchLines } from '../support/punch-feed';
import { receiver, waitFor } from '../support/webhook-receiver';

let server: TestServer;
let browser: Browser;
const errors: string[] = [];
const gone = receiver(() => new Response('gone', { status: 410 }));
const refusing = receiver(() => new Response('no', { status: 400 }));
let goneId = '';
let refusingId = '';

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 60_000, WEBHOOK_MAX_ATTEMPTS: 1, WEBHOOK_TIMEOUT: 2_000 }),
    launchBrowser(),
  ]);
  goneId = (await server.admin.post('/webhooks/', { url: gone.url })).body.id;
  refusingId = (await server.admin.post('/webhooks/', { url: refusing.url })).body.id;
  const device = await approvedDevice(server, 'ATTN0001');
  await ingest(server, device, punchLines('5', 1));
  await waitFor(async () => {
    const webhooks = (await server.admin.get('/health/')).body.webhooks;
    return webhooks.endpoints_disabled === 1 && webhooks.dead_letters === 1;
  }, 'one endpoint disabled, one dead letter');
  await ingest(server, device, punchLines('5', 2, Date.UTC(2025, 0, 7, 8, 0, 0)));
});
afterAll(async () => {
  gone.stop();
  refusing.stop();
  await browser?.close();
  await server?.close();
  expect(errors).toEqual([]);
});

describe('Overview › Needs attention', () => {
  test('a disabled endpoint and a dead letter are listed, each linking to its endpoint; the link opens it on Integrations', async () => {
    await onSignedInPage(browser, server, errors, async (page) => {
      await goTo(page, '#/overview', 'Overview');
      const attention = page.getByRole('region', { name: 'Needs attention' });
      const disabled = attention.getByRole('link', {
        name: `The webhook to ${gone.url} is disabled (the endpoint answered 410 Gone): 3 messages are held until it is enabled`,
      });
      await disabled.waitFor();
      expect(await disabled.getAttribute('href')).toBe(`#/integrations/${goneId}`);
      // The held messages are said once, on the disabled endpoint's line, not again in the backlog's.
      const backlog = (await server.admin.get('/health/')).body.webhooks as { backlog: number; held: number };
      expect(backlog.held).toBe(3);
      const waiting = attention.getByRole('link', { name: /webhook messages? not delivered yet/ });
      const waitingCount = backlog.backlog - backlog.held;
      if (waitingCount > 0) expect(await waiting.textContent()).toStartWith(`${waitingCount} webhook message`);
      else expect(await waiting.count()).toBe(0);
      const dead = attention.getByRole('link', { name: `1 webhook message to ${refusing.url} refused and dead-lettered: send again with Recover` });
      expect(await dead.getAttribute('href')).toBe(`#/integrations/${refusingId}`);

      await disabled.click();
      await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
      await page.getByRole('heading', { level: 3, name: `Deliveries to ${gone.url}` }).waitFor();
      const row = page.getByRole('row', { name: new RegExp(gone.url.replaceAll('.', '\\.')) });
      expect(await row.textContent()).toContain('3 messages held');
      const other = page.getByRole('row', { name: new RegExp(refusing.url.replaceAll('.', '\\.')) });
      expect(await other.textContent()).toContain('1 dead letter');
    });
  });
});

describe('Integrations › Recover', () => {
  test('offers the whole outage of a failing endpoint first (from the hour before it began), then the last day, week and month', async () => {
    const failingSince = (await server.admin.get(`/webhooks/${refusingId}/`)).body.failing_since as string;
    expect(failingSince).not.toBeNull();
    await onSignedInPage(browser, server, errors, async (page) => {
      await goTo(page, `#/integrations/${refusingId}`, 'Integrations');
      const row = page.getByRole('row', { name: new RegExp(refusing.url.replaceAll('.', '\\.')) });
      await row.getByRole('button', { name: /Recover/ }).click();
      const ask = page.getByRole('dialog', { name: 'Send again everything not delivered since when?' });
      const since = ask.getByLabel('Since');
      const offered = await since.locator('option').allTextContents();
      expect(offered).toHaveLength(4);
      expect(offered[0]).toStartWith('Since it began failing (');
      expect(offered.slice(1)).toEqual(['The last 24 hours', 'The last 7 days', 'The last 30 days']);
      await ask.getByRole('button', { name: 'Recover' }).click();
      await page.getByText(/messages? queued again\./).waitFor();
    });
    const [entry] = (await server.admin.get(`/audit-log/?action=webhook.recovered&target=${refusingId}`)).body.results as { details: { since: string } }[];
    expect(entry?.details.since).toBe(new Date(Date.parse(failingSince) - 3_600_000).toISOString());
  });
});
