/**
 * An area's time zone in the console (README "Time zones"): created with one in the New area
 * dialog, set and cleared on the area's page, shown in the list; a zone that is no IANA name is
 * refused beside the field; a change that leaves someone in two zones says how many; the manual
 * punch form says a time typed is read in the person's zone.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { goTo, launchBrowser, onSignedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let browser: Browser | undefined;
const errors: string[] = [];

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'Europe/London' });
  expect((await server.admin.post('/areas/', { name: 'newyork', time_zone: 'America/New_York' })).status).toBe(201);
  expect((await server.admin.post('/employees/', { id: 'B-1', name: 'Both Places' })).status).toBe(201);
  expect((await server.admin.post('/areas/', { name: 'mumbai' })).status).toBe(201);
  expect((await server.admin.post('/enrollees/', { employee: 'B-1', areas: ['mumbai', 'newyork'] })).status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  await server.close();
});

describe('the Areas pages', () => {
  test('an area is created with a time zone, which the list shows', async () => {
    browser = await launchBrowser();
    await onSignedInPage(browser, server, errors, async (page) => {
      await goTo(page, '#/areas', 'Areas');
      await page.getByRole('button', { name: 'Create an area' }).click();
      const dialog = page.getByRole('dialog', { name: 'New area' });
      await dialog.getByLabel('Area name').fill('london-office');
      await dialog.getByLabel('Time zone').fill('europe/london');
      await dialog.getByRole('button', { name: 'Create area' }).click();
      await page.getByRole('heading', { level: 1, name: 'london-office' }).waitFor();
      await page.getByText('Attendance is judged in Europe/London.').waitFor();
      await goTo(page, '#/areas', 'Areas');
      await page.getByRole('row', { name: /newyork .*America\/New_York/ }).waitFor();
      await page.getByRole('row', { name: /mumbai .*Europe\/London \(attendance\)/ }).waitFor();
    });
    expect((await server.admin.get('/areas/london-office/')).body.time_zone).toBe('Europe/London');
    expect(errors).toEqual([]);
  });

  test('an area’s zone is set on its page: an offset is refused beside the field; the people it puts in two zones are counted; cleared again', async () => {
    await onSignedInPage(browser!, server, errors, async (page) => {
      await goTo(page, '#/areas/mumbai', 'mumbai');
      await page.getByText('Attendance is judged in Europe/London, the attendance time zone.').waitFor();
      const form = page.getByRole('region', { name: 'Name, description and time zone' });
      // The browser's zones are offered as one types (a datalist): Kolkata is among them.
      const offered = await form.getByLabel('Time zone').evaluate((field) => Array.from((field as HTMLInputElement).list?.options ?? [], (o) => o.value));
      expect(offered).toContain('Asia/Kolkata');
      expect(offered).toContain('America/New_York');
      // By their present names (Chromium's own list says Asia/Calcutta).
      expect(offered).not.toContain('Asia/Calcutta');
      await form.getByLabel('Time zone').fill('+05:30');
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByText('time_zone must be an IANA time zone name', { exact: false }).waitFor();
      await form.getByLabel('Time zone').fill('Asia/Kolkata');
      await form.getByRole('button', { name: 'Save' }).click();
      await page
        .getByText('Area saved. 1 person of mumbai is also in an area of another time zone: they are judged in the zone of the first of those areas by name.', {
          exact: false,
        })
        .waitFor();
      await page.getByText('Attendance is judged in Asia/Kolkata.').waitFor();
      expect((await server.admin.get('/areas/mumbai/')).body.time_zone).toBe('Asia/Kolkata');
      await page.getByRole('region', { name: 'Name, description and time zone' }).getByLabel('Time zone').fill('');
      await page.getByRole('region', { name: 'Name, description and time zone' }).getByRole('button', { name: 'Save' }).click();
      await page.getByText('Attendance is judged in Europe/London, the attendance time zone.').waitFor();
    });
    expect((await server.admin.get('/areas/mumbai/')).body.time_zone).toBeNull();
    expect(errors).toEqual([]);
  });

  test('with an area zoned, the manual punch form says a time is read in the person’s zone', async () => {
    await onSignedInPage(browser!, server, errors, async (page) => {
      await goTo(page, '#/punches', 'Punches');
      await page.getByText('In the person’s time zone: their area’s, else the attendance time zone, Europe/London.').waitFor();
    });
    expect(errors).toEqual([]);
  });

  test('the Today board shows each person’s times where they work, and says in which zone', async () => {
    expect((await server.admin.post('/employees/', { id: 'NY-1', name: 'Nora York' })).status).toBe(201);
    const nora = (await server.admin.post('/enrollees/', { employee: 'NY-1', areas: ['newyork'] })).body as { id: string };
    const at = new Date(Date.now() - 60_000);
    expect((await server.admin.post('/punches/manual/', { enrollee: nora.id, at: at.toISOString(), state: 0, reason: 'forgot the card' })).status).toBe(201);
    const board = (await server.admin.get(`/attendance/today/?enrollee=${nora.id}`)).body as { people: { status: string; time_zone?: string }[] };
    expect(board.people[0]?.time_zone).toBe('America/New_York');
    const newYorkTime = new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit' }).format(at);
    await onSignedInPage(browser!, server, errors, async (page) => {
      await page.goto(`${server.url}/console/#/?show=${board.people[0]!.status}`);
      const row = page.locator('#board-list').getByRole('row', { name: /Nora York/ });
      await row.waitFor();
      expect(await row.getByRole('cell').nth(4).textContent()).toBe(newYorkTime);
      // Everyone on the board works in New York (the other zoned areas hold nobody): their zone is said.
      expect(await page.locator('p.as-of').textContent()).toEndWith('Times in America/New_York.');
    });
    expect(errors).toEqual([]);
  });
});
