/**
 * The person page says what each terminal holds of a finger, in a real browser (headless
 * Chromium) against the real server and simulated terminals: a terminal that holds version 1 and
 * refused version 2 (`Return=-30`) is not "On the terminal" for version 2, and still holds version 1.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { goTo, launchBrowser, signedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let server: TestServer;
let browser: Browser;
let page: Page;
let refuses = false;
const errors: string[] = [];

async function terminal(sn: string, options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}): Promise<SimulatedTerminal> {
  const t = new SimulatedTerminal({ url: server.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  await server.admin.post(`/devices/${sn}/approve/`);
  await drain(t);
  return t;
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  page = await signedInPage(browser, server, errors, { actor: 'admin@example.com' });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('where a finger is, on the person page', () => {
  test('a terminal that refused version 2 still holds version 1, and says so', async () => {
    await server.admin.post('/employees/', { id: 'H-EVE', name: 'Eve Holder' });
    const eve = (await server.admin.post('/enrollees/', { employee: 'H-EVE' })).body as { id: string; device_pin: string };
    await server.admin.post(`/enrollees/${eve.id}/consent/`, { version: 'v1', method: 'paper' });
    const refusing = await terminal('HOLD-A', { respond: (c) => (refuses && c.text.startsWith('DATA UPDATE FINGERTMP') ? -30 : undefined) });
    const source = await terminal('HOLD-B');
    expect((await source.enrollFinger(eve.device_pin, 8)).body).toBe('OK:1');
    await drain(refusing);
    refuses = true;
    expect((await source.enrollFinger(eve.device_pin, 8)).body).toBe('OK:1');
    await drain(refusing);

    await goTo(page, `#/people/${eve.id}`, /Eve Holder/);
    const biometrics = page.getByRole('region', { name: 'Biometrics' });
    await biometrics.getByText('Terminal cannot use it; version 1 still on it', { exact: true }).waitFor();
    expect(await biometrics.getByText('On the terminal', { exact: true }).count()).toBe(1);
    expect((await biometrics.getByRole('listitem').allTextContents()).sort()).toEqual([
      'HOLD-A: Terminal cannot use it; version 1 still on it',
      'HOLD-B: On the terminal',
    ]);
    expect(errors).toEqual([]);
  });
});
