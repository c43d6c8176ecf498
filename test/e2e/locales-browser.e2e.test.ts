/**
 * The console in other languages than the tests' British English, in a real browser (headless
 * Chromium), from an accessibility and internationalisation review: times of day are the
 * browser's own (`5:15 PM` in en-US, never `05:15` with its PM cut off), dates and weekdays too;
 * a name written right to left keeps its employee id on its own side; one very long name leaves
 * the grid's and the roster's days in view.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { consoleContext, goTo, launchBrowser, screenshotDir, signInByLink, watchErrors } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
/** A Monday to come (sessions are checked against the real clock: the test's runs ahead of it). */
const MONDAY = '2031-03-03';
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
let now = berlin('2031-02-24', '12:00');
let server: TestServer;
let browser: Browser;
const shots = screenshotDir();
const errors: string[] = [];
const ids: Record<string, string> = {};

async function ok(res: Promise<{ status: number; body: unknown }>, status = 201) {
  const got = await res;
  expect(got.status).toBe(status);
  return got.body as { id: string };
}

async function enroll(employee: string, name: string, area = 'plant'): Promise<void> {
  await ok(server.admin.post('/employees/', { id: employee, name }));
  ids[employee] = (await ok(server.admin.post('/enrollees/', { employee, areas: [area] }))).id;
}

async function manualPunch(employee: string, at: string): Promise<void> {
  await ok(server.admin.post('/punches/manual/', { enrollee: ids[employee], at: `${MONDAY} ${at}`, reason: 'forgot the card' }));
}

/** A signed-in page in a browser of `locale`, its clock the server's. */
async function pageIn(locale: string, viewport = { width: 1200, height: 900 }): Promise<Page> {
  const context = await consoleContext(browser, { locale, timezoneId: ZONE, viewport });
  await context.clock.setFixedTime(now);
  const page = await context.newPage();
  watchErrors(page, errors);
  await signInByLink(page, server, 'hr.officer@example.com', /^Today/);
  return page;
}

/** What the browser's own Intl says for this local time in the attendance zone (hour and minute). */
function intlTime(page: Page, at: string): Promise<string> {
  return page.evaluate(
    ([instant, zone]) => new Intl.DateTimeFormat(undefined, { timeZone: zone, hour: 'numeric', minute: '2-digit' }).format(new Date(instant!)),
    [new Date(berlin(MONDAY, at)).toISOString(), ZONE],
  );
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } }), launchBrowser()]);
  await ok(server.admin.post('/work-schedules/', { name: 'Day', start: '08:00', end: '17:00', break: '30m' }));
  await ok(server.admin.post('/shift-assignments/', { schedule: 'Day', area: 'plant', from: '2031-03-01' }));
  await enroll('E1', 'Ada Lovelace');
  now = berlin(MONDAY, '18:00');
  await manualPunch('E1', '07:55');
  await manualPunch('E1', '17:15');
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('times and dates in the browser’s language', () => {
  for (const locale of ['en-US', 'ko-KR', 'ar-EG']) {
    test(`the Today board's times in ${locale}: hour and minute as Intl writes them, nothing cut off`, async () => {
      const page = await pageIn(locale);
      try {
        await goTo(page, '#/?show=present', /^Today/);
        const row = page.locator('#board-list').getByRole('row', { name: /Ada Lovelace/ });
        const cells = await row.getByRole('cell').allTextContents();
        const [start, firstIn, left] = await Promise.all(['08:00', '07:55', '17:15'].map((t) => intlTime(page, t)));
        expect({ start: cells[3], firstIn: cells[4], left: cells[6] }).toEqual({ start, firstIn, left: `Left ${left}` });
        const asOf = await page.locator('p.as-of').textContent();
        expect(asOf).toBe(`As of ${await intlTime(page, '18:00')}; updates as people punch.`);
        if (locale === 'en-US') expect(left).toMatch(/^5:15\sPM$/);
        if (locale === 'ko-KR') expect(left).toMatch(/5:15$/);
        await page.screenshot({ path: join(shots, `locale-today-${locale}.png`), fullPage: true });
      } finally {
        await page.context().close();
      }
    });
  }
});

test('no script errors', () => {
  expect(errors).toEqual([]);
});
