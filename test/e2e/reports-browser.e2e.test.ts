/**
 * The Reports section of the console in a real browser, over a seeded month
 * (test/support/report-month.ts): each report's page, its filters (a date or a period, an area
 * from the picker, a person found by name), and a download of each report in each format,
 * caught by Playwright's download event and read back (CSV parsed, Excel opened with exceljs,
 * the PDF's text extracted). The timesheet PDF's first page is drawn as a PNG (the README's
 * picture); screenshots go to /tmp/shots-reports (or FPA_SCREENSHOTS).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import type { Browser, Page } from 'playwright-core';
import { extractText, getDocumentProxy } from 'unpdf';
import { parseCsv } from '../../src/platform/csv';
import { consoleContext, launchBrowser, signInByLink, watchErrors } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';
import { pdfPageImage } from '../support/pdf-image';
import { COMPANY, FROM, seedMonth, TO, WORKED, ZONE } from '../support/report-month';

const clock = { now: Date.parse('2026-01-30T12:00:00Z') };
let server: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];
const shots = process.env.FPA_SCREENSHOTS ?? '/tmp/shots-reports';
mkdirSync(shots, { recursive: true });

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ TIME_ZONE: ZONE, COMPANY_NAME: COMPANY }, { clock: { now: () => clock.now } }), launchBrowser()]);
  await seedMonth(server, clock);
  // The browser keeps real time: the session's cookie must not be born expired.
  clock.now = Date.now();
  const context = await consoleContext(browser, { viewport: { width: 1100, height: 800 }, acceptDownloads: true });
  page = await context.newPage();
  watchErrors(page, errors);
  await signInByLink(page, server, 'hr.officer@example.com');
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(tab: string): Promise<void> {
  // Each report's page is opened afresh, from another page: a tab's link to the address already
  // shown would draw nothing anew, and the Reports link draws the first report, which a tab's
  // click then draws again (a field filled in between would be thrown away).
  const tabs = page.getByRole('navigation', { name: 'Reports' });
  if (await tabs.isVisible()) {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Today' }).click();
    await tabs.waitFor({ state: 'detached' });
  }
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).click();
  await tabs.waitFor();
  await page.evaluate(() => {
    for (const e of Array.from(document.querySelectorAll('h2'))) e.setAttribute('data-old', '');
  });
  await tabs.getByRole('link', { name: tab }).click();
  await page.locator('h2:not([data-old])', { hasText: `${tab} report` }).waitFor();
}

async function period(from = FROM, to = TO): Promise<void> {
  await page.getByLabel('From').fill(from);
  await page.getByLabel('To', { exact: true }).fill(to);
}

/**
 * Clicks a download button; the file as the browser saved it, and its suggested name. Once the
 * page says the file is on its way, as a person waits for it before the next click (the buttons
 * wait while a file is prepared).
 */
async function download(label: 'CSV' | 'Excel' | 'PDF'): Promise<{ name: string; bytes: Uint8Array }> {
  const event = page.waitForEvent('download');
  await page.getByRole('button', { name: `Download ${label}` }).click();
  const file = await event;
  await page
    .locator('#report-status')
    .filter({ hasText: `Downloading ${file.suggestedFilename()}` })
    .waitFor();
  return { name: file.suggestedFilename(), bytes: new Uint8Array(readFileSync((await file.path())!)) };
}

const csvRows = (bytes: Uint8Array) => {
  const [header, ...rows] = parseCsv(new TextDecoder().decode(bytes)).map((r) => ('fields' in r ? r.fields : []));
  return rows.map((fields) => Object.fromEntries(header!.map((h, i) => [h, fields[i] ?? ''])));
};
async function book(bytes: Uint8Array): Promise<ExcelJS.Workbook> {
  const b = new ExcelJS.Workbook();
  await b.xlsx.load(bytes.buffer as ArrayBuffer);
  return b;
}
async function pdfText(bytes: Uint8Array): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(bytes.slice()), { mergePages: true });
  return text as string;
}

