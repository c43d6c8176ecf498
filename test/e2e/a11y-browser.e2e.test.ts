/**
 * The console's accessibility, in a real browser (headless Chromium), from a tester's report:
 * focus comes back to the button that opened a confirmation and stays on a control a redraw
 * replaces (after an action, or the 15 s refresh of Terminals and Overview); buttons that share
 * a word are named by what they act on; a dialog's explanation is read with it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { consoleContext, launchBrowser, signedInPage, signInByLink, watchErrors } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];

async function go(p: Page, hash: string, heading: string | RegExp): Promise<void> {
  await p.evaluate((h) => {
    location.hash = h;
  }, hash);
  await p.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** What has focus, as a test can compare it: its tag, accessible name (aria-label) and text. */
function focused(p: Page): Promise<string> {
  return p.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'BODY';
    return `${el.tagName}:${el.getAttribute('aria-label') ?? el.textContent?.trim() ?? ''}`;
  });
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  for (const [username, name] of [
    ['dora', 'Dora Disabled'],
    ['erin', 'Erin Else'],
  ] as const)
    await server.fpa.service.inviteUser({ username, name, role: 'hr' }, { consoleBase: server.url });
  page = await signedInPage(browser, server, errors);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('focus and names in the console', () => {
  test('Escape or Cancel in a confirmation gives focus back to the button that opened it', async () => {
    await go(page, '#/users', 'Users');
    const disable = page.getByRole('button', { name: 'Disable dora' });
    await disable.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Disable Dora Disabled?' });
    await dialog.waitFor();
    expect(await focused(page)).toBe('BUTTON:Cancel');
    // The dialog's explanation is its description, read with its name.
    const described = await dialog.evaluate((d) => document.getElementById(d.getAttribute('aria-describedby') ?? '')?.textContent);
    expect(described).toBe('Their sessions end and their API keys are revoked now.');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await focused(page)).toBe('BUTTON:Disable dora');
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Enter'); // Cancel has focus
    await dialog.waitFor({ state: 'detached' });
    expect(await focused(page)).toBe('BUTTON:Disable dora');
  });

  test('after the action the page is redrawn: focus goes to the section, and the result is said', async () => {
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Disable Dora Disabled?' });
    await dialog.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('status').getByText('dora disabled.').waitFor();
    // "Disable dora" became "Enable dora": focus is on the heading of the section it was in.
    expect(await focused(page)).toBe('H2:People who sign in');
    // A control still there after a redraw keeps focus (Enable needs no confirmation).
    await page.getByRole('button', { name: 'Enable dora' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('dora enabled.').waitFor();
    expect(await focused(page)).toBe('H2:People who sign in');
    await page.getByRole('button', { name: 'Reset erin' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Reset Erin Else’s sign-in?' }).getByRole('button', { name: 'Reset' }).click();
    await page.getByText('Give this link to Erin Else').waitFor();
    expect(await focused(page)).toBe('BUTTON:Reset erin');
    expect(errors).toEqual([]);
  });

  test('the 15 s refresh of Terminals and Overview keeps focus on the same link or button', async () => {
    const context = await consoleContext(browser);
    await context.clock.install({ time: Date.now() });
    const p = await context.newPage();
    watchErrors(p, errors);
    await signInByLink(p, server, 'hr.officer@example.com');
    for (const [hash, heading, control] of [
      ['#/terminals', 'Terminals', p.getByRole('button', { name: 'Refresh' })],
      ['#/overview', 'Overview', p.getByRole('link', { name: /Punches today/ })],
    ] as const) {
      await go(p, hash, heading);
      await control.focus();
      const before = await focused(p);
      // The page is drawn anew (its heading a new element), not merely left alone.
      await p.evaluate(() => document.querySelector('h1')?.setAttribute('data-old', ''));
      await p.clock.runFor(15_500);
      await p.waitForFunction(() => !document.querySelector('h1[data-old]') && document.querySelector('h1'), undefined, { polling: 50 });
      expect(await focused(p)).toBe(before);
    }
    // A tile whose count changes meanwhile (a new terminal knocks) is still the one focused.
    const waiting = p.getByRole('link', { name: /Waiting for approval/ });
    await waiting.focus();
    const was = await waiting.textContent();
    await new SimulatedTerminal({ url: server.url, sn: 'KNOCKER01' }).handshake();
    await p.clock.runFor(15_500);
    await p.waitForFunction((text) => document.activeElement?.textContent !== text, was, { polling: 50 });
    expect(await focused(p)).toMatch(/^A:\d+Waiting for approval$/);
    await context.close();
    expect(errors).toEqual([]);
  });

  test('the Delete buttons of the shifts page say what each deletes', async () => {
    expect((await server.admin.post('/work-schedules/', { name: 'Early', start: '06:00', end: '14:00' })).status).toBe(201);
    expect((await server.admin.post('/work-schedules/', { name: 'Late', start: '14:00', end: '22:00' })).status).toBe(201);
    expect((await server.admin.post('/holidays/', { date: '2031-12-25', name: 'Christmas Day' })).status).toBe(201);
    await go(page, '#/shifts', 'Shifts and calendar');
    for (const name of ['Delete schedule Early', 'Delete schedule Late', 'Delete holiday Christmas Day'])
      expect(await page.getByRole('button', { name, exact: true }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Delete', exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Delete schedule Late' }).click();
    await page.getByRole('dialog', { name: 'Delete schedule Late?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').getByText('Schedule Late deleted.').waitFor();
    expect(errors).toEqual([]);
  });
});
