/**
 * Faces and palms in the console, in a real browser (headless Chromium) against the real server
 * and simulated SpeedFace-class terminals: each kind is called and counted as what it is — a
 * face terminal in sync is "In agreement" (its faces against its FaceCount, not its FPCount).
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
let sf: SimulatedTerminal;
const errors: string[] = [];

async function person(id: string, name: string) {
  await server.admin.post('/employees/', { id, name });
  const e = await server.admin.post('/enrollees/', { employee: id });
  await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' });
  return e.body as { id: string; device_pin: string };
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  page = await signedInPage(browser, server, errors, { actor: 'admin@example.com' });
  sf = new SimulatedTerminal({ url: server.url, sn: 'SFB1', biodata: true, kinds: { visible_face: '58.10', palm: '12.0' } });
  await sf.handshake();
  await sf.postOptions();
  await server.admin.post('/devices/SFB1/approve/');
  await drain(sf);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('faces and palms in the console', () => {
  test('a face terminal in sync is in agreement: its faces against its own count, its fingers against FPCount', async () => {
    const alice = await person('B-ALICE', 'Alice Face');
    expect((await sf.enrollFinger(alice.device_pin, 6)).body).toBe('OK:1');
    expect((await sf.enrollKind(alice.device_pin, 'visible_face')).body).toBe('OK:1');
    await sf.postOptions();
    await goTo(page, '#/terminals/SFB1', /SFB1/);
    const agreement = page.getByRole('region', { name: 'Agreement with the server' });
    await agreement.getByText('In agreement', { exact: true }).waitFor();
    expect(await agreement.getByText('Differs', { exact: true }).count()).toBe(0);
    const text = await agreement.textContent();
    expect(text).toContain("Fingerprints1 by the terminal's last count, 1 expected");
    expect(text).toContain("Faces1 by the terminal's last count, 1 expected");
    expect(text).not.toContain('Palms');
    expect(errors).toEqual([]);
  });
});
