/**
 * A terminal's addresses on its console page, in a real browser against the real server: the
 * address the server sees it at, the one it reports for itself (behind NAT a private one) and the
 * one it is trusted at are each named, with a line saying which is which. The page showed
 * "Address" (the INFO's address or the peer's, whichever came last) and "Trusted address" with
 * nothing telling them apart.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { goTo, launchBrowser, onSignedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let server: TestServer;
let browser: Browser;
const errors: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  expect(errors).toEqual([]);
});

describe('Terminals › a terminal’s addresses', () => {
  test('the address seen, the reported address and the trusted address, each with what it is', async () => {
    const t = new SimulatedTerminal({ url: server.url, sn: 'NAT00001' });
    await t.handshake();
    await t.postOptions();
    expect((await server.admin.post('/devices/NAT00001/approve/', { areas: ['default'] })).status).toBe(200);
    await drain(t);
    // Behind NAT: it says 10.9.9.9; the server sees it at 127.0.0.1.
    expect((await t.get('getrequest', { INFO: 'Ver 8.0.4.2-I113-02,0,0,0,10.9.9.9,10,0,0,0,10000' })).body).toBe('OK');
    await onSignedInPage(browser, server, errors, async (page) => {
      await goTo(page, '#/terminals/NAT00001', /NAT00001/);
      const about = page.getByRole('region', { name: 'About' });
      /** The value of a fact, and the line under it saying which address it is. */
      const fact = async (term: string) => {
        const dd = about.locator('dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]');
        const hint = (await dd.locator('.hint').textContent()) ?? '';
        return [((await dd.textContent()) ?? '').replace(hint, ''), hint];
      };
      expect(await fact('Address seen')).toEqual(['127.0.0.1', 'Where its requests come from, as the server sees them']);
      expect(await fact('Reported address')).toEqual(['10.9.9.9', 'What the terminal says its own address is; behind NAT it differs']);
      expect(await fact('Trusted address')).toEqual([
        '127.0.0.1',
        'Under the default address trust, people’s records and templates go only to requests from here (or with its key)',
      ]);
    });
  });
});
