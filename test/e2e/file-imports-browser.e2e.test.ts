/**
 * The console's file imports and exports in a real browser, with the files HR's spreadsheets
 * write: a CSV Excel saved in the Windows code page (its accented letters kept, and said so), an
 * empty file (the import's own words).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  page = await signedInPage(browser, server, errors);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function go(hash: string, heading: string | RegExp): Promise<void> {
  await page.evaluate((h) => {
    location.hash = h;
  }, hash);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** Text as Windows-1252 bytes (Excel's "CSV (Comma delimited)" on a Western European Windows): Latin-1 letters are one byte each. */
function windows1252(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}

async function choose(name: string, buffer: Buffer): Promise<void> {
  await page.getByLabel('CSV file').setInputFiles({ name, mimeType: 'text/csv', buffer });
  await page.getByRole('button', { name: 'Check the file' }).click();
}

describe('Files in the console', () => {
  test('a people file Excel saved as Windows-1252 keeps its accents, and the check says how it was read', async () => {
    await go('#/people/import', 'Import people');
    await choose('people.csv', windows1252('id,name,areas,card\r\nW-01,José Muñoz,,\r\nW-02,François Lévy,,\r\n'));
    await page.getByText('2 people would be added', { exact: false }).waitFor();
    await page.getByText('it was read as Windows-1252', { exact: false }).waitFor();
    await page.getByRole('cell', { name: 'José Muñoz', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('status').getByText('2 people were added', { exact: false }).first().waitFor();
    const names = await Promise.all(['W-01', 'W-02'].map(async (id) => (await server.admin.get(`/enrollees/?employee=${id}`)).body.results[0].display_name));
    expect(names).toEqual(['José Muñoz', 'François Lévy']);
    // The same names in UTF-8: read as they are, with nothing to say.
    await choose('people-utf8.csv', Buffer.from('id,name,areas,card\nW-01,José Muñoz,,\n'));
    await page.getByText('0 people would be added, 0 people would be changed, 1 line already up to date', { exact: false }).waitFor();
    expect(await page.getByText('Windows-1252', { exact: false }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  test('an empty file is answered in the import’s words', async () => {
    await go('#/people/import', 'Import people');
    await choose('empty.csv', Buffer.alloc(0));
    await page.getByRole('cell', { name: 'The file is empty: a header row `id,name,areas,card` is needed.' }).waitFor();
    await go('#/punches/import', 'Import punches');
    await choose('empty.csv', Buffer.alloc(0));
    await page.getByRole('cell', { name: 'The file is empty: a header row `employee,at,state` is needed.' }).waitFor();
    expect(await page.getByText('This value is not accepted.').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
