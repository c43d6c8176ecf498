/**
 * Console lists past the API's page of 1,000 rows, in a real browser against the real server:
 * 1,060 people (seeded straight into the schema, as people-pickers-large-browser does) with a
 * schedule each and a terminal that owes them all after its approval. The Shifts page lists the
 * assignments and leave of a window (from a month back, or a date and a person chosen), a page
 * at a time with "Show more": the 1,060th assignment is reachable, where one page of 1,000 used
 * to be shown as if it were all. The terminal's waiting commands say how many wait and page
 * through them, instead of a silent cut at 1,000.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { goTo, launchBrowser, signedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';
import { seedPeople } from '../support/people';

const PEOPLE = 1060;
const LEAVES = 130;
const MONDAY = '2031-03-03';
const SERIAL = 'BACKFILL1';
let server: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];
const number = (i: number) => String(i + 1).padStart(4, '0');

async function idsOf(): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const got: { body: { results: { id: string }[]; next_cursor: string | null } } = await server.admin.get(
      `/enrollees/?limit=1000&sort=employee${cursor ? `&cursor=${cursor}` : ''}`,
    );
    ids.push(...got.body.results.map((p) => p.id));
    cursor = got.body.next_cursor;
  } while (cursor);
  return ids;
}

/** Each person's own assignment (the batch endpoint, 1,000 a request), leave for the first 130, and an old leave and assignment outside the window. */
async function seedPlan(ids: string[]): Promise<void> {
  expect((await server.admin.post('/work-schedules/', { name: 'Early', start: '06:00', end: '14:00' })).status).toBe(201);
  for (let i = 0; i < ids.length; i += 1000) {
    const batch = await server.admin.post('/shift-assignments/batch/', { schedule: 'Early', enrollees: ids.slice(i, i + 1000), from: '2031-02-20' });
    expect(batch.status).toBe(201);
  }
  expect((await server.admin.post('/shift-assignments/', { schedule: 'Early', enrollee: ids[5], from: '2030-01-01', to: '2030-06-30' })).status).toBe(201);
  for (let i = 0; i < LEAVES; i++) {
    const leave = await server.admin.post('/leaves/', { enrollee: ids[i], from: '2031-03-10', to: '2031-03-11', kind: 'vacation' });
    expect(leave.status).toBe(201);
  }
  expect((await server.admin.post('/leaves/', { enrollee: ids[5], from: '2030-05-04', to: '2030-05-08', kind: 'sick' })).status).toBe(201);
}

/** A terminal of the default area, approved: it owes every one of the 1,060 people (the approval's backfill). */
async function backfilledTerminal(): Promise<number> {
  const terminal = new SimulatedTerminal({ url: server.url, sn: SERIAL, now: () => Date.parse(`${MONDAY}T10:00:00Z`) });
  await terminal.handshake();
  await terminal.postOptions();
  expect((await server.admin.post(`/devices/${SERIAL}/approve/`)).status).toBe(200);
  // It answers the approval's query of its users (it holds none): everyone is queued for it, then it goes quiet.
  await terminal.poll();
  const detail = await server.admin.get(`/devices/${SERIAL}/`);
  return detail.body.pending_commands as number;
}

