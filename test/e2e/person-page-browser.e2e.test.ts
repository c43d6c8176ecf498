/**
 * A person's page in a real browser against the real server: a visit asks for no proof of
 * deletion the person does not have (it was a 404 in the browser's console and a refusal in the
 * server's log at every visit); once one is kept, the page shows it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import type { Logger } from '../../src/platform/log';
import { goTo, launchBrowser, signedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

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

interface Person {
  id: string;
  device_pin: string;
}
const people: Record<string, Person> = {};

async function person(employee: string, name: string, areas: string[]): Promise<Person> {
  expect((await server.admin.post('/employees/', { id: employee, name })).status).toBe(201);
  const created = await server.admin.post('/enrollees/', { employee, areas });
  expect(created.status).toBe(201);
  people[employee] = created.body as Person;
  return created.body as Person;
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({}, { logger }), launchBrowser()]);
  await person('E1', 'Anna Berg', ['north']);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  expect(errors).toEqual([]);
});

async function withPage(work: (page: Page) => Promise<void>): Promise<void> {
  const page = await signedInPage(browser, server, errors);
  try {
    await work(page);
  } finally {
    await page.context().close();
  }
}

describe('a person’s page', () => {
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
