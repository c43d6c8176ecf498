/**
 * A schedule assigned to everyone in an area does not reach the people of it who have a schedule
 * of their own on those dates (their own goes first: README "Which shift"), which an owner could
 * not tell: the Saturday given to everyone left every baker's Saturday off. The answer says how
 * many it does not reach, and the console says it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { goTo, launchBrowser, onSignedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let browser: Browser | undefined;
const errors: string[] = [];
const ids: Record<string, string> = {};

beforeAll(async () => {
  server = await startTestServer();
  expect((await server.admin.post('/areas/', { name: 'shop' })).status).toBe(201);
  for (const s of [
    { name: 'Bakers', start: '04:00', end: '12:00' },
    { name: 'Saturday', start: '07:00', end: '12:00', weekdays: [6] },
  ])
    expect((await server.admin.post('/work-schedules/', s)).status).toBe(201);
  for (const who of ['A', 'B', 'C']) {
    expect((await server.admin.post('/employees/', { id: `S-${who}`, name: `Shop ${who}` })).status).toBe(201);
    ids[who] = (await server.admin.post('/enrollees/', { employee: `S-${who}`, areas: ['shop'] })).body.id;
  }
});
afterAll(async () => {
  await browser?.close();
  await server.close();
});

describe('an area’s schedule', () => {
  test('says how many of the area’s people have their own schedule on its dates, which goes first', async () => {
    const own = await server.admin.post('/shift-assignments/', { schedule: 'Bakers', enrollee: ids.A, from: '2031-01-01' });
    expect(own.status).toBe(201);
    expect(own.body.people_with_own_schedule).toBeNull();
    expect((await server.admin.post('/shift-assignments/', { schedule: 'Bakers', enrollee: ids.B, from: '2031-01-01', to: '2031-01-31' })).status).toBe(201);

    const february = await server.admin.post('/shift-assignments/', { schedule: 'Saturday', area: 'shop', from: '2031-02-01' });
    expect(february.status).toBe(201);
    expect(february.body).toMatchObject({ area: 'shop', schedule: 'Saturday', people_with_own_schedule: 1 });
    const january = await server.admin.post('/shift-assignments/', { schedule: 'Saturday', area: 'shop', from: '2031-01-15', to: '2031-01-20' });
    expect(january.body.people_with_own_schedule).toBe(2);
    const before = await server.admin.post('/shift-assignments/', { schedule: 'Saturday', area: 'shop', from: '2030-06-01', to: '2030-12-31' });
    expect(before.body.people_with_own_schedule).toBe(0);
    // What the calendar plans agrees: A's own Bakers keeps her Saturday off, C works the area's.
    const plan = async (who: string) => (await server.admin.get(`/calendar/?employee=S-${who}&from=2031-02-01&to=2031-02-01`)).body.results[0];
    expect(await plan('A')).toMatchObject({ day_type: 'weekend', schedule: null });
    expect((await plan('C')).schedule).toMatchObject({ name: 'Saturday' });
  });
});

describe('the Shifts page', () => {
  test('says who an area’s new schedule does not reach', async () => {
    browser = await launchBrowser();
    await onSignedInPage(browser, server, errors, async (page) => {
      await goTo(page, '#/shifts', 'Shifts and calendar');
      const assign = page.getByRole('region', { name: 'Who works which schedule' });
      await assign.getByLabel('Schedule').selectOption({ label: 'Saturday' });
      await assign.getByLabel('Assign to').selectOption({ label: 'Everyone in an area' });
      await assign.getByLabel('Area').selectOption({ label: 'shop' });
      await assign.getByLabel('From').fill('2031-03-01');
      await assign.getByRole('button', { name: 'Assign' }).click();
      await page
        .getByText(
          'Saturday assigned to everyone in shop. 1 person of shop has a schedule of their own on these dates, which goes first: this one does not apply to them',
        )
        .waitFor();
    });
    expect(errors).toEqual([]);
  });
});
