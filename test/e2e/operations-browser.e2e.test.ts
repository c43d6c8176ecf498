/**
 * Operations in a real browser against the real server and a simulated terminal: a punch in the
 * recent events says whose it is (a namesake with their employee id), its local time and its state
 * (it read "Punch received | Sender: SOUT0001"); each Run now button's accessible name starts with
 * its visible words (WCAG 2.5.3); Record absences runs for the dates chosen, as its description
 * says; a renamed area reads "from plant to North" in the audit log.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { consoleDate, goTo, launchBrowser, onSignedInPage } from '../support/browser';
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
