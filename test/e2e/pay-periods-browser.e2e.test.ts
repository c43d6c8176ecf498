/**
 * Shifts › Pay periods in a real browser against the real server: a period added with a wrong
 * date (it stood in the way of the right one, "overlaps another pay period", and nothing removed
 * it) is deleted after a confirmation, and the right one added; a locked period offers no Delete.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { consoleDate, goTo, launchBrowser, onSignedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let browser: Browser;
const errors: string[] = [];

const day = consoleDate;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  expect(errors).toEqual([]);
});

const withPage = (work: (page: Page) => Promise<void>) => onSignedInPage(browser, server, errors, work);

describe('Shifts › Pay periods', () => {
  test('a period added with a wrong date is deleted (after a confirmation), and the right one added; a locked one offers no Delete', async () => {
    await withPage(async (page) => {
      await goTo(page, '#/shifts', 'Shifts and calendar');
      const periods = page.getByRole('region', { name: 'Pay periods' });
      const add = async (from: string, to: string) => {
        await periods.getByLabel('From', { exact: true }).fill(from);
        await periods.getByLabel('To', { exact: true }).fill(to);
        await periods.getByRole('button', { name: 'Add pay period' }).click();
      };
      // A typo: the year 2062 for 2026.
      await add('2026-10-01', '2062-10-31');
      const wrong = `pay period ${day('2026-10-01')} to ${day('2062-10-31')}`;
      await periods.getByRole('button', { name: `Delete ${wrong}` }).waitFor();
      // It stands in the way of the right one.
      await add('2026-10-01', '2026-10-31');
      await periods.getByText(/overlaps another pay period/i).waitFor();
      await periods.getByRole('button', { name: `Delete ${wrong}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page
        .getByRole('status')
        .getByText(`Pay period ${day('2026-10-01')} to ${day('2062-10-31')} deleted.`)
        .waitFor();
      expect(await periods.getByRole('button', { name: `Delete ${wrong}` }).count()).toBe(0);
      await add('2026-10-01', '2026-10-31');
      const right = `pay period ${day('2026-10-01')} to ${day('2026-10-31')}`;
      await periods.getByRole('button', { name: `Delete ${right}` }).waitFor();
      await periods.getByRole('button', { name: `Lock ${right}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Lock' }).click();
      await page.getByRole('status').getByText('Pay period locked.').waitFor();
      await periods.getByText(/^Locked/).waitFor();
      expect(await periods.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    });
    const audit = (await server.admin.get('/audit-log/?action=pay_period.deleted')).body.results;
    expect(audit).toHaveLength(1);
    expect(audit[0].details).toEqual({ from: '2026-10-01', to: '2062-10-31' });
  });
});
