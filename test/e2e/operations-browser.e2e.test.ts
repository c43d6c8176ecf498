/**
 * Operations in a real browser against the real server and a simulated terminal: a punch in the
 * recent events says whose it is (a namesake with their employee id), its local time and its state
 * (it read "Punch received | Sender: SOUT0001"); each Run now button's accessible name starts with
 * its visible words (WCAG 2.5.3); Record absences runs for the dates chosen, as its description
 * says; a renamed area reads "from plant to North" in the audit log. Recent events are the newest,
 * read back from the end of the log in one small request, with more events than a page of 1,000
 * (they were read forward from the first event, 20 pages at most, and the oldest were shown).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { makeUser, sessionClient } from '../support/accounts';
import { consoleContext, consoleDate, goTo, launchBrowser, onSignedInPage, watchErrors } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';
import { type EnrolledPerson, enrolledPerson, namedTerminal } from '../support/terminals';

let server: TestServer;
let browser: Browser;
const errors: string[] = [];

const DAY = 86_400_000;
const dateOf = (at: number) => new Date(at).toISOString().slice(0, 10);
const YESTERDAY = dateOf(Date.now() - DAY);
const TWO_DAYS_AGO = dateOf(Date.now() - 2 * DAY);
const day = consoleDate;

const people: Record<string, EnrolledPerson> = {};

async function person(employee: string, name: string, areas: string[]): Promise<EnrolledPerson> {
  people[employee] = await enrolledPerson(server, employee, name, areas);
  return people[employee]!;
}

const terminal = (sn: string, name: string, areas: string[], options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}) =>
  namedTerminal(server, sn, name, areas, options);

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  await person('E1', 'Anna Berg', ['north']);
  // Namesakes: told apart by their employee id wherever they are named.
  await person('E2', 'Bo Lund', ['north']);
  await person('E3', 'Bo Lund', ['north']);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  expect(errors).toEqual([]);
});

const withPage = (work: (page: Page) => Promise<void>) => onSignedInPage(browser, server, errors, work);

describe('Operations › Recent events', () => {
  test('a punch says whose it is (a namesake with their employee id), its local time and its state', async () => {
    const south = await terminal('SOUT0001', 'South gate', ['north']);
    await south.punch([{ pin: people.E2!.device_pin, localTime: `${YESTERDAY} 08:05:00`, state: 1 }]);
    const manual = await server.admin.post('/punches/manual/', { enrollee: people.E1!.id, at: `${YESTERDAY} 07:58`, reason: 'forgot to clock in' });
    expect(manual.status).toBe(201);
    await withPage(async (page) => {
      await goTo(page, '#/operations', 'Operations');
      const events = page.getByRole('region', { name: 'Recent events' });
      const rows = events.getByRole('row', { name: /Punch received/ });
      await rows.first().waitFor();
      const texts = (await rows.allTextContents()).join('\n');
      expect(texts).toContain(`Bo Lund (E2), ${day(YESTERDAY)}, 08:05, check-out, Terminal: South gate`);
      // A manual punch: whose and when; its state is 0 because none was given, so none is said.
      expect(texts).toContain(`Anna Berg, ${day(YESTERDAY)}, 07:58, By: `);
      expect(texts).not.toMatch(/Anna Berg[^\n]*check-in/);
      expect(texts).not.toContain('Sender:');
    });
  });
});

describe('Operations › Jobs and the audit log', () => {
  test('each Run now button’s name starts with its visible words, then the job', async () => {
    await withPage(async (page) => {
      await goTo(page, '#/operations', 'Operations');
      const jobs = page.getByRole('region', { name: 'Jobs' });
      await jobs.getByRole('button', { name: 'Run now: Check terminals', exact: true }).waitFor();
      await jobs.getByRole('button', { name: 'Run now: Record absences', exact: true }).waitFor();
      const names = await jobs.locator('button').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? b.textContent ?? ''));
      expect(names.length).toBeGreaterThan(10);
      for (const name of names) expect(name).toMatch(/^Run now: /);
    });
  });

  test('Record absences runs for the dates chosen (yesterday unless others are); a date not over yet is said beside the field', async () => {
    await withPage(async (page) => {
      await goTo(page, '#/operations', 'Operations');
      const row = page.getByRole('region', { name: 'Jobs' }).getByRole('row', { name: /Record absences/ });
      expect(await row.getByText('Writes yesterday each night (or the dates chosen here)').count()).toBe(1);
      expect(await row.getByLabel('From').inputValue()).toBe(YESTERDAY);
      expect(await row.getByLabel('To').inputValue()).toBe(YESTERDAY);
      await row.getByLabel('To').fill(dateOf(Date.now()));
      await row.getByRole('button', { name: 'Run now: Record absences' }).click();
      await row.getByText(/^Only dates that are over:/).waitFor();
      await row.getByLabel('From').fill(TWO_DAYS_AGO);
      await row.getByLabel('To').fill(YESTERDAY);
      await row.getByRole('button', { name: 'Run now: Record absences' }).click();
      // The job's result names the dates it wrote.
      await page
        .getByRole('status')
        .getByText(new RegExp(`^Record absences: done: .*from ${day(TWO_DAYS_AGO)}, to ${day(YESTERDAY)}`))
        .waitFor();
    });
  });

  test('a renamed area reads “from plant to North” in the audit log', async () => {
    expect((await server.admin.post('/areas/', { name: 'plant' })).status).toBe(201);
    expect((await server.admin.patch('/areas/plant/', { name: 'North' })).status).toBe(200);
    await withPage(async (page) => {
      await goTo(page, '#/operations', 'Operations');
      const log = page.getByRole('region', { name: 'Audit log' });
      const row = log.getByRole('row', { name: /Area changed/ });
      await row.waitFor();
      expect(await row.textContent()).toContain('Name: from plant to North');
    });
  });
});

describe('Operations › Recent events with more events than one page', () => {
  test('the newest are shown, in one small read back from the end of the log; to HR of one area, the newest of its area', async () => {
    // 1,200 punches at a terminal of another area a minute apart, from two days ago at 00:00 on,
    // then the newest of north's: Anna Berg at 21:30.
    const sam = await person('E9', 'Sam South', ['south']);
    const bulk = await terminal('BULK0001', 'Bulk gate', ['south']);
    const start = Date.parse(`${TWO_DAYS_AGO}T00:00:00Z`);
    const stamp = (i: number) => new Date(start + i * 60_000).toISOString().slice(0, 19).replace('T', ' ');
    for (let i = 0; i < 1200; i += 200) {
      await bulk.punch(Array.from({ length: 200 }, (_, j) => ({ pin: sam.device_pin, localTime: stamp(i + j), state: (i + j) % 2 })));
    }
    const north = await terminal('NORT0002', 'North door', ['north']);
    await north.punch([{ pin: people.E1!.device_pin, localTime: `${TWO_DAYS_AGO} 21:30:00`, state: 0 }]);
    expect((await server.admin.get('/events/?after=0&limit=1000')).body.results.length).toBe(1000);

    const recent = async (page: Page, newest: string, oldest: string, rows: number) => {
      const answers: Promise<{ url: string; bytes: number }>[] = [];
      page.on('response', (response) => {
        if (response.url().includes('/api/fingerprint/v1/events/')) answers.push(response.body().then((b) => ({ url: response.url(), bytes: b.length })));
      });
      await goTo(page, '#/operations', 'Operations');
      const events = page.getByRole('region', { name: 'Recent events' });
      await events
        .getByRole('row', { name: /Punch received/ })
        .first()
        .waitFor();
      const texts = (await events.locator('tbody').allTextContents()).join('\n');
      expect(texts).toContain(newest);
      expect(texts).not.toContain(oldest);
      expect(await events.locator('tbody tr').count()).toBe(rows);
      const reads = await Promise.all(answers);
      expect(reads.map((r) => new URL(r.url).searchParams.get('order'))).toEqual(['desc']);
      expect(reads[0]!.bytes).toBeLessThan(100_000);
    };
    await withPage((page) => recent(page, `Anna Berg, ${day(TWO_DAYS_AGO)}, 21:30`, `Sam South, ${day(TWO_DAYS_AGO)}, 00:00`, 50));
    // HR of north: its area's newest (before, the first page of the log held too few of north's
    // events, so the read stopped there and showed north's oldest).
    const hr = await makeUser(server, 'hrnorth', 'hr', { areas: ['north'] });
    const context = await consoleContext(browser);
    const cookie = hr.session.cookie;
    await context.addCookies([{ name: cookie.slice(0, cookie.indexOf('=')), value: cookie.slice(cookie.indexOf('=') + 1), url: server.url }]);
    const page = await context.newPage();
    watchErrors(page, errors);
    try {
      await page.goto(`${server.url}/console/`);
      await page.getByRole('heading', { level: 1, name: /^Today/ }).waitFor();
      // Every one of north's events, fewer than 50 (the south terminal's 1,200 punches are not north's).
      const north = (await sessionClient(server, hr.session).get('/events/?order=desc&limit=50')).body.results.length;
      expect(north).toBeGreaterThan(10);
      expect(north).toBeLessThan(50);
      await recent(page, `Anna Berg, ${day(TWO_DAYS_AGO)}, 21:30`, 'Sam South', north);
    } finally {
      await context.close();
    }
  });
});
