/**
 * Two people of the same name are told apart in the console: the attendance grid's rows, the
 * recent events that name them and the Today board's list, add the employee id to a name another person on the page
 * shares ("Kira Díaz (E253)"); a name nobody shares stays as it is.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, signedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let browser: Browser;
const errors: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  for (const [id, name] of [
    ['E253', 'Kira Díaz'],
    ['E273', 'Kira Díaz'],
    ['E300', 'Bo Lund'],
  ]) {
    expect((await server.admin.post('/employees/', { id, name })).status).toBe(201);
    expect((await server.admin.post('/enrollees/', { employee: id })).status).toBe(201);
  }
});
afterAll(async () => {
  await browser?.close();
  await server.close();
  expect(errors).toEqual([]);
});

test('the grid’s rows, the recent events and the Today list tell namesakes apart by employee id', async () => {
  const page = await signedInPage(browser, server, errors);
  try {
    await page.goto(`${server.url}/console/#/attendance`);
    const rows = page.locator('#attendance-grid tbody th.who');
    await rows.first().waitFor();
    expect((await rows.allTextContents()).sort()).toEqual(['Bo Lund', 'Kira Díaz (E253)', 'Kira Díaz (E273)']);
    await page.goto(`${server.url}/console/#/operations`);
    const events = page.getByRole('region', { name: 'Recent events' });
    await events.getByRole('table').waitFor();
    const text = (await events.getByRole('table').textContent()) ?? '';
    expect(text).toContain('Kira Díaz (E253)');
    expect(text).toContain('Kira Díaz (E273)');
    expect(text).not.toContain('Bo Lund (');
    // The Today board's list of them (whatever today is to them: a day off, not due yet).
    const today = (await server.admin.get('/attendance/today/')).body.people as { status: string }[];
    expect(new Set(today.map((p) => p.status)).size).toBe(1);
    await page.goto(`${server.url}/console/#/?show=${today[0]!.status}`);
    const listed = page.locator('#board-list').getByRole('row').locator('a');
    await listed.nth(2).waitFor();
    expect((await listed.allTextContents()).sort()).toEqual(['Bo Lund', 'Kira Díaz (E253)', 'Kira Díaz (E273)']);
  } finally {
    await page.context().close();
  }
});
