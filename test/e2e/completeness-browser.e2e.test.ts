/**
 * The console's proof pages in a real browser (headless Chromium) against the real server and
 * simulated terminals: a terminal's punch completeness (a calendar of its dates: recovering
 * while a re-upload runs, complete with what it recovered, a gap where the terminal refused the
 * re-upload) and the Anomalies page with its filters; a terminal's page lists every user it holds,
 * more than a page of the API. Screenshots in /tmp/shots-completeness/.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { usbAttlogFile } from '../../src/simulator/usb-file';
import { goTo, launchBrowser, signedInPage } from '../support/browser';
import { runningClock } from '../support/clock';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let server: TestServer;
let browser: Browser;
let page: Page;
// The server and its terminals on one clock, from noon UTC of the current date: "today" is
// their date for the whole run (the pages take their dates from the server).
const clock = runningClock();
const shots = process.env.FPA_SCREENSHOTS ?? '/tmp/shots-completeness';
const errors: string[] = [];
const HOUR = 60 * 60_000;

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

function go(hash: string, heading: string | RegExp): Promise<void> {
  return goTo(page, hash, heading);
}

async function approved(sn: string, area: string, options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}): Promise<SimulatedTerminal> {
  const t = new SimulatedTerminal({ url: server.url, sn, now: clock.now, ...options });
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${sn}/approve/`, { areas: [area] })).status).toBe(200);
  await drain(t);
  return t;
}

/** Punches stored from a terminal. */
async function countFrom(serial: string): Promise<number> {
  return (await server.admin.get(`/punches/?device=${serial}&limit=1000`)).body.results.length;
}

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  [server, browser] = await Promise.all([startTestServer({ TRAVEL_MINUTES: 'north-south=40' }, { clock }), launchBrowser()]);
  page = await signedInPage(browser, server, errors);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the proof pages in a browser', () => {
  test('a terminal’s completeness: recovering, then complete with what was recovered; a refused re-upload is a gap', async () => {
    const front = await approved('FRONT0001', 'north');
    const back = await approved('BACK00001', 'north', {
      // An older firmware that does not know DATA QUERY ATTLOG.
      respond: (c) => (c.text.startsWith('DATA QUERY ATTLOG') ? -1002 : undefined),
    });
    expect((await server.admin.post('/jobs/check-completeness/run/')).body.result).toMatchObject({ agreed: 2 });
    for (const t of [front, back]) {
      for (let i = 0; i < 12; i++) {
        const record = { pin: String(100 + (i % 4)), at: new Date(clock.now() + 1000 + i * 1000) };
        if (i % 4 === 0) t.holdUnsent([record]);
        else await t.punch([record]);
      }
      await drain(t);
    }
    clock.advance(5 * 60_000);
    expect((await server.admin.post('/jobs/check-completeness/run/')).body.result).toMatchObject({ gaps: 2 });

    await go('#/terminals/FRONT0001', /FRONT0001/);
    const calendar = page.locator('#completeness-calendar');
    await calendar.waitFor();
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    const cell = calendar.locator(`td[data-date="${today}"]`);
    expect(await cell.getAttribute('data-status')).toBe('recovering');
    expect(await page.getByText('3 punches missing').isVisible()).toBe(true);
    await shot('completeness-recovering');

    await drain(front);
    await drain(back);
    await page.reload();
    await calendar.waitFor();
    expect(await cell.getAttribute('data-status')).toBe('complete');
    expect(await cell.textContent()).toContain('3 recovered');
    expect(await cell.textContent()).toContain('12 stored');
    expect(await page.getByText('Nothing missing').isVisible()).toBe(true);
    // An earlier date, before the terminal was connected: unknown.
    expect(await calendar.locator('td[data-status="unknown"]').count()).toBeGreaterThan(0);
    await page.locator('#completeness-calendar').scrollIntoViewIfNeeded();
    await shot('completeness-complete');

    await go('#/terminals/BACK00001', /BACK00001/);
    await calendar.waitFor();
    expect(await calendar.locator(`td[data-date="${today}"]`).getAttribute('data-status')).toBe('gap');
    expect(await page.locator('#completeness-recoveries').getByRole('cell', { name: 'Failed', exact: true }).isVisible()).toBe(true);
    // Its PINs punched there (its own users, listed), while it counts none: the agreement says
    // which figure differs instead of "Differs" beside two equal ones.
    expect(await page.getByText('Differs', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByText("0 by the terminal's last count, 3 expected; 3 listed below").isVisible()).toBe(true);
    await shot('completeness-gap');

    // Its firmware cannot re-send: the page says to bring its punches on a USB stick. The file
    // holds its whole log, the 9 punches it sent among them; only the 3 missing are added.
    expect(await page.getByText(/save its punches to a USB stick and import the file below/).isVisible()).toBe(true);
    const usb = page.getByRole('region', { name: 'Punches from a USB stick' });
    await usb
      .getByLabel('Attendance file')
      .setInputFiles({ name: '1_attlog.dat', mimeType: 'application/octet-stream', buffer: Buffer.from(usbAttlogFile(back)) });
    await usb.getByRole('button', { name: 'Check the file' }).click();
    await usb.getByText('3 punches would be added, 9 already here or repeated in the file.').waitFor();
    expect(await countFrom('BACK00001')).toBe(9);
    await shot('terminal-usb-import-checked');
    await usb.getByRole('button', { name: 'Import', exact: true }).click();
    await usb.getByText('3 punches added, 9 already here or repeated in the file.').waitFor();
    expect(await countFrom('BACK00001')).toBe(12);
    expect((await server.admin.post('/jobs/check-completeness/run/')).status).toBe(200);
    await page.reload();
    await calendar.waitFor();
    expect(await calendar.locator(`td[data-date="${today}"]`).getAttribute('data-status')).toBe('complete');
  });

  test('the Anomalies page lists what deserves a look, with filters', async () => {
    const people: Record<string, { id: string; device_pin: string }> = {};
    for (const [key, name, areas] of [
      ['ada', 'Ada Obi', ['north', 'south']],
      ['bo', 'Bo Lin', ['north']],
    ] as const) {
      expect((await server.admin.post('/employees/', { id: `E-${key}`, name })).status).toBe(201);
      people[key] = (await server.admin.post('/enrollees/', { employee: `E-${key}`, areas })).body;
    }
    const north = await approved('NORTH0001', 'north');
    const south = await approved('SOUTH0001', 'south');
    expect((await server.admin.post(`/enrollees/${people.ada!.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    expect((await north.uploadTemplate(people.ada!.device_pin, 6)).body).toStartWith('OK');
    const now = clock.now();
    // Two days back: Bo's punches an hour ago fall on today, or on the day before just after
    // midnight, never on the leave day, whatever the time the test runs.
    const leaveDay = new Date(now - 48 * HOUR).toISOString().slice(0, 10);
    expect((await server.admin.post('/leaves/', { enrollee: people.bo!.id, from: leaveDay, to: leaveDay, kind: 'sick' })).status).toBe(201);
    await north.punch([{ pin: people.ada!.device_pin, at: new Date(now - 3 * HOUR), verifyType: 4 }]);
    await north.punch([{ pin: people.ada!.device_pin, at: new Date(now - 2 * HOUR) }]);
    await south.punch([{ pin: people.ada!.device_pin, at: new Date(now - 2 * HOUR + 8 * 60_000) }]);
    await north.punch([{ pin: people.bo!.device_pin, localTime: `${leaveDay} 10:00:00` }]);
    await north.punch([
      { pin: people.bo!.device_pin, at: new Date(now - HOUR) },
      { pin: people.bo!.device_pin, at: new Date(now - HOUR + 20_000) },
    ]);

    await go('#/anomalies', 'Anomalies');
    const rows = page.locator('table tbody tr');
    await page.getByRole('cell', { name: /Impossible travel/ }).waitFor();
    expect(await rows.count()).toBe(4);
    expect(await page.getByText('8 min from a punch at NORTH0001 (north → south takes 40 min).').isVisible()).toBe(true);
    expect(await page.getByText('Verified by card, though fingerprint is enrolled.').isVisible()).toBe(true);
    expect(await page.getByText('On sick leave that day.').isVisible()).toBe(true);
    expect(await page.getByText('20 s after the previous punch (window 60 s).').isVisible()).toBe(true);
    await shot('anomalies');

    await page.getByLabel('Kind').selectOption('impossible_travel');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1);
    await page.getByLabel('Kind').selectOption('');
    await page.getByLabel('Area').selectOption('south');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 2);
    await shot('anomalies-south');
    expect(errors).toEqual([]);
  });

  test('a terminal holding more users than a page of the API: its page lists every one', async () => {
    expect((await server.admin.post('/areas/', { name: 'crowd' })).status).toBe(201);
    await approved('CROWD0001', 'crowd', { existingUsers: Array.from({ length: 1001 }, (_, i) => ({ pin: String(i + 1), name: `Menu ${i + 1}` })) });
    // The API answers them a page at a time (at most 1000): the page follows next_cursor.
    expect((await server.admin.get('/devices/CROWD0001/users/?limit=1000')).body.next_cursor).toEqual(expect.any(String));
    await go('#/terminals/CROWD0001', /CROWD0001/);
    // CSS, not roles: working out the roles of a thousand rows, each with its form, outlasts the wait.
    const people = page.locator('section:has(> h2:text-is("People on the terminal"))');
    await people.locator('td:text-is("Menu 1001")').waitFor();
    const pins = await people.locator('tbody tr td:first-child').evaluateAll((cells) => cells.map((c) => c.textContent));
    // Every one, in numeric PIN order: 1, 2, … 1001, not 1, 10, 100, 1000.
    expect(pins).toEqual(Array.from({ length: 1001 }, (_, i) => String(i + 1)));
    expect(errors).toEqual([]);
  });
});
