/**
 * The Today board of a larger company in a browser: 250 people imported at once, on a Monday.
 * A count's list draws the first 200 by name and offers the rest on request ("Show all"), which
 * holds until another count is chosen; the counts themselves are whole. The server sends only
 * what is drawn: the chosen count's people, 200 of them until all are asked for.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Browser, Page, Response as PageResponse } from 'playwright-core';
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

/** The people each board read brought (answers of `attendance/today/` while `watch` runs). */
async function boardReads(watch: () => Promise<void>): Promise<{ url: string; people: number; total: number }[]> {
  const reads: Promise<{ url: string; people: number; total: number }>[] = [];
  const listener = (response: PageResponse) => {
    if (!response.url().includes('/attendance/today/')) return;
    reads.push(
      response.json().then((b: { people: unknown[]; people_total: number }) => ({ url: response.url(), people: b.people.length, total: b.people_total })),
    );
  };
  page.on('response', listener);
  try {
    await watch();
  } finally {
    page.off('response', listener);
  }
  return Promise.all(reads);
}

test('a list of 250 draws the first 200 by name, and all of them on request until another count is chosen', async () => {
  await page.getByRole('heading', { level: 2, name: `Expected: ${PEOPLE}` }).waitFor();
  expect(await rows()).toBe(200);
  expect(await page.locator('#board-list tbody tr').last().textContent()).toContain('Person 199');
  await page.getByText('The first 200 by name.').scrollIntoViewIfNeeded();
  // The rows scrolled to are drawn at the next frames (the list's groups out of view are not).
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await page.screenshot({ path: join(screenshotDir(), 'today-board-first-200.png') });
  const all = await boardReads(async () => {
    await page.getByRole('button', { name: `Show all ${PEOPLE}` }).click();
    await page
      .locator('#board-list tbody tr')
      .nth(PEOPLE - 1)
      .waitFor();
  });
  expect(await rows()).toBe(PEOPLE);
  expect(all.map((r) => [r.people, r.total])).toEqual([[PEOPLE, PEOPLE]]);
  // Another count starts short again, and only its first 200 come from the server.
  const short = await boardReads(async () => {
    await page.getByRole('button', { name: new RegExp(`^${PEOPLE}\\s*Not due yet$`) }).click();
    await page.getByRole('heading', { level: 2, name: `Not due yet: ${PEOPLE}` }).waitFor();
  });
  expect(await rows()).toBe(200);
  expect(short.map((r) => [new URL(r.url).searchParams.get('count'), r.people, r.total])).toEqual([['scheduled', 200, PEOPLE]]);
  // So does another area after Show all.
  await page.getByRole('button', { name: `Show all ${PEOPLE}` }).click();
  await page
    .locator('#board-list tbody tr')
    .nth(PEOPLE - 1)
    .waitFor();
  const area = await boardReads(async () => {
    await page.getByLabel('Area', { exact: true }).selectOption('default');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.getByRole('heading', { level: 2, name: `Not due yet in default: ${PEOPLE}` }).waitFor();
  });
  expect(await rows()).toBe(200);
  expect(area.map((r) => [new URL(r.url).searchParams.get('limit'), r.people])).toEqual([['200', 200]]);
  // A count of nobody is an empty list, not the expected's.
  await page.getByRole('button', { name: /^0\s*Absent$/ }).click();
  await page.getByRole('heading', { level: 2, name: 'Absent in default: 0' }).waitFor();
  expect(await rows()).toBe(0);
  expect(errors).toEqual([]);
});