describe('Reports in the console', () => {
  test('daily: a date and an area, in each format', async () => {
    await open('Daily');
    await page.getByLabel('Date').fill('2026-02-03');
    await page.getByLabel('Area').selectOption('plant');
    await page.screenshot({ path: join(shots, 'reports-daily.png'), fullPage: true });
    const csv = await download('CSV');
    expect(csv.name).toBe('daily-2026-02-03-plant.csv');
    expect(csvRows(csv.bytes).map((r) => [r.employee, r.status, r.flags])).toEqual([
      ['D1', 'present', 'late'],
      ['E1', 'present', ''],
      ['F1', 'present', ''],
      ['O1', 'present', ''],
    ]);
    const xlsx = await download('Excel');
    expect(xlsx.name).toBe('daily-2026-02-03-plant.xlsx');
    const sheet = (await book(xlsx.bytes)).worksheets[0]!;
    expect(sheet.getCell('F2').type).toBe(ExcelJS.ValueType.Date);
    expect(sheet.getCell('B2').value).toBe('Dana Fischer');
    const pdf = await download('PDF');
    expect(pdf.name).toBe('daily-2026-02-03-plant.pdf');
    const text = await pdfText(pdf.bytes);
    for (const expected of [COMPANY, 'Daily attendance', 'Period: 2026-02-03', 'Area: plant', 'Dana Fischer', '08:20', 'Page 1 of 1'])
      expect(text).toContain(expected);
    expect(text).not.toContain('Berta Schulz');
  });

  test('timesheet: a person found by part of the name; the PDF with signature lines, drawn for the README', async () => {
    await open('Timesheet');
    await period();
    // Part of a name is enough when it names one person.
    await page.getByLabel('Person').fill('fisch');
    await page.screenshot({ path: join(shots, 'reports-timesheet.png'), fullPage: true });
    const csv = await download('CSV');
    expect(csv.name).toBe(`timesheet-${FROM}-${TO}-D1.csv`);
    expect(csvRows(csv.bytes)).toHaveLength(28);
    const xlsx = await download('Excel');
    expect((await book(xlsx.bytes)).worksheets.map((s) => s.name)).toEqual(['Dana Fischer (D1)']);
    const pdf = await download('PDF');
    expect(pdf.name).toBe(`timesheet-${FROM}-${TO}-D1.pdf`);
    const text = await pdfText(pdf.bytes);
    for (const expected of [
      COMPANY,
      'Timesheet',
      `Period: ${FROM} to ${TO}`,
      '08:20 16:31',
      '160:38',
      'Employee: Dana Fischer (D1)',
      'Employer',
      'Page 1 of 1',
    ])
      expect(text).toContain(expected);
    expect(WORKED.D1).toBe(160 * 3600 + 38 * 60);
    writeFileSync(join(shots, 'timesheet.pdf'), pdf.bytes);
    writeFileSync(join(shots, 'timesheet-pdf.png'), await pdfPageImage(browser, pdf.bytes, { scale: 1.5 }));
  });

  test('timesheet: a name nobody has, or many have, is refused beside the field', async () => {
    await page.getByLabel('Person').fill('Nobody Here');
    await page.getByRole('button', { name: 'Download PDF' }).click();
    await page.getByRole('alert').filter({ hasText: 'No one by that name' }).waitFor();
    await page.getByLabel('Person').fill('er');
    await page.getByRole('button', { name: 'Download PDF' }).click();
    const beside = page.locator('.field', { has: page.getByLabel('Person') }).getByRole('alert');
    await beside.filter({ hasText: 'people match “er”: pick one from the list' }).waitFor();
    expect(await page.getByLabel('Person').getAttribute('aria-invalid')).toBe('true');
    await page.screenshot({ path: join(shots, 'reports-timesheet-refused.png'), fullPage: true });
  });

  test('summary: the period of an area', async () => {
    await open('Summary');
    await page.getByRole('button', { name: 'This month' }).click();
    const thisMonth = await page.getByLabel('From').inputValue();
    expect(thisMonth).toMatch(/^\d{4}-\d{2}-01$/);
    await page.getByRole('button', { name: 'Last month' }).click();
    const [lastFrom, lastTo] = [await page.getByLabel('From').inputValue(), await page.getByLabel('To', { exact: true }).inputValue()];
    expect(lastFrom).toMatch(/^\d{4}-\d{2}-01$/);
    expect(lastFrom < thisMonth && lastTo < thisMonth && lastTo.slice(0, 7) === lastFrom.slice(0, 7)).toBe(true);
    await period();
    await page.getByLabel('Area').selectOption('branch');
    const csv = await download('CSV');
    expect(csv.name).toBe(`summary-${FROM}-${TO}-branch.csv`);
    expect(csvRows(csv.bytes).map((r) => [r.employee, r.days_present])).toEqual([['B1', '20']]);
    const rows = (await book((await download('Excel')).bytes)).worksheets[0]!;
    expect(rows.getCell('A3').value).toBe('Total');
    expect(rows.getCell('N2').value).toBeCloseTo(WORKED.B1! / 3600, 6);
    const text = await pdfText((await download('PDF')).bytes);
    for (const expected of [COMPANY, 'Attendance summary', 'Area: branch', 'Berta Schulz', '161:00']) expect(text).toContain(expected);
    // Before a download, the same report on screen: its rows as the PDF prints them, and its totals.
    await page.getByRole('button', { name: 'Preview' }).click();
    const shown = page.locator('#report-preview');
    await shown.getByRole('cell', { name: 'Berta Schulz' }).waitFor();
    await shown.getByText('The whole report: 1 row.', { exact: false }).waitFor();
    await shown.getByRole('cell', { name: '1 person' }).waitFor();
    expect(await shown.getByRole('cell', { name: '161:00' }).count()).toBeGreaterThan(0);
    // The totals in the table's foot, "Total" its row's header.
    await shown.locator('tfoot').getByRole('rowheader', { name: 'Total' }).waitFor();
    // Every column on the page at 1,100 px, the last (early leave) too: none scrolled out of sight.
    const fits = await shown.locator('table').evaluate((t) => t.scrollWidth <= (t.parentElement?.clientWidth ?? 0));
    expect(fits).toBe(true);
    await page.screenshot({ path: join(shots, 'reports-summary.png'), fullPage: true });
    await period('2025-01-01', TO);
    await page.getByRole('button', { name: 'Download CSV' }).click();
    await page
      .locator('.field', { has: page.getByLabel('To', { exact: true }) })
      .getByRole('alert')
      .filter({ hasText: 'at most 366 days' })
      .waitFor();
  });

  test('exceptions: the kinds chosen', async () => {
    await open('Exceptions');
    await period();
    await page.getByLabel('Overtime').uncheck();
    await page.getByLabel('Late').uncheck();
    await page.screenshot({ path: join(shots, 'reports-exceptions.png'), fullPage: true });
    const csv = await download('CSV');
    expect(csv.name).toBe(`exceptions-${FROM}-${TO}-early_leave_absent_missing_punch_unconfirmed_terminal_clock_ahead_dst_overlap_clock_reset.csv`);
    expect(csvRows(csv.bytes).map((r) => [r.employee, r.kind])).toEqual([
      ['E1', 'early_leave'],
      ['F1', 'missing_punch'],
      ['F1', 'absent'],
    ]);
    const sheet = (await book((await download('Excel')).bytes)).worksheets[0]!;
    expect(sheet.getColumn(4).values.slice(2)).toEqual(['left early', 'missing punch', 'absent']);
    const text = await pdfText((await download('PDF')).bytes);
    for (const expected of [COMPANY, 'Attendance exceptions', 'Emil Weber', 'left early', '1:30', 'Frieda Koch', 'absent']) expect(text).toContain(expected);
    expect(text).not.toContain('Otto Wagner');
  });

  test('a download says “Preparing the file…” while the server builds it, and the browser saves the file itself, never read into the page', async () => {
    await open('Summary');
    await period();
    // What the page asks for itself (fetch, XHR) is held in the tab; a frame's navigation goes to the disk.
    const readByThePage: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/reports/summary.') && request.resourceType() !== 'document') readByThePage.push(request.resourceType());
    });
    // The server's answer held back a moment, as a large report's build holds it.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/reports/summary.pdf*', async (route) => {
      await held;
      await route.continue();
    });
    const saved = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download PDF' }).click();
    const status = page.getByRole('status').filter({ hasText: 'Preparing the file…' });
    await status.waitFor();
    // One file at a time: the other buttons wait meanwhile.
    expect(await page.getByRole('button', { name: 'Download Excel' }).getAttribute('aria-disabled')).toBe('true');
    await page.screenshot({ path: join(shots, 'reports-preparing.png'), fullPage: true });
    release();
    const file = await saved;
    expect(file.suggestedFilename()).toBe(`summary-${FROM}-${TO}.pdf`);
    expect(await pdfText(new Uint8Array(readFileSync((await file.path())!)))).toContain('Attendance summary');
    await page
      .locator('#report-status')
      .filter({ hasText: `Downloading summary-${FROM}-${TO}.pdf` })
      .waitFor();
    expect(await page.getByRole('button', { name: 'Download Excel' }).getAttribute('aria-disabled')).toBeNull();
    await page.unroute('**/reports/summary.pdf*');
    const csv = await download('CSV');
    expect(csv.name).toBe(`summary-${FROM}-${TO}.csv`);
    expect(readByThePage).toEqual([]);
  });

  test('a download begun on another tab while a file is still prepared is said on its way, not left “Preparing the file…”', async () => {
    // Two PDFs held back, each left for another tab before it came: their pages wait no more.
    const held: Array<() => void> = [];
    await page.route('**/reports/*.pdf*', async (route) => {
      await new Promise<void>((resolve) => held.push(resolve));
      await route.continue().catch(() => undefined); // its frame is gone: the request was cancelled
    });
    for (const tab of ['Summary', 'Exceptions']) {
      await open(tab);
      await period();
      await page.getByRole('button', { name: 'Download PDF' }).click();
      await page.getByRole('status').filter({ hasText: 'Preparing the file…' }).waitFor();
    }
    await open('Daily');
    await page.getByLabel('Date').fill('2026-02-03');
    const csv = await download('CSV');
    expect(csv.name).toBe('daily-2026-02-03.csv');
    expect(await page.getByRole('button', { name: 'Download PDF' }).getAttribute('aria-disabled')).toBeNull();
    for (const release of held) release();
    await page.unroute('**/reports/*.pdf*');
  });

  test('a refusal is said beside the buttons, not saved as a file (an area deleted since the page was opened)', async () => {
    expect((await server.admin.post('/areas/', { name: 'closed' })).status).toBe(201);
    await open('Summary');
    await period();
    await page.getByLabel('Area').selectOption('closed');
    expect((await server.admin.delete('/areas/closed/')).status).toBe(204);
    let saved = false;
    const onDownload = () => {
      saved = true;
    };
    page.on('download', onDownload);
    await page.getByRole('button', { name: 'Download PDF' }).click();
    await page.locator('#report-problem').filter({ hasText: 'That person or area does not exist, or is outside the areas you may see.' }).waitFor();
    expect(await page.locator('#report-status').textContent()).toBe('');
    expect(await page.getByRole('button', { name: 'Download PDF' }).getAttribute('aria-disabled')).toBeNull();
    page.off('download', onDownload);
    expect(saved).toBe(false);
  });

  test('no script errors', () => {
    expect(errors).toEqual([]);
  });
});
