/**
 * Faces and palms in the console, in a real browser (headless Chromium) against the real server
 * and simulated SpeedFace-class terminals: each kind is called and counted as what it is — a
 * face terminal in sync is "In agreement" (its faces against its FaceCount, not its FPCount); the
 * people list and a terminal's users name faces and palms; a palm of five templates is one palm on
 * the person's page; a withdrawal counts biometric templates, not fingerprints.
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
let alice: { id: string; device_pin: string };
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
    alice = await person('B-ALICE', 'Alice Face');
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

  test('the people list, the terminal and the person page call faces and palms what they are', async () => {
    const carol = await person('B-CAROL', 'Carol Palm');
    const dan = await person('B-DAN', 'Dan Face');
    expect((await sf.enrollKind(carol.device_pin, 'palm', 1)).body).toBe('OK:5');
    expect((await sf.enrollKind(dan.device_pin, 'visible_face')).body).toBe('OK:1');
    await sf.postOptions();

    // The Biometrics filter and the column agree: Dan, with a face only, is enrolled and says so.
    await goTo(page, '#/people', 'People');
    await page.getByLabel('Biometrics').selectOption('some');
    const danRow = page.getByRole('row', { name: /Dan Face/ });
    await danRow.waitFor();
    expect(await danRow.getByRole('cell', { name: 'Face', exact: true }).count()).toBe(1);
    expect(
      await page
        .getByRole('row', { name: /Alice Face/ })
        .getByRole('cell', { name: 'Right index, Face', exact: true })
        .count(),
    ).toBe(1);
    expect(
      await page
        .getByRole('row', { name: /Carol Palm/ })
        .getByRole('cell', { name: 'Right palm', exact: true })
        .count(),
    ).toBe(1);
    const api = (await server.admin.get(`/enrollees/${dan.id}/`)).body;
    expect(api).toMatchObject({ fingers: [], biometrics: { visible_face: [0] } });

    // The terminal's users: each kind counted, a palm of five templates one palm.
    await goTo(page, '#/terminals/SFB1', /SFB1/);
    const users = page.getByRole('region', { name: 'People on the terminal' });
    await users
      .getByRole('row', { name: new RegExp(`^${dan.device_pin} `) })
      .getByRole('cell', { name: '1 face', exact: true })
      .waitFor();
    expect(
      await users
        .getByRole('row', { name: new RegExp(`^${carol.device_pin} `) })
        .getByRole('cell', { name: '1 palm', exact: true })
        .count(),
    ).toBe(1);
    expect(
      await users
        .getByRole('row', { name: new RegExp(`^${alice.device_pin} `) })
        .getByRole('cell', { name: '1 fingerprint, 1 face', exact: true })
        .count(),
    ).toBe(1);

    // Carol's palm is one row, not five "Palm 0".
    await goTo(page, `#/people/${carol.id}`, /Carol Palm/);
    const biometrics = page.getByRole('region', { name: 'Biometrics' });
    await biometrics.getByRole('cell', { name: 'Right palm (5 templates)', exact: true }).waitFor();
    expect(await biometrics.getByRole('row').count()).toBe(2);
    expect(await biometrics.getByText('On the terminal').count()).toBe(1);
    expect(errors).toEqual([]);
  });

  test('withdrawing consent counts the biometric templates destroyed, not fingerprints', async () => {
    await goTo(page, `#/people/${alice.id}`, /Alice Face/);
    await page.getByRole('button', { name: 'Withdraw consent' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Withdraw' }).click();
    await page.getByText(/^Consent withdrawn; 2 biometric templates destroyed/).waitFor();
    await page.getByText(/^2 biometric templates destroyed on the server/).waitFor();
    expect(await page.getByText(/fingerprints destroyed/).count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