let waiting = 0;
beforeAll(async () => {
  const now = Date.parse(`${MONDAY}T10:00:00Z`);
  [server, browser] = await Promise.all([startTestServer({ TIME_ZONE: 'UTC' }, { clock: { now: () => now } }), launchBrowser()]);
  await seedPeople(
    server,
    Array.from({ length: PEOPLE }, (_, i) => ({ employee: `T-${number(i)}`, name: `Aaron Test ${number(i)}` })),
  );
  await seedPlan(await idsOf());
  waiting = await backfilledTerminal();
  expect(waiting).toBeGreaterThan(1000);
  page = await signedInPage(browser, server, errors, { context: { viewport: { width: 1100, height: 800 } }, now });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

function go(hash: string, heading: string): Promise<void> {
  return goTo(page, hash, heading);
}

/** Presses "Show more …" until it is gone; returns how many times. */
async function showAll(region: Locator, label: string): Promise<number> {
  let presses = 0;
  const more = region.getByRole('button', { name: label });
  while (await more.isVisible()) {
    const rows = await region.locator('tbody tr').count();
    await more.click();
    // The next page's first row appears under the others.
    await region.locator('tbody tr').nth(rows).waitFor();
    presses++;
  }
  return presses;
}

describe('lists past the first 1,000 rows', () => {
  test('shifts: assignments a page at a time, the 1,060th reachable; more said until all are shown', async () => {
    await go('#/shifts', 'Shifts and calendar');
    const assigned = page.getByRole('region', { name: 'Who works which schedule' });
    await assigned.getByText('100 shown; there are more.').waitFor();
    expect(await assigned.locator('tbody tr').count()).toBe(100);
    // The old assignment (ended 2030) is not in the window (from a month back).
    expect(await showAll(assigned, 'Show more assignments')).toBe(10);
    expect(await assigned.locator('tbody tr').count()).toBe(PEOPLE);
    await assigned.getByText(`${PEOPLE.toLocaleString('en')} assignments`, { exact: true }).waitFor();
    await assigned.getByRole('row', { name: /Aaron Test 1060/ }).waitFor();
    // The people chooser says the batch endpoint's limit before anyone reaches it.
    await assigned.getByLabel('Assign to').selectOption({ label: 'Chosen people' });
    await assigned.getByText('Up to 1,000 people at once; for more, assign their area.', { exact: false }).waitFor();

    // A change elsewhere redraws the page: the rows shown stay shown.
    const periods = page.getByRole('region', { name: 'Pay periods' });
    await periods.getByLabel('From').fill('2031-03-01');
    await periods.getByLabel('To').fill('2031-03-31');
    await periods.getByRole('button', { name: 'Add pay period' }).click();
    await periods.getByRole('cell', { name: 'Open' }).waitFor();
    await assigned.getByRole('row', { name: /Aaron Test 1060/ }).waitFor();
    expect(errors).toEqual([]);
  });

  test('shifts: leave of the window a page at a time; an earlier date and a person show their old leave', async () => {
    await go('#/shifts', 'Shifts and calendar');
    const leave = page.getByRole('region', { name: 'Leave' });
    await leave.getByText('100 shown; there are more.').waitFor();
    expect(await showAll(leave, 'Show more leaves')).toBe(1);
    await leave.getByText(`${LEAVES} leaves`, { exact: true }).waitFor();
    expect(await leave.getByRole('row', { name: /sick/i }).count()).toBe(0);

    const shown = page.getByRole('region', { name: 'Dates and person shown' });
    await shown.getByLabel('Covering from').fill('2030-01-01');
    await shown.getByRole('combobox', { name: 'Person' }).fill('T-0006');
    await shown.getByRole('button', { name: 'Show', exact: true }).click();
    await leave.getByRole('row', { name: /Aaron Test 0006.*Sick/ }).waitFor();
    await leave.getByText('2 leaves', { exact: true }).waitFor();
    const assigned = page.getByRole('region', { name: 'Who works which schedule' });
    await assigned.getByText('2 assignments', { exact: true }).waitFor();
    expect(await assigned.locator('tbody tr').count()).toBe(2);
    expect(errors).toEqual([]);
  });

  test('a terminal owing 1,000+ commands says how many wait and shows the rest a page at a time', async () => {
    await go(`#/terminals/${SERIAL}`, SERIAL);
    const commands = page.getByRole('region', { name: 'Commands' });
    await commands.getByRole('heading', { name: `Waiting (${waiting.toLocaleString('en')})` }).waitFor();
    await commands.getByText(`1,000 of ${waiting.toLocaleString('en')} shown, oldest first.`).waitFor();
    const table = commands.locator('table').first();
    expect(await table.locator('tbody tr').count()).toBe(1000);
    await commands.getByRole('button', { name: 'Show more waiting commands' }).click();
    await table
      .locator('tbody tr')
      .nth(waiting - 1)
      .waitFor();
    expect(await table.locator('tbody tr').count()).toBe(waiting);
    await commands.getByText(`All ${waiting.toLocaleString('en')} shown.`).waitFor();
    expect(await commands.getByRole('button', { name: 'Show more waiting commands' }).isVisible()).toBe(false);
    expect(errors).toEqual([]);
  });
});
