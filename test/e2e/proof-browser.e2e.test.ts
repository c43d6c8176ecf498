/**
 * The proofs in the console, in a real browser: a person's page offers their proof of deletion
 * once consent is withdrawn (JSON and PDF downloads, checked: the JSON is the signed proof, the
 * PDF reads as the document), a deleted person's page still shows it, and the overview lists
 * what an installer must fix as "Needs attention", with the fix, linking to the terminal (whose
 * page shows it too), a terminal whose commands fail among them.
 * Screenshots go to /tmp/shots-proof/.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { extractText, getDocumentProxy } from 'unpdf';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { consoleContext, goTo, launchBrowser, signInByLink, watchErrors } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

const SHOTS = '/tmp/shots-proof';
let server: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];
let terminal: SimulatedTerminal;
let person: { id: string; device_pin: string };

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

function go(hash: string, heading: string | RegExp): Promise<void> {
  return goTo(page, hash, heading);
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  const context = await consoleContext(browser, { viewport: { width: 1100, height: 800 }, acceptDownloads: true });
  page = await context.newPage();
  watchErrors(page, errors);
  terminal = new SimulatedTerminal({ url: server.url, sn: 'LOBBY-1' });
  await terminal.handshake();
  await terminal.postOptions();
  expect((await server.admin.post('/devices/LOBBY-1/approve/', {})).status).toBe(200);
  await drain(terminal);
  expect((await server.admin.post('/employees/', { id: 'E-77', name: 'Ada Obi' })).status).toBe(201);
  const e = await server.admin.post('/enrollees/', { employee: 'E-77' });
  person = e.body;
  expect((await server.admin.post(`/enrollees/${person.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  await server.fpa.service.storeTemplate(person.id, 6, new Uint8Array(Buffer.from(syntheticTemplate(180), 'base64')), { algorithmVersion: '10', by: 'test' });
  await drain(terminal);
  await signInByLink(page, server, 'hr.officer@example.com');
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('proofs in the console', () => {
  test('no proof before any deletion; after the withdrawal, the proof waits for the terminal, then is complete', async () => {
    await go(`#/people/${person.id}`, /Ada Obi/);
    expect(await page.getByRole('heading', { name: 'Proof of deletion' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Withdraw consent' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Withdraw' }).click();
    await page.getByText(/^Consent withdrawn; 1 biometric template destroyed/).waitFor();
    // The consent section says so from the person's own record (HR reads it too; the audit log is not theirs).
    await page.getByText(/^1 biometric template destroyed on the server/).waitFor();
    await page.getByRole('heading', { name: 'Proof of deletion' }).waitFor();
    expect(await page.getByText('1 terminal still to confirm').isVisible()).toBe(true);
    expect(
      await page
        .getByRole('row', { name: /LOBBY-1/ })
        .getByText('Waiting for the terminal')
        .isVisible(),
    ).toBe(true);
    // When the terminal was last heard from, for a reader to tell a silent terminal from a slow one.
    expect(
      await page
        .getByRole('row', { name: /LOBBY-1/ })
        .getByText(/^Last heard from /)
        .isVisible(),
    ).toBe(true);
    await shot('person-proof-pending');
    // The terminal's queue keeps that delete: no Cancel for it, and why.
    await go('#/terminals/LOBBY-1', /LOBBY-1/);
    const waiting = page.getByRole('region', { name: 'Commands' });
    await waiting.getByText('Kept: a deletion proof waits for it').first().waitFor();
    expect(await waiting.getByRole('button', { name: /^Cancel Delete/ }).count()).toBe(0);
    await go(`#/people/${person.id}`, /Ada Obi/);
    await drain(terminal);
    await page.reload();
    await page.getByRole('heading', { name: 'Proof of deletion' }).waitFor();
    expect(await page.getByText('Complete', { exact: true }).isVisible()).toBe(true);
    expect(
      await page
        .getByRole('row', { name: /LOBBY-1/ })
        .getByText('Confirmed', { exact: true })
        .isVisible(),
    ).toBe(true);
    await shot('person-proof-complete');
  });

  test('"Proof of deletion" downloads the signed JSON and the readable PDF', async () => {
    const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Proof of deletion (JSON)' }).click()]);
    expect(json.suggestedFilename()).toBe('deletion-proof-E-77.json');
    const proof = JSON.parse(readFileSync((await json.path())!, 'utf8'));
    expect(proof).toMatchObject({ enrollee: person.id, employee: 'E-77', complete: true, reason: 'consent_withdrawn' });
    expect(proof.terminals).toEqual([expect.objectContaining({ serial_number: 'LOBBY-1', status: 'confirmed' })]);
    expect(proof.signature.split('.')).toHaveLength(3);

    const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Proof of deletion (PDF)' }).click()]);
    expect(pdf.suggestedFilename()).toBe('deletion-proof-E-77.pdf');
    const bytes = new Uint8Array(readFileSync((await pdf.path())!));
    const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
    expect(text).toContain('Proof of deletion of biometric data');
    expect(text).toContain('E-77');
    expect(text).toContain('Terminal LOBBY-1: Confirmed');
    expect(text).toContain('How to verify it');
    expect(text).toContain('/.well-known/fpa-proof-key.json');
  });

  test('a deleted person’s page still shows their proof', async () => {
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('textbox').fill('E-77');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { level: 1, name: /Employee E-77/ }).waitFor();
    await page.getByRole('heading', { name: 'Proof of deletion' }).waitFor();
    expect(await page.getByText('Deleted', { exact: true }).isVisible()).toBe(true);
    // The console's Delete made their directory entry inactive: the page says where the name still is.
    expect(await page.getByText(/keeps their name until it is erased \(People › Inactive employees\)/).isVisible()).toBe(true);
    // Their consent history stays readable beside the proof (what they agreed to, and its end).
    await page.getByRole('heading', { name: 'Consent history' }).waitFor();
    await drain(terminal);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: /Employee E-77/ }).waitFor();
    expect(await page.getByText('Complete', { exact: true }).isVisible()).toBe(true);
    await shot('deleted-person-proof');
  });

  test('the overview shows what needs attention, with the fix, linking to the terminal', async () => {
    const stranger = new SimulatedTerminal({ url: server.url, sn: 'STRANGER-9' });
    await stranger.handshake();
    await go('#/overview', 'Overview');
    const item = page.locator('li.diagnostic[data-kind="unknown_terminal"]');
    await item.waitFor();
    expect(await item.textContent()).toContain('An unknown terminal (serial STRANGER-9');
    expect(await item.getByText('Fix:').isVisible()).toBe(true);
    // LOBBY-1 has no time zone, and neither has the service.
    expect(await page.locator('li.diagnostic[data-kind="time_zone_not_set"]').getByRole('link', { name: 'LOBBY-1' }).isVisible()).toBe(true);
    await shot('overview-needs-attention');
    await item.getByRole('link', { name: 'STRANGER-9' }).click();
    await page.getByRole('heading', { level: 1, name: /STRANGER-9/ }).waitFor();
    // The terminal's page says the same, with the fix.
    await page.getByRole('heading', { name: 'Needs attention' }).waitFor();
    expect(await page.locator('li.diagnostic[data-kind="unknown_terminal"]').getByText('Fix:').isVisible()).toBe(true);
    await shot('terminal-needs-attention');
    expect(errors).toEqual([]);
  });

  test('a terminal whose commands fail is said in words, with the fix, on the overview and on its page', async () => {
    // It refuses everything it is sent (Return=-1): first the query of its users at its approval.
    const refuser = new SimulatedTerminal({ url: server.url, sn: 'REFUSER-1', respond: () => -1 });
    await refuser.handshake();
    await refuser.postOptions();
    expect((await server.admin.post('/devices/REFUSER-1/approve/', {})).status).toBe(200);
    await drain(refuser);
    await go('#/overview', 'Overview');
    const item = page.locator('li.diagnostic[data-kind="commands_failing"]');
    await item.waitFor();
    const text = await item.textContent();
    expect(text).toContain('Fix now');
    expect(text).toContain('Terminal REFUSER-1 refuses its commands: ');
    expect(text).toContain('Its answer to listing its users: Return=-1 (parameter error).');
    // Its time said once, in the console's form, in the message (not the API's form, then again after it).
    expect(text).toMatch(/failed since \d{1,2} \w{3} \d{4}, \d{2}:\d{2}/);
    expect(text).not.toContain('(since');
    expect(await item.getByText('Fix:').isVisible()).toBe(true);
    expect(text).toContain('Do what its answer says');
    await shot('overview-commands-failing');
    await item.getByRole('link', { name: 'REFUSER-1' }).click();
    await page.getByRole('heading', { level: 1, name: /REFUSER-1/ }).waitFor();
    await page.getByRole('heading', { name: 'Needs attention' }).waitFor();
    expect(await page.locator('li.diagnostic[data-kind="commands_failing"]').getByText('Fix:').isVisible()).toBe(true);
    // The failed command is in its queue, with the terminal's answer, as the fix says.
    expect(await page.getByRole('region', { name: 'Commands' }).getByText('(code -1)').first().isVisible()).toBe(true);
    await shot('terminal-commands-failing');
    expect(errors).toEqual([]);
  });
});
