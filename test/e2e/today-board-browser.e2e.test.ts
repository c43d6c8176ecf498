/**
 * The Today board in a real browser (headless Chromium), against the real server and a simulated
 * terminal, on a Monday at 10:10 in Berlin: an HR officer answers "who is late", "who is not in
 * yet", "who is in now" and, after the shifts end, "who is absent" from the board; the board
 * follows a punch that arrives between the page's read and its socket's opening (the socket is
 * held back on purpose), and so does the live punch view; she finds people by a part of a name
 * and by card; the grid on a phone opens with the names in view. Screenshots are taken (and
 * one saved as docs/images/today-board.png when FPA_README_IMAGES is set).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { consoleContext, launchBrowser, screenshotDir, signInByLink, watchErrors } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
/**
 * A Monday to come: the streams check a session's expiry against the real clock, so the test's
 * clock runs ahead of it, never behind (the browser's clock is set to the same instant).
 */
const MONDAY = '2031-03-03';
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
let now = berlin('2031-02-26', '12:00');
let server: TestServer;
let browser: Browser;
let page: Page;
let terminal: SimulatedTerminal;
const shots = screenshotDir();
const errors: string[] = [];
const pins: Record<string, string> = {};

const PEOPLE: [string, string, string][] = [
  ['E-01', 'Anna Schmidt', 'plant'],
  ['E-02', 'Bruno Keller', 'plant'],
  ['E-03', 'Carla Díaz', 'plant'],
  ['E-04', 'Dieter Braun', 'plant'],
  ['E-05', 'Eva Lind', 'office'],
  ['E-06', 'Felix Roth', 'plant'],
  ['E-07', 'Greta Hansen', 'plant'],
  ['E-08', 'Hugo Weber', 'office'],
  ['E-09', 'Ida Novak', 'office'],
  ['E-10', 'Jonas Falk', 'office'],
];
const PUNCHES: [string, string][] = [
  ['E-01', '07:58'],
  ['E-06', '07:55'],
  ['E-07', '07:50'],
  ['E-08', '08:02'],
  ['E-02', '08:20'],
  ['E-09', '08:40'],
  ['E-06', '09:30'],
];

async function shot(name: string): Promise<string> {
  const path = join(shots, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

async function created(path: string, body: unknown) {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status }).toEqual({ path, status: 201 });
  return res.body;
}

async function punch(employee: string, time: string) {
  const res = await terminal.punch([{ pin: pins[employee]!, localTime: `${MONDAY} ${time}:00` }]);
  expect(res.status).toBe(200);
}

/** The names in the board's list (its first column). */
async function listed(): Promise<string[]> {
  return page.locator('#board-list tbody tr th, #board-list tbody tr td:first-child').allTextContents();
}

