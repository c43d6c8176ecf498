/**
 * Findings of an accessibility review of the console (playwright and axe), in a real browser
 * (headless Chromium): what a screen reader is told of a search's results (a short status, not
 * the whole table again), where focus goes after an import, what the buttons of a day's punches
 * are called, and the smaller things (scrolling tables reachable by keyboard, headers of action
 * columns, badges kept out of headings, errors tied to their field, the sign-in's focus).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { goTo, launchBrowser, signedInPage } from '../support/browser';
import { runningClock } from '../support/clock';
import { startTestServer, type TestServer } from '../support/harness';

const clock = runningClock();
let server: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];
const ids: Record<string, string> = {};

async function ok(res: Promise<{ status: number; body: unknown }>, status = 201) {
  const got = await res;
  expect(got.status).toBe(status);
  return got.body as { id: string };
}

async function enroll(employee: string, name: string): Promise<void> {
  await ok(server.admin.post('/employees/', { id: employee, name }));
  ids[employee] = (await ok(server.admin.post('/enrollees/', { employee }))).id;
}

/** What has focus: its tag and its text (or label). */
function focused(p: Page): Promise<string> {
  return p.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'BODY';
    return `${el.tagName}:${el.getAttribute('aria-label') ?? el.textContent?.trim() ?? ''}`;
  });
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({}, { clock }), launchBrowser()]);
  await enroll('P1', 'Pia Picker');
  await enroll('P2', 'Piet Picker');
  await enroll('P3', 'Paul Punch');
  // In the directory, nobody enrolled for them yet.
  await ok(server.admin.post('/employees/', { id: 'N1', name: 'Nora Newcomer' }));
  page = await signedInPage(browser, server, errors);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('what a screen reader is told', () => {
  test('a people search says how many it found in a short status, not the whole table again', async () => {
    await goTo(page, '#/people', 'People');
    const results = page.locator('#people-results');
    await results.getByRole('link', { name: 'Paul Punch' }).waitFor();
    // Neither list is (inside) a live region: a redraw would be read out whole.
    for (const list of ['#people-results', '#not-enrolled'])
      expect({ list, live: await page.locator(list).evaluate((el) => el.closest('[aria-live]')?.outerHTML.slice(0, 80) ?? null) }).toEqual({
        list,
        live: null,
      });
    const status = page.getByRole('region', { name: 'People', exact: true }).getByRole('status');
    await page.getByLabel('Search', { exact: true }).fill('picker');
    await results.getByRole('link', { name: 'Paul Punch' }).waitFor({ state: 'detached' });
    expect(await status.textContent()).toBe('2 people found.');
    await page.getByLabel('Search', { exact: true }).fill('nobody-here');
    await page.getByText('Nobody matches “nobody-here”.').waitFor();
    expect(await status.textContent()).toBe('No one found.');
    await page.getByLabel('Search', { exact: true }).fill('pia');
    await results.getByRole('link', { name: 'Pia Picker' }).waitFor();
    expect(await status.textContent()).toBe('1 person found.');
  });
});

describe('names of buttons', () => {
  test('the Void buttons of a day’s punches say which punch each voids', async () => {
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    for (const at of ['08:00', '11:00']) await ok(server.admin.post('/punches/manual/', { enrollee: ids.P1, at: `${today} ${at}`, reason: 'forgot the card' }));
    await goTo(page, '#/attendance', 'Attendance');
    await page
      .getByRole('button', { name: /^Pia Picker, / })
      .last()
      .click();
    const detail = page.getByRole('region', { name: /^Pia Picker, / });
    await detail.getByRole('table').waitFor();
    const names = await detail
      .getByRole('button', { name: /^Void/ })
      .evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? b.textContent));
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^Void the punch of Pia Picker at .*(08:00|11:00)$/);
    expect(new Set(names).size).toBe(2);
  });
});

describe('focus', () => {
  test('after Import (which goes away once done) focus is on the heading of its section, not on <body>', async () => {
    await goTo(page, '#/people/import', 'Import people');
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from('id,name,areas,card\nQ1,Quinn Query,,\n') });
    await page.getByRole('button', { name: 'Check the file' }).click();
    const importNow = page.getByRole('button', { name: 'Import', exact: true });
    await importNow.waitFor();
    await importNow.focus();
    await page.keyboard.press('Enter');
    await page.locator('#status').getByText('1 person was added').waitFor();
    await importNow.waitFor({ state: 'hidden' });
    expect(await focused(page)).toBe('H2:Choose the file');
  });
});

test('no script errors', () => {
  expect(errors).toEqual([]);
});
