/**
 * A person's page in a real browser against the real server and simulated terminals: a failed
 * enrollment session says what happened and what to do next in words (with a link to where it is
 * done), never the API's text with its paths, and Operations' recent events say it the same way;
 * an open session at a terminal waits for the person there, not for an agent; a visit asks for no
 * proof of deletion the person does not have (it was a 404 in the browser's console and a refusal
 * in the server's log at every visit); the consent history lists every consent of the person, a
 * withdrawn one too, where the Consent section shows only the current one.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import type { Logger } from '../../src/platform/log';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { goTo, launchBrowser, onSignedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';
import { drain, type EnrolledPerson, enrolledPerson, namedTerminal } from '../support/terminals';

let server: TestServer;
let browser: Browser;
const errors: string[] = [];
/** The server's `request refused` lines: what it answered 4xx. */
const refusals: Record<string, unknown>[] = [];
const logger: Logger = {
  debug() {},
  info(message, fields) {
    if (message === 'request refused') refusals.push(fields ?? {});
  },
  warn() {},
  error() {},
};

const people: Record<string, EnrolledPerson> = {};

async function person(employee: string, name: string, areas: string[]): Promise<EnrolledPerson> {
  people[employee] = await enrolledPerson(server, employee, name, areas);
  return people[employee]!;
}