async function showCount(label: string, expected: number) {
  const tile = page.getByRole('button', { name: new RegExp(`^${expected}\\s*${label}$`) });
  await tile.click();
  await page.getByRole('heading', { level: 2, name: `${label}: ${expected}` }).waitFor();
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } }), launchBrowser()]);
  for (const [employee, name, area] of PEOPLE) {
    await created('/employees/', { id: employee, name });
    const e = await created('/enrollees/', { employee, areas: [area] });
    pins[employee] = e.device_pin;
    now += 60_000;
  }
  const felix = (await server.admin.get('/enrollees/?search=Felix')).body.results[0];
  expect((await server.admin.patch(`/enrollees/${felix.id}/`, { card: '4711' })).status).toBe(200);
  terminal = new SimulatedTerminal({ url: server.url, sn: 'GATE01', timeZone: ZONE });
  await terminal.handshake();
  expect((await server.admin.post('/devices/GATE01/approve/', { areas: ['plant', 'office'] })).status).toBe(200);
  await created('/work-schedules/', { name: 'Day shift', start: '08:00', end: '16:30', grace_in: '5m', grace_out: '5m', break: '30m' });
  await created('/shift-assignments/', { schedule: 'Day shift', area: 'plant', from: '2031-03-01' });
  await created('/shift-assignments/', { schedule: 'Day shift', area: 'office', from: '2031-03-01' });
  const dieter = (await server.admin.get('/enrollees/?search=E-04')).body.results[0];
  await created('/leaves/', { enrollee: dieter.id, from: MONDAY, to: '2031-03-07', kind: 'annual' });
  const eva = (await server.admin.get('/enrollees/?search=E-05')).body.results[0];
  await created('/holidays/', { date: MONDAY, name: 'Compensation day', enrollee: eva.id });
  now = berlin(MONDAY, '10:10');
  for (const [employee, time] of PUNCHES) await punch(employee, time);

  const context = await consoleContext(browser, { viewport: { width: 1100, height: 800 }, timezoneId: ZONE });
  // The page's WebSocket opens only `__wsDelayMs` after it is asked for: a punch can arrive in between.
  await context.addInitScript(() => {
    const Real = window.WebSocket;
    const w = window as unknown as { WebSocket: unknown; __wsDelayMs?: number };
    w.WebSocket = function HeldBack(url: string) {
      const listeners: [string, EventListener][] = [];
      let real: WebSocket | null = null;
      let closed = false;
      setTimeout(
        () => {
          if (closed) return;
          real = new Real(url);
          for (const [type, fn] of listeners) real.addEventListener(type, fn);
        },
        Number(sessionStorage.getItem('wsDelayMs') ?? 0),
      );
      return {
        addEventListener(type: string, fn: EventListener) {
          listeners.push([type, fn]);
          real?.addEventListener(type, fn);
        },
        close() {
          closed = true;
          real?.close();
        },
      };
    };
  });
  await context.clock.setFixedTime(now);
  page = await context.newPage();
  watchErrors(page, errors);
  await signInByLink(page, server, 'hr.officer@example.com');
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the Today board in a browser', () => {
  test('opens on today: who is late, who is not in yet, who is in now', async () => {
    await page.getByRole('heading', { level: 1, name: 'Today, Mon 3 Mar' }).waitFor();
    await showCount('Late', 2);
    expect(await listed()).toEqual(['Bruno Keller', 'Ida Novak']);
    expect(
      await page
        .locator('#board-list')
        .getByRole('row', { name: /Bruno Keller/ })
        .textContent(),
    ).toContain('0:20');
    await shot('board-late');
    await showCount('Not in yet', 2);
    expect(await listed()).toEqual(['Carla Díaz', 'Jonas Falk']);
    await showCount('In now', 5);
    expect(await listed()).toEqual(['Anna Schmidt', 'Bruno Keller', 'Greta Hansen', 'Hugo Weber', 'Ida Novak']);
    // Came in counts the late too; a row says which: On time or Late.
    const statusOf = (name: string) => page.locator('#board-list').getByRole('row', { name }).locator('.badge').first().textContent();
    expect([await statusOf('Anna Schmidt'), await statusOf('Bruno Keller')]).toEqual(['On time', 'Late']);
    await showCount('On leave', 1);
    expect(await listed()).toEqual(['Dieter Braun']);
    await showCount('Holiday', 1);
    expect(await listed()).toEqual(['Eva Lind']);
    // By area, one click from the list; an area's row has every count the tiles have.
    const byArea = page.getByRole('region', { name: 'By area' });
    expect(await byArea.getByRole('columnheader').allTextContents()).toEqual([
      'Area',
      'Expected',
      'Not due yet',
      'Came in',
      'In now',
      'Late',
      'Not in yet',
      'Absent',
      'On leave',
      'Holiday',
      'Day off',
    ]);
    await page.getByRole('link', { name: 'Late in office: 1' }).click();
    await page.getByRole('heading', { level: 2, name: 'Late in office: 1' }).waitFor();
    expect(await listed()).toEqual(['Ida Novak']);
    expect(errors).toEqual([]);
  });

  test('follows a punch that arrives before its socket has opened', async () => {
    await page.evaluate(() => sessionStorage.setItem('wsDelayMs', '2500'));
    await page.goto(`${server.url}/console/#/?show=late`);
    await page.getByRole('heading', { level: 2, name: 'Late: 2' }).waitFor();
    // The board has been read; the socket is not open yet: Carla arrives now.
    await punch('E-03', '10:05');
    await page.getByRole('heading', { level: 2, name: 'Late: 3' }).waitFor({ timeout: 10_000 });
    expect(await listed()).toEqual(['Bruno Keller', 'Carla Díaz', 'Ida Novak']);
    // The board's live region says what changed, never the time it was read (not every minute).
    const said = page.locator('.board-changes');
    expect(await said.getAttribute('role')).toBe('status');
    expect(await said.textContent()).toBe('Changed: In now 6, Late 3, Not in yet 1, Came in 7.');
    expect(await page.locator('p.as-of').getAttribute('role')).toBeNull();
    await showCount('Expected', 8);
    const path = await shot('today-board');
    if (process.env.FPA_README_IMAGES) {
      const images = resolve(import.meta.dir, '../../docs/images');
      mkdirSync(images, { recursive: true });
      copyFileSync(path, join(images, 'today-board.png'));
    }
  });

  test('keeps up during a steady stream of punches (each punch does not put the next read off)', async () => {
    // A punch every 150 ms for 4.5 s from a PIN nobody has (no one's day changes); the server's
    // clock moves a minute with each, so the board's "As of" line shows when it was read.
    const AS_OF = 'p.as-of';
    const before = await page.locator(AS_OF).textContent();
    expect(before).toStartWith('As of 10:10;');
    const saidBefore = await page.locator('.board-changes').textContent();
    const start = now;
    let streaming = true;
    const stream = (async () => {
      for (let i = 0; i < 30; i++) {
        now += 60_000;
        const res = await terminal.punch([{ pin: '99999', localTime: `${MONDAY} 10:09:${String(i).padStart(2, '0')}` }]);
        expect(res.status).toBe(200);
        await Bun.sleep(150);
      }
      streaming = false;
    })();
    try {
      await page.waitForFunction(([selector, was]) => document.querySelector(selector!)?.textContent !== was, [AS_OF, before], { timeout: 10_000 });
      expect({ readWhileStreaming: streaming }).toEqual({ readWhileStreaming: true });
      // Read again at a later time with the same counts: nothing new is announced.
      expect(await page.locator('.board-changes').textContent()).toBe(saidBefore);
    } finally {
      await stream;
      now = start;
    }
  });

  test('the live punch view shows a punch that arrives before its socket has opened', async () => {
    await page.evaluate(() => {
      location.hash = '#/punches';
    });
    await page.getByRole('heading', { level: 1, name: 'Punches' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Punches' }).waitFor();
    await page.getByRole('region', { name: 'Find punches' }).getByRole('table').waitFor();
    await punch('E-08', '10:08');
    await page.locator('#live-punches').getByRole('cell', { name: 'Hugo Weber' }).waitFor({ timeout: 10_000 });
    // Find punches lists in time order, newest first, whatever order they arrived in.
    const times = await page.getByRole('region', { name: 'Find punches' }).locator('tbody tr td:first-child').allTextContents();
    expect(times.length).toBeGreaterThan(5);
    expect([...times].sort().reverse()).toEqual(times);
    await page.evaluate(() => sessionStorage.removeItem('wsDelayMs'));
  });

  test('after the shifts end, who never came is absent', async () => {
    now = berlin(MONDAY, '17:00');
    await page.context().clock.setFixedTime(now);
    // Hours later: the session has ended; sign in again.
    await signInByLink(page, server, 'hr.officer@example.com', 'Today, Mon 3 Mar');
    await showCount('Absent', 1);
    expect(await listed()).toEqual(['Jonas Falk']);
    await shot('board-absent');
    // Another date: the Sunday before is everyone's day off.
    await page.getByLabel('Date', { exact: true }).fill('2031-03-02');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sun 2 Mar' }).waitFor();
    await showCount('Day off', 10);
  });

  test('finds a person by a part of the name and by card', async () => {
    await page.goto(`${server.url}/console/#/people`);
    await page.getByRole('heading', { level: 1, name: 'People' }).waitFor();
    const results = page.locator('#people-results');
    await results.getByRole('link', { name: 'Anna Schmidt' }).waitFor();
    await page.getByLabel('Search', { exact: true }).fill('schm');
    await results.getByRole('link', { name: 'Bruno Keller' }).waitFor({ state: 'detached' });
    expect(await results.getByRole('link').allTextContents()).toEqual(['Anna Schmidt']);
    await page.getByLabel('Search', { exact: true }).fill('diaz');
    await results.getByRole('link', { name: 'Carla Díaz' }).waitFor();
    expect(await results.getByRole('link').allTextContents()).toEqual(['Carla Díaz']);
    await page.getByLabel('Search', { exact: true }).fill('4711');
    await results.getByRole('link', { name: 'Felix Roth' }).waitFor();
    expect(await results.getByRole('link').allTextContents()).toEqual(['Felix Roth']);
    await shot('people-search-card');
    await page.getByLabel('Search', { exact: true }).fill('');
    await page.getByLabel('Area', { exact: true }).selectOption('office');
    await results.getByRole('link', { name: 'Eva Lind' }).waitFor();
    await results.getByRole('link', { name: 'Felix Roth' }).waitFor({ state: 'detached' });
    expect(await results.getByRole('link').allTextContents()).toEqual(['Eva Lind', 'Hugo Weber', 'Ida Novak', 'Jonas Falk']);
  });

  test('on a phone the grid opens on the latest days with the names in view; a link skips past it', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/console/#/attendance`);
    await page.locator('#attendance-grid').waitFor();
    // A month and more: wider than the phone.
    const period = page.getByRole('region', { name: 'Period', exact: true });
    await period.getByLabel('From', { exact: true }).fill('2031-02-01');
    await period.getByRole('button', { name: 'Show', exact: true }).click();
    await page.locator('#attendance-grid th.date').nth(20).waitFor();
    const name = page.locator('#attendance-grid th.who').first();
    const box = await name.boundingBox();
    expect(box && box.x >= 0 && box.x < 390).toBe(true);
    expect(await page.locator('#attendance-grid').evaluate((t) => (t.parentElement as HTMLElement).scrollLeft)).toBeGreaterThan(0);
    await shot('grid-phone');
    // The names' cells are as tall as the days' rows: nothing of the scrolled days shows below a name.
    await name.scrollIntoViewIfNeeded();
    const covered = await name.evaluate((th) => {
      const r = th.getBoundingClientRect();
      const day = (th.nextElementSibling as HTMLElement).getBoundingClientRect();
      return {
        nameHeight: Math.round(r.height),
        rowHeight: Math.round(day.height),
        atBottom: document.elementFromPoint(r.left + r.width / 2, r.bottom - 2)?.closest('th') === th,
      };
    });
    // (within the row's 1px line, which runs on under the name as the row's separator)
    expect(covered.nameHeight).toBeGreaterThanOrEqual(covered.rowHeight - 1);
    expect(covered.atBottom).toBe(true);
    await page.setViewportSize({ width: 1100, height: 800 });
    await page.locator('.skip-grid').focus();
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('after-grid');
    expect(errors).toEqual([]);
  });
});
