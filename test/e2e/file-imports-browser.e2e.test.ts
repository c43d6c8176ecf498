/**
 * The console's file imports and exports in a real browser, with the files HR's spreadsheets
 * write: a CSV Excel saved in the Windows code page (its accented letters kept, and said so), one
 * German Excel saved (columns separated by semicolons), an
 * empty file (the import's own words), a file larger than the server takes (refused before it is
 * sent, the limit in words; the server's own refusal is its error body, not a bare 413), and a
 * CSV downloaded for Excel (with the byte-order mark it needs to read UTF-8).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { goTo, launchBrowser, signedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];
/** Files too large to hand over as buffers quickly. */
const dir = mkdtempSync(join(tmpdir(), 'fpa-files-'));

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  page = await signedInPage(browser, server, errors, { context: { acceptDownloads: true } });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function go(hash: string, heading: string | RegExp): Promise<void> {
  return goTo(page, hash, heading);
}

/** Text as Windows-1252 bytes (Excel's "CSV (Comma delimited)" on a Western European Windows): Latin-1 letters are one byte each. */
function windows1252(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}

/** Chooses a file (its content, or a path on disk) and checks it. */
async function choose(name: string, buffer?: Buffer): Promise<void> {
  await page.getByLabel('CSV file').setInputFiles(buffer ? { name, mimeType: 'text/csv', buffer } : name);
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

  test('a people file German Excel saved (semicolons, Windows-1252) is checked and imported as it is', async () => {
    await go('#/people/import', 'Import people');
    // "CSV (Trennzeichen-getrennt)": the header the tester's file had, refused before as one unknown column.
    await choose('mitarbeiter.csv', windows1252('id;name;areas;card\r\nS07;Greta Hoffmann-Bäcker;;\r\nS08;"Müller, Jörg";;0042\r\n'));
    await page.getByText('2 people would be added', { exact: false }).waitFor();
    await page.getByRole('cell', { name: 'Müller, Jörg', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('status').getByText('2 people were added', { exact: false }).first().waitFor();
    expect((await server.admin.get('/enrollees/?employee=S08')).body.results[0]).toMatchObject({ display_name: 'Müller, Jörg', card: '42' });
  });

  test('a CSV downloaded from the console starts with the byte-order mark Excel on Windows needs; the API’s does not', async () => {
    const BOM = [0xef, 0xbb, 0xbf];
    const downloaded = async (click: () => Promise<void>) => {
      const event = page.waitForEvent('download');
      await click();
      return new Uint8Array(readFileSync((await (await event).path())!));
    };
    await go('#/attendance', 'Attendance');
    const attendance = await downloaded(() => page.getByRole('link', { name: 'Download CSV' }).click());
    expect([...attendance.slice(0, 3)]).toEqual(BOM);
    await go('#/reports/daily', 'Reports');
    const daily = await downloaded(() => page.getByRole('button', { name: 'Download CSV' }).click());
    expect([...daily.slice(0, 3)]).toEqual(BOM);
    expect(new TextDecoder().decode(daily)).toContain('José Muñoz');
    const plain = new Uint8Array(await (await fetch(`${server.admin.base}/reports/daily.csv`, { headers: server.admin.headers })).arrayBuffer());
    expect([...plain.slice(0, 3)]).not.toEqual(BOM);
    expect(errors).toEqual([]);
  });

  test('a file larger than the server takes is refused before it is sent, with the limit in words', async () => {
    let posted = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/import/')) posted++;
    });
    await go('#/people/import', 'Import people');
    await page.getByText('At most 1 MB.', { exact: false }).waitFor();
    writeFileSync(join(dir, 'big.csv'), `id,name,areas,card\n${'W-9,Someone,,\n'.repeat(200_000)}`);
    await choose(join(dir, 'big.csv'));
    await page.getByText('This file is 2.7 MB: the largest that can be imported here is 1 MB. Split it into smaller files and import each.').waitFor();
    // Windows-1252 under 1 MB as a file, over it as the UTF-8 text that would be sent: refused too.
    const latin = `id,name,areas,card\n${'W-8,Éléonore Müller-Lévêque,,\n'.repeat(30_000)}`;
    writeFileSync(join(dir, 'accents.csv'), Buffer.from(latin, 'latin1'));
    expect(Buffer.byteLength(latin, 'latin1')).toBeLessThan(1_048_576);
    await go('#/people', 'People');
    await go('#/people/import', 'Import people');
    await choose(join(dir, 'accents.csv'));
    await page.getByText('the largest that can be imported here is 1 MB', { exact: false }).waitFor();
    await go('#/punches/import', 'Import punches');
    // Its example says where a bare time is read: the person's zone (an area's own, else the attendance zone).
    await page.getByText('a time without its offset is read in the person’s time zone: their area’s, else', { exact: false }).waitFor();
    await choose(join(dir, 'big.csv'));
    await page.getByText('the largest that can be imported here is 1 MB', { exact: false }).waitFor();
    // A terminal's USB file: up to 10 MB.
    const terminal = new SimulatedTerminal({ url: server.url, sn: 'USBBIG01' });
    await terminal.handshake();
    expect((await server.admin.post('/devices/USBBIG01/approve/', { areas: ['default'] })).status).toBe(200);
    await go('#/terminals/USBBIG01', /USBBIG01/);
    const usb = page.getByRole('region', { name: 'Punches from a USB stick' });
    await usb.getByText('At most 10 MB.', { exact: false }).waitFor();
    // From a file on disk: Playwright hands the browser its path (a buffer this size is slow to pass).
    writeFileSync(join(dir, '1_attlog.dat'), Buffer.alloc(11 * 1024 * 1024, 0x20));
    await usb.getByLabel('Attendance file').setInputFiles(join(dir, '1_attlog.dat'));
    await usb.getByRole('button', { name: 'Check the file' }).click();
    await usb.getByText('This file is 11 MB: the largest that can be imported here is 10 MB.', { exact: false }).waitFor();
    expect(posted).toBe(0);
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