const terminal = (sn: string, name: string, areas: string[], options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}) =>
  namedTerminal(server, sn, name, areas, options);

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({}, { logger }), launchBrowser()]);
  await person('E1', 'Anna Berg', ['north']);
  await person('E4', 'Gus Hay', ['north']);
  await person('E5', 'Ida Moe', ['north']);
  for (const id of [people.E4!.id, people.E5!.id])
    expect((await server.admin.post(`/enrollees/${id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  expect(errors).toEqual([]);
});

const withPage = (work: (page: Page) => Promise<void>) => onSignedInPage(browser, server, errors, work);

describe('a person’s page', () => {
  test('a failed session says what happened and what to do, with a link to the terminal’s people; nothing of the API', async () => {
    // The terminal held Gus's PIN as its own user before the service knew him.
    const held = await terminal('NRTH0001', 'North gate', ['north'], { biodata: true, existingUsers: [{ pin: people.E4!.device_pin, fingers: [6] }] });
    const started = await server.admin.post(`/enrollees/${people.E4!.id}/remote-enrollment/`, { device: 'NRTH0001', fingers: [5] });
    expect(started.status).toBe(201);
    await drain(held);
    expect((await server.admin.get(`/enrollment-sessions/${started.body.id}/`)).body.status).toBe('failed');
    await withPage(async (page) => {
      await goTo(page, `#/people/${people.E4!.id}`, /Gus Hay/);
      const sessions = page.getByRole('region', { name: 'Enrollment sessions' });
      const row = sessions.getByRole('row', { name: /Failed/ });
      await row.waitFor();
      const text = (await row.textContent()) ?? '';
      expect(text).toContain(`North gate already has its own user with PIN ${people.E4!.device_pin}, so it kept the right thumb as that user’s.`);
      expect(text).toContain('Adopt that user as this person (or Remove it), then start again.');
      expect(text).not.toContain('devices/');
      expect(text).not.toContain('rejected');
      await row.getByRole('link', { name: 'People on the terminal' }).click();
      await page.getByRole('heading', { level: 1, name: /North gate/ }).waitFor();
      await page.getByRole('region', { name: 'People on the terminal' }).getByRole('button', { name: /Adopt/ }).first().waitFor();
    });
  });

  test('Operations’ recent events say the session’s end the same way', async () => {
    await withPage(async (page) => {
      await goTo(page, '#/operations', 'Operations');
      const row = page.getByRole('region', { name: 'Recent events' }).getByRole('row', { name: /Enrollment ended/ });
      await row.first().waitFor();
      const text = (await row.first().textContent()) ?? '';
      expect(text).toContain(`Status: failed, Person: Gus Hay, North gate already has its own user with PIN ${people.E4!.device_pin}`);
      expect(text).not.toContain('devices/');
    });
  });

  test('a session at a terminal waits for the person there, not for an agent', async () => {
    const east = new SimulatedTerminal({ url: server.url, sn: 'EAST0001' });
    await east.handshake();
    expect((await server.admin.post('/devices/EAST0001/approve/', { areas: ['north'] })).status).toBe(200);
    expect((await server.admin.patch('/devices/EAST0001/', { name: 'East gate' })).status).toBe(200);
    expect((await server.admin.post(`/enrollees/${people.E5!.id}/remote-enrollment/`, { device: 'EAST0001', fingers: [6] })).status).toBe(201);
    await withPage(async (page) => {
      await goTo(page, `#/people/${people.E5!.id}`, /Ida Moe/);
      const sessions = page.getByRole('region', { name: 'Enrollment sessions' });
      await sessions.getByText('Waiting for the person at East gate').waitFor();
      expect(await sessions.getByText('Waiting for the agent').count()).toBe(0);
    });
  });

  test('a palm session names the palms, not two fingers', async () => {
    const palmReader = await terminal('PALM0001', 'Palm door', ['north'], { biodata: true, kinds: { palm: '12.0' } });
    expect(palmReader).toBeDefined();
    const started = await server.admin.post(`/enrollees/${people.E4!.id}/remote-enrollment/`, { device: 'PALM0001', type: 'palm', fingers: [0, 1] });
    expect(started.status).toBe(201);
    await withPage(async (page) => {
      await goTo(page, `#/people/${people.E4!.id}`, /Gus Hay/);
      const sessions = page.getByRole('region', { name: 'Enrollment sessions' });
      await sessions.getByText('0 of 2: Left palm, Right palm').waitFor();
      expect(await sessions.getByText(/Left little/).count()).toBe(0);
    });
  });

  test('the consent history shows the consent given, its withdrawal and the consent given again', async () => {
    const jo = await person('E6', 'Jo Lind', ['north']);
    expect((await server.admin.post(`/enrollees/${jo.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    expect((await server.admin.delete(`/enrollees/${jo.id}/consent/`)).status).toBe(200);
    expect((await server.admin.post(`/enrollees/${jo.id}/consent/`, { version: 'v2', method: 'signed form' })).status).toBe(201);
    await withPage(async (page) => {
      await goTo(page, `#/people/${jo.id}`, /Jo Lind/);
      const history = page.getByRole('region', { name: 'Consent history' });
      const rows = history.getByRole('row');
      await rows.nth(2).waitFor();
      const texts = await rows.allTextContents();
      expect(texts).toHaveLength(3);
      expect(texts[1]).toContain('v1');
      expect(texts[1]).toContain('paper');
      expect(texts[1]).toMatch(/Withdrawn on .+ by admin@example\.com; 0 biometric templates destroyed/);
      expect(texts[2]).toContain('v2');
      expect(texts[2]).toContain('signed form');
      expect(texts[2]).toContain('Current');
      // The Consent section still shows the current one only.
      expect(await page.getByRole('region', { name: 'Consent', exact: true }).getByText('v1', { exact: true }).count()).toBe(0);
    });
  });

  test('the People list tells a withdrawn consent from one never asked: Withdrawn, with when, by whom and what was destroyed', async () => {
    const frieda = await person('E7', 'Frieda Korn', ['north']);
    await person('E8', 'Nils Never-Asked', ['north']);
    expect((await server.admin.post(`/enrollees/${frieda.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    await server.fpa.service.storeTemplate(frieda.id, 6, new Uint8Array(Buffer.from(syntheticTemplate(160), 'base64')), { algorithmVersion: '10', by: 'test' });
    await withPage(async (page) => {
      // Frieda › Withdraw consent, as the owner does it.
      await goTo(page, `#/people/${frieda.id}`, /Frieda Korn/);
      await page.getByRole('button', { name: 'Withdraw consent' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Withdraw' }).click();
      await page.getByText('1 biometric template destroyed on the server', { exact: false }).waitFor();

      await goTo(page, '#/people', 'People');
      const list = page.getByRole('region', { name: 'People' });
      const row = (name: string) => list.getByRole('row', { name: new RegExp(name) });
      await row('Frieda Korn').waitFor();
      const withdrawn = row('Frieda Korn').getByText('Withdrawn', { exact: true });
      expect(await withdrawn.getAttribute('title')).toMatch(/^Withdrawn on .+ by hr\.officer@example\.com; 1 biometric template destroyed$/);
      // Said to a screen reader too, not on hover only.
      expect(await row('Frieda Korn').textContent()).toMatch(/Withdrawn on .+ by hr\.officer@example\.com; 1 biometric template destroyed/);
      expect(await row('Frieda Korn').getByText('Not recorded').count()).toBe(0);
      // Someone never asked still reads so.
      expect(await row('Nils Never-Asked').getByText('Not recorded', { exact: true }).count()).toBe(1);
    });
  });

  test('a visit asks for no proof of deletion the person does not have: no error in the browser, no refusal in the server’s log', async () => {
    const anna = people.E1!;
    expect((await server.admin.get(`/enrollees/${anna.id}/`)).body.has_deletion_proof).toBe(false);
    await withPage(async (page) => {
      const consoleErrors: string[] = [];
      const asked: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      page.on('request', (request) => {
        if (request.url().includes('deletion-proof')) asked.push(request.url());
      });
      const refusedBefore = refusals.length;
      await goTo(page, `#/people/${anna.id}`, /Anna Berg/);
      await page.getByRole('region', { name: 'Enrollment sessions' }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(consoleErrors).toEqual([]);
      expect(asked).toEqual([]);
      expect(refusals.slice(refusedBefore)).toEqual([]);
      // Once their consent is withdrawn, a proof is kept: the page shows it.
      expect((await server.admin.post(`/enrollees/${anna.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
      expect((await server.admin.delete(`/enrollees/${anna.id}/consent/`)).status).toBe(200);
      expect((await server.admin.get(`/enrollees/${anna.id}/`)).body.has_deletion_proof).toBe(true);
      await page.reload();
      await page.getByRole('heading', { level: 1, name: /Anna Berg/ }).waitFor();
      await page.getByRole('region', { name: 'Proof of deletion' }).waitFor();
      expect(consoleErrors).toEqual([]);
    });
  });
});
