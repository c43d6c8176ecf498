/**
 * Approving a terminal in the console, in a real browser against the real server: no area is
 * ticked for a terminal waiting for approval (the area it registered in, `default`, was ticked and
 * easy to miss: ticking North approved it into North and default); Approve needs one chosen, said
 * beside the field; and approved from the keyboard, focus goes to the page's heading (the section
 * it was in is gone), not to the page's body (a form's button, disabled while it worked, lost
 * focus before the redraw could find it).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { focused, goTo, launchBrowser, onSignedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let browser: Browser;
const errors: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  for (const name of ['north', 'south']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  expect(errors).toEqual([]);
});

const withPage = (work: (page: Page) => Promise<void>) => onSignedInPage(browser, server, errors, work);

describe('Terminals › approving one', () => {
  test('no area is ticked for it; Approve needs one, said beside the field; it is approved into the areas ticked only', async () => {
    const west = new SimulatedTerminal({ url: server.url, sn: 'WEST0001' });
    await west.handshake();
    await west.postOptions();
    expect((await server.admin.get('/devices/WEST0001/')).body.areas).toEqual(['default']);
    await withPage(async (page) => {
      await goTo(page, '#/terminals/WEST0001', /WEST0001/);
      const approve = page.getByRole('region', { name: 'Approve this terminal' });
      for (const box of await approve.getByRole('checkbox').all()) expect(await box.isChecked()).toBe(false);
      await approve.getByText('Choose at least one: it is sent the people of these areas.').waitFor();
      await approve.getByRole('button', { name: 'Approve' }).click();
      await approve.getByText('Choose at least one area for this terminal.').waitFor();
      expect((await server.admin.get('/devices/WEST0001/')).body.status).toBe('pending_approval');
      await approve.getByRole('checkbox', { name: 'north' }).check();
      await approve.getByRole('button', { name: 'Approve' }).click();
      await page.getByText(/approved: the people of its areas are being sent/).waitFor();
    });
    expect((await server.admin.get('/devices/WEST0001/')).body).toMatchObject({ status: 'approved', areas: ['north'] });
  });

  test('approved from the keyboard, focus goes to the page’s heading (its section is gone), not to the page’s body', async () => {
    const keys = new SimulatedTerminal({ url: server.url, sn: 'KEYS0001' });
    await keys.handshake();
    await withPage(async (page) => {
      await goTo(page, '#/terminals/KEYS0001', /KEYS0001/);
      const approve = page.getByRole('region', { name: 'Approve this terminal' });
      await approve.getByRole('checkbox', { name: 'north' }).focus();
      await page.keyboard.press('Space');
      await approve.getByRole('button', { name: 'Approve' }).focus();
      await page.keyboard.press('Enter');
      await page.getByText(/approved: the people of its areas are being sent/).waitFor();
      await page.getByRole('region', { name: 'Approve this terminal' }).waitFor({ state: 'detached' });
      expect(await focused(page)).toMatch(/^H1:KEYS0001/);
    });
  });
});
