/**
 * The Today board of a larger company in a browser: 250 people imported at once, on a Monday.
 * A count's list draws the first 200 by name and offers the rest on request ("Show all"), which
 * holds until another count is chosen; the counts themselves are whole.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshotDir, signedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

const PEOPLE = 250;
const MONDAY = '2031-03-03';
let server: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];

const rows = () => page.locator('#board-list tbody tr').count();

beforeAll(async () => {
  const now = Date.parse(`${MONDAY}T10:00:00Z`);
  [server, browser] = await Promise.all([startTestServer({ TIME_ZONE: 'UTC' }, { clock: { now: () => now } }), launchBrowser()]);
  const lines = Array.from({ length: PEOPLE }, (_, i) => `P-${String(i).padStart(3, '0')},Person ${String(i).padStart(3, '0')},`);
  const imported = await fetch(`${server.admin.base}/employees/import/`, {
    method: 'POST',
    headers: { authorization: server.admin.headers.authorization!, 'content-type': 'text/csv' },
    body: ['id,name,areas', ...lines].join('\r\n'),
  });
  expect(((await imported.json()) as { created: number }).created).toBe(PEOPLE);
  page = await signedInPage(browser, server, errors, { context: { viewport: { width: 1100, height: 800 } }, now });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

test('a list of 250 draws the first 200 by name, and all of them on request until another count is chosen', async () => {
  await page.getByRole('heading', { level: 2, name: `Expected: ${PEOPLE}` }).waitFor();
  expect(await rows()).toBe(200);
  expect(await page.locator('#board-list tbody tr').last().textContent()).toContain('Person 199');
  await page.getByText('The first 200 by name.').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(screenshotDir(), 'today-board-first-200.png') });
  await page.getByRole('button', { name: `Show all ${PEOPLE}` }).click();
  await page
    .locator('#board-list tbody tr')
    .nth(PEOPLE - 1)
    .waitFor();
  expect(await rows()).toBe(PEOPLE);
  // Another count starts short again.
  await page.getByRole('button', { name: new RegExp(`^${PEOPLE}\\s*Not due yet$`) }).click();
  await page.getByRole('heading', { level: 2, name: `Not due yet: ${PEOPLE}` }).waitFor();
  expect(await rows()).toBe(200);
  expect(errors).toEqual([]);
});
