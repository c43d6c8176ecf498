/**
 * The reports of issue 26 through the real server: a seeded month (test/support/report-month.ts)
 * uploaded by simulated terminals, then every report downloaded in every format and read back:
 * the CSV parsed, the Excel workbook opened with exceljs (cell types and values), the PDF's text
 * extracted with unpdf (company name, period, page numbers, figures, signature lines). Also: the
 * caller's areas, the errors, the file names, and the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import ExcelJS from 'exceljs';
import { SignJWT } from 'jose';
import { extractText, getDocumentProxy } from 'unpdf';
import { parseCsv } from '../../src/platform/csv';
import { JWT_SECRET, startTestServer, type TestServer } from '../support/harness';
import { COMPANY, FROM, NORMAL, PEOPLE, seedMonth, TO, WORKDAYS, WORKED, ZONE } from '../support/report-month';

const API = '/api/fingerprint/v1';
const clock = { now: Date.parse('2026-01-30T12:00:00Z') };
let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE, COMPANY_NAME: COMPANY }, { clock: { now: () => clock.now } });
  token = (server.admin.headers.authorization ?? '').replace('Bearer ', '');
  await seedMonth(server, clock);
});
afterAll(async () => {
  await server.close();
});

async function download(path: string, bearer = token) {
  const res = await fetch(`${server.url}${API}${path}`, { headers: { authorization: `Bearer ${bearer}` } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), bytes };
}

function csvOf(bytes: Uint8Array): Record<string, string>[] {
  const records = parseCsv(new TextDecoder().decode(bytes)).map((r) => ('fields' in r ? r.fields : []));
  const [header, ...rows] = records;
  return rows.map((fields) => Object.fromEntries(header!.map((h, i) => [h, fields[i] ?? ''])));
}

async function workbookOf(bytes: Uint8Array): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(bytes.buffer as ArrayBuffer);
  return book;
}

/** A sheet's rows as objects by header label (row 1). */
function sheetRows(sheet: ExcelJS.Worksheet): Record<string, ExcelJS.Cell>[] {
  const labels = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
  const out: Record<string, ExcelJS.Cell>[] = [];
  for (let r = 2; r <= sheet.rowCount; r++) {
    const row = sheet.getRow(r);
    out.push(Object.fromEntries(labels.map((label, i) => [label, row.getCell(i + 1)])));
  }
  return out;
}

async function pdfPages(bytes: Uint8Array): Promise<string[]> {
  // pdf.js takes the buffer over: a copy keeps the caller's.
  const doc = await getDocumentProxy(bytes.slice());
  const { text } = await extractText(doc, { mergePages: false });
  return text as string[];
}

const hours = (seconds: number) => (seconds / 3600).toFixed(2);
const hm = (seconds: number) => `${Math.floor(seconds / 3600)}:${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}`;

describe('daily report', () => {
  test('CSV: everyone’s day, late and early leave, by name', async () => {
    const res = await download('/reports/daily.csv?date=2026-02-03');
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/csv; charset=utf-8');
    expect(res.disposition).toBe('attachment; filename="daily-2026-02-03.csv"');
    const rows = csvOf(res.bytes);
    expect(rows.map((r) => r.name)).toEqual(['Berta Schulz', 'Dana Fischer', 'Emil Weber', 'Frieda Koch', 'Otto Wagner']);
    const dana = rows.find((r) => r.employee === 'D1')!;
    expect(dana).toMatchObject({
      areas: 'plant',
      schedule: 'day',
      status: 'present',
      first_in: '2026-02-03 08:20:00',
      last_out: '2026-02-03 16:31:00',
      worked_hours: hours(7 * 3600 + 41 * 60),
      expected_hours: '8.00',
      late_hours: hours(20 * 60),
      early_leave_hours: '0.00',
      punches: '2',
      flags: 'late',
    });
    const early = csvOf((await download('/reports/daily.csv?date=2026-02-05&area=plant')).bytes);
    expect(early.map((r) => r.employee)).toEqual(['D1', 'E1', 'F1', 'O1']);
    expect(early.find((r) => r.employee === 'E1')).toMatchObject({ early_leave_hours: '1.50', flags: 'early_leave', last_out: '2026-02-05 15:00:00' });
  });

  test('CSV: no byte-order mark unless asked (`?bom=true`, what the console asks for Excel on Windows)', async () => {
    const BOM = [0xef, 0xbb, 0xbf];
    const plain = await download('/reports/daily.csv?date=2026-02-03');
    expect([...plain.bytes.slice(0, 3)]).not.toEqual(BOM);
    const marked = await download('/reports/daily.csv?date=2026-02-03&bom=true');
    expect(marked.status).toBe(200);
    expect([...marked.bytes.slice(0, 3)]).toEqual(BOM);
    // The same file after the mark.
    expect(marked.bytes.slice(3)).toEqual(plain.bytes);
    const timesheet = await download('/reports/timesheet.csv?from=2026-02-01&to=2026-02-03&employee=D1&bom=true');
    expect([...timesheet.bytes.slice(0, 3)]).toEqual(BOM);
    const exported = await download('/attendance-days/export.csv?from=2026-02-01&to=2026-02-03&bom=true');
    expect(exported.status).toBe(200);
    expect([...exported.bytes.slice(0, 3)]).toEqual(BOM);
    expect([...(await download('/attendance-days/export.csv?from=2026-02-01&to=2026-02-03')).bytes.slice(0, 3)]).not.toEqual(BOM);
  });

  test('today before anyone punched: everyone listed where the Today board puts them, with their schedule and its expected time', async () => {
    const rows = csvOf((await download('/reports/daily.csv')).bytes);
    expect(rows).toHaveLength(PEOPLE.length);
    // 07:00 in Berlin, a Monday: the day shift starts at 08:00; 8:30 less its 30-minute break is expected.
    expect(new Set(rows.map((r) => `${r.status} ${r.schedule} ${r.expected_hours} ${r.worked_hours}`))).toEqual(new Set(['not_due_yet day 8.00 0.00']));
    // The shift is over and nobody came: absent, keeping the expected time, as a stored absence does.
    const morning = clock.now;
    clock.now = Date.parse('2026-03-02T17:00:00Z');
    try {
      const evening = csvOf((await download('/reports/daily.csv')).bytes);
      expect(new Set(evening.map((r) => `${r.status} ${r.expected_hours}`))).toEqual(new Set(['absent 8.00']));
    } finally {
      clock.now = morning;
    }
    // F1's stored absence of the 11th: the same.
    const stored = csvOf((await download('/reports/daily.csv?date=2026-02-11')).bytes).find((r) => r.employee === 'F1');
    expect(stored).toMatchObject({ status: 'absent', schedule: 'day', expected_hours: '8.00', worked_hours: '0.00' });
  });

  test('Excel: typed cells, bold frozen header, widths', async () => {
    const res = await download('/reports/daily.xlsx?date=2026-02-03');
    expect(res.type).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.disposition).toBe('attachment; filename="daily-2026-02-03.xlsx"');
    const book = await workbookOf(res.bytes);
    const sheet = book.worksheets[0]!;
    expect(sheet.headerFooter.oddHeader).toContain(COMPANY.replace('&', '&&'));
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(sheet.getColumn(2).width).toBeGreaterThan(20);
    const dana = sheetRows(sheet).find((r) => r.Employee!.value === 'D1')!;
    expect(dana['First in']!.type).toBe(ExcelJS.ValueType.Date);
    expect((dana['First in']!.value as Date).toISOString()).toBe('2026-02-03T08:20:00.000Z');
    expect(dana['First in']!.numFmt).toBe('yyyy-mm-dd hh:mm');
    expect(dana.Worked!.type).toBe(ExcelJS.ValueType.Number);
    expect(dana.Worked!.value).toBeCloseTo((7 * 3600 + 41 * 60) / 3600, 6);
    expect(dana.Worked!.numFmt).toBe('0.00');
    expect(dana.Late!.value).toBeCloseTo(1 / 3, 6);
    expect(dana.Status!.value).toBe('Present');
    expect(dana.Notes!.value).toBe('late');
  });

  test('PDF: company, title, date, page numbers, figures', async () => {
    const res = await download('/reports/daily.pdf?date=2026-02-03');
    expect(res.type).toBe('application/pdf');
    expect(res.disposition).toBe('attachment; filename="daily-2026-02-03.pdf"');
    const pages = await pdfPages(res.bytes);
    expect(pages).toHaveLength(1);
    const text = pages[0]!;
    for (const expected of [
      COMPANY,
      'Daily attendance',
      'Period: 2026-02-03',
      'All areas',
      'Page 1 of 1',
      'Dana Fischer',
      '08:20',
      '7:41',
      '0:20',
      'Times in Europe/Berlin',
    ])
      expect(text).toContain(expected);
  });
});

describe('timesheet', () => {
  test('CSV: one row per date with every punch', async () => {
    const res = await download(`/reports/timesheet.csv?employee=D1&from=${FROM}&to=${TO}`);
    expect(res.disposition).toBe(`attachment; filename="timesheet-${FROM}-${TO}-D1.csv"`);
    const rows = csvOf(res.bytes);
    expect(rows.map((r) => r.date)).toEqual(Array.from({ length: 28 }, (_, i) => `2026-02-${String(i + 1).padStart(2, '0')}`));
    expect(rows[2]).toMatchObject({ date: '2026-02-03', weekday: 'Tue', status: 'present', punches: '08:20 16:31', flags: 'late' });
    expect(rows[0]).toMatchObject({ date: '2026-02-01', weekday: 'Sun', status: 'non_working_day', punches: '' });
    expect(rows.reduce((n, r) => n + Number(r.worked_hours), 0)).toBeCloseTo(WORKED.D1! / 3600, 1);
  });

  test('Excel: a sheet, dates as dates, a bold totals row', async () => {
    const book = await workbookOf((await download(`/reports/timesheet.xlsx?employee=D1&from=${FROM}&to=${TO}`)).bytes);
    expect(book.worksheets.map((s) => s.name)).toEqual(['Dana Fischer (D1)']);
    const rows = sheetRows(book.worksheets[0]!);
    expect(rows).toHaveLength(29);
    expect(rows[2]!.Date!.type).toBe(ExcelJS.ValueType.Date);
    expect((rows[2]!.Date!.value as Date).toISOString()).toBe('2026-02-03T00:00:00.000Z');
    expect(rows[2]!.Date!.numFmt).toBe('yyyy-mm-dd');
    expect(rows[2]!.Punches!.value).toBe('08:20 16:31');
    const totals = rows[28]!;
    expect(totals.Date!.value).toBe('Total');
    expect(totals.Worked!.font?.bold).toBe(true);
    expect(totals.Worked!.value).toBeCloseTo(WORKED.D1! / 3600, 6);
    expect(totals.Expected!.value).toBeCloseTo(WORKDAYS.length * 8, 6);
    expect(totals.Late!.value).toBeCloseTo(20 / 60, 6);
  });

  test('PDF: A4 with the company, period, every date, totals and signature lines', async () => {
    const res = await download(`/reports/timesheet.pdf?employee=D1&from=${FROM}&to=${TO}`);
    const pages = await pdfPages(res.bytes);
    const text = pages.join('\n');
    for (const expected of [
      COMPANY,
      'Timesheet',
      `Period: ${FROM} to ${TO}`,
      'Dana Fischer (D1)',
      '08:20 16:31',
      'Total',
      hm(WORKED.D1!),
      `${WORKDAYS.length * 8}:00`,
      'Employee: Dana Fischer (D1)',
      'Employer',
      'Signature and date',
    ])
      expect(text).toContain(expected);
    for (const [i, page] of pages.entries()) expect(page).toContain(`Page ${i + 1} of ${pages.length}`);
    const doc = await getDocumentProxy(res.bytes.slice());
    const page = await doc.getPage(1);
    const [, , width, height] = page.view;
    expect([Math.round(width!), Math.round(height!)]).toEqual([595, 842]);
  });

  test('of an area: a sheet and a page per person, the header on every page', async () => {
    const book = await workbookOf((await download(`/reports/timesheet.xlsx?area=plant&from=${FROM}&to=${TO}`)).bytes);
    expect(book.worksheets.map((s) => s.name)).toEqual(['Dana Fischer (D1)', 'Emil Weber (E1)', 'Frieda Koch (F1)', 'Otto Wagner (O1)']);
    const res = await download(`/reports/timesheet.pdf?area=plant&from=${FROM}&to=${TO}`);
    expect(res.disposition).toBe(`attachment; filename="timesheets-${FROM}-${TO}-plant.pdf"`);
    const pages = await pdfPages(res.bytes);
    expect(pages.length).toBeGreaterThanOrEqual(4);
    for (const [i, page] of pages.entries()) {
      expect(page).toContain(COMPANY);
      expect(page).toContain(`Page ${i + 1} of ${pages.length}`);
    }
    for (const p of PEOPLE.filter((p) => p.area === 'plant')) expect(pages.some((page) => page.includes(`Employee: ${p.name} (${p.employee})`))).toBe(true);
    const csv = csvOf((await download(`/reports/timesheet.csv?area=plant&from=${FROM}&to=${TO}`)).bytes);
    expect(csv).toHaveLength(4 * 28);
  });
});

describe('summary', () => {
  test('CSV, Excel and PDF: per person the totals of attendance-summary/', async () => {
    const rows = csvOf((await download(`/reports/summary.csv?from=${FROM}&to=${TO}`)).bytes);
    expect(rows.map((r) => r.employee)).toEqual(['B1', 'D1', 'E1', 'F1', 'O1']);
    const api = await server.admin.get(`/attendance-summary/?from=${FROM}&to=${TO}`);
    for (const s of api.body.results) {
      const row = rows.find((r) => r.employee === s.employee)!;
      expect(row).toMatchObject({ days_present: String(s.days_present), days_absent: String(s.days_absent), worked_hours: hours(s.worked_seconds) });
      expect(s.worked_seconds).toBe(WORKED[s.employee]);
    }
    expect(rows.find((r) => r.employee === 'F1')).toMatchObject({ days_incomplete: '1', days_absent: '1' });
    const book = await workbookOf((await download(`/reports/summary.xlsx?from=${FROM}&to=${TO}&area=plant`)).bytes);
    const sheet = sheetRows(book.worksheets[0]!);
    expect(sheet).toHaveLength(5);
    expect(sheet[4]!.Employee!.value).toBe('Total');
    const plantWorked = ['D1', 'E1', 'F1', 'O1'].reduce((n, e) => n + WORKED[e]!, 0);
    expect(sheet[4]!.Worked!.value).toBeCloseTo(plantWorked / 3600, 6);
    expect(sheet[4]!['Days late']!.value).toBe(1);
    const pages = await pdfPages((await download(`/reports/summary.pdf?from=${FROM}&to=${TO}&area=plant`)).bytes);
    const text = pages.join('\n');
    for (const expected of [COMPANY, 'Attendance summary', `Period: ${FROM} to ${TO}`, 'Area: plant', 'Otto Wagner', hm(plantWorked), 'Page 1 of 1'])
      expect(text).toContain(expected);
    expect(text).not.toContain('Berta Schulz');
  });
});

describe('exceptions', () => {
  test('one row per exception, in every format', async () => {
    const rows = csvOf((await download(`/reports/exceptions.csv?from=${FROM}&to=${TO}`)).bytes);
    expect(rows.map((r) => [r.employee, r.date, r.kind, r.hours])).toEqual([
      ['D1', '2026-02-03', 'late', '0.33'],
      ['E1', '2026-02-05', 'early_leave', '1.50'],
      ['F1', '2026-02-10', 'missing_punch', ''],
      ['F1', '2026-02-11', 'absent', '8.00'],
      ['O1', '2026-02-12', 'overtime', hours(2 * 3600)],
    ]);
    const only = csvOf((await download(`/reports/exceptions.csv?from=${FROM}&to=${TO}&kind=absent,missing_punch`)).bytes);
    expect(only.map((r) => r.kind)).toEqual(['missing_punch', 'absent']);
    const book = await workbookOf((await download(`/reports/exceptions.xlsx?from=${FROM}&to=${TO}`)).bytes);
    const sheet = sheetRows(book.worksheets[0]!);
    expect(sheet.map((r) => r.Exception!.value)).toEqual(['late', 'left early', 'missing punch', 'absent', 'overtime']);
    expect(sheet[4]!.Hours!.value).toBeCloseTo(2, 6);
    expect(sheet[0]!.Date!.type).toBe(ExcelJS.ValueType.Date);
    const pages = await pdfPages((await download(`/reports/exceptions.pdf?from=${FROM}&to=${TO}`)).bytes);
    const text = pages.join('\n');
    for (const expected of [COMPANY, 'Attendance exceptions', 'Otto Wagner', 'overtime', '2:00', 'left early', '1:30', 'Page 1 of 1'])
      expect(text).toContain(expected);
    const branch = csvOf((await download(`/reports/exceptions.csv?from=${FROM}&to=${TO}&area=branch`)).bytes);
    expect(branch).toEqual([]);
  });
});

describe('scope and errors', () => {
  async function limitedTo(areas: string[]) {
    return new SignJWT({ scope: 'fpa:admin', fpa_role: 'hr', fpa_areas: areas })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('hr@example.com')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(JWT_SECRET));
  }

  test('a caller limited to an area sees its people only; a person or area outside is 404', async () => {
    const branchOnly = await limitedTo(['branch']);
    const summary = csvOf((await download(`/reports/summary.csv?from=${FROM}&to=${TO}`, branchOnly)).bytes);
    expect(summary.map((r) => r.employee)).toEqual(['B1']);
    const daily = csvOf((await download('/reports/daily.csv?date=2026-02-03', branchOnly)).bytes);
    expect(daily.map((r) => r.employee)).toEqual(['B1']);
    expect((await download(`/reports/exceptions.csv?from=${FROM}&to=${TO}`, branchOnly)).bytes.length).toBeGreaterThan(0);
    const outside = await download(`/reports/timesheet.pdf?employee=D1&from=${FROM}&to=${TO}`, branchOnly);
    expect(outside.status).toBe(404);
    expect(JSON.parse(new TextDecoder().decode(outside.bytes)).error.code).toBe('not_found');
    expect((await download(`/reports/summary.xlsx?from=${FROM}&to=${TO}&area=plant`, branchOnly)).status).toBe(404);
    const pdf = await pdfPages((await download(`/reports/summary.pdf?from=${FROM}&to=${TO}`, branchOnly)).bytes);
    expect(pdf[0]).toContain('Areas: branch');
  });

  test('bad queries answer the spec’s error body', async () => {
    for (const path of [
      `/reports/summary.csv?from=2026-02-30x&to=${TO}`,
      `/reports/exceptions.csv?from=${FROM}&to=${TO}&kind=late,nap`,
      `/reports/timesheet.pdf?from=${TO}&to=${FROM}&employee=D1`,
      `/reports/summary.csv?from=2025-01-01&to=${TO}`,
      '/reports/daily.csv?date=yesterday',
    ]) {
      const res = await server.admin.get(path);
      expect({ path, status: res.status, code: res.body.error.code }).toEqual({ path, status: 400, code: 'validation_error' });
      expect(typeof res.body.error.request_id).toBe('string');
    }
    expect((await server.admin.get(`/reports/timesheet.csv?employee=NOPE&from=${FROM}&to=${TO}`)).status).toBe(404);
    expect((await server.admin.get(`/reports/daily.csv?area=nowhere`)).status).toBe(404);
    expect((await fetch(`${server.url}${API}/reports/daily.csv`)).status).toBe(401);
  });

  test('a preview: the first rows as the PDF prints them, every sheet until the limit, the totals of a sheet shown whole', async () => {
    const one = await server.admin.get(`/reports/timesheet/preview/?employee=D1&from=${FROM}&to=${TO}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ title: 'Timesheet', period: `${FROM} to ${TO}`, time_zone: ZONE, times_in: ZONE, truncated: false });
    const [sheet] = one.body.sheets;
    expect(sheet.name).toBe('Dana Fischer (D1)');
    expect(sheet.rows).toHaveLength(28);
    const labels = sheet.columns.map((c: { label: string }) => c.label);
    const cell = (row: string[], label: string) => row[labels.indexOf(label)];
    // As printed: the PDF's columns; punches HH:MM, the late time H:MM, codes as words, not seconds or codes.
    expect(labels).toEqual(['Date', 'Day', 'Status', 'Punches', 'Worked', 'Expected', 'Late', 'Early leave', 'Overtime', 'Notes']);
    expect(['Punches', 'Status', 'Late', 'Notes'].map((label) => cell(sheet.rows[2], label))).toEqual(['08:20 16:31', 'Present', '0:20', 'late']);
    expect(cell(sheet.totals, 'Worked')).toBe(hm(WORKED.D1!));
    // The total is the exact sum cut once (as the summary's), and the sheet says so beside its rows cut each.
    expect(one.body.notes).toContain(
      'Each duration is cut to the whole minute; a total adds the exact times, so it can be a minute or more above its rows added up.',
    );
    // An area's month stops at the limit, and says so; its last sheet, cut short, has no totals.
    const area = await server.admin.get(`/reports/timesheet/preview/?area=plant&from=${FROM}&to=${TO}&limit=40`);
    expect(area.body.truncated).toBe(true);
    expect(area.body.sheets.map((s: { rows: unknown[] }) => s.rows.length)).toEqual([28, 12]);
    expect(area.body.sheets[1].totals).toBeNull();
    // Every report has one, with the same filters and the same scope.
    const daily = await server.admin.get('/reports/daily/preview/?date=2026-02-03');
    expect(daily.body.sheets[0].rows.length).toBe(PEOPLE.length);
    const summary = await server.admin.get(`/reports/summary/preview/?from=${FROM}&to=${TO}`);
    expect(summary.status).toBe(200);
    // Its totals add the rows' whole minutes: they add up, and the note says so (not the timesheet's).
    expect(summary.body.notes).toContain('Each duration is cut to the whole minute; a total is the sum of its rows.');
    expect((await server.admin.get(`/reports/exceptions/preview/?from=${FROM}&to=${TO}&kind=late`)).body.sheets[0].rows.length).toBeGreaterThan(0);
    const branchOnly = await limitedTo(['branch']);
    const branch = await fetch(`${server.url}${API}/reports/daily/preview/?date=2026-02-03`, { headers: { authorization: `Bearer ${branchOnly}` } });
    expect(((await branch.json()) as { sheets: { rows: string[][] }[] }).sheets[0]!.rows.map((r) => r.join(' '))).toEqual([expect.stringContaining('B1')]);
    expect((await server.admin.get(`/reports/timesheet/preview/?employee=NOPE&from=${FROM}&to=${TO}`)).status).toBe(404);
    expect((await server.admin.get(`/reports/summary/preview/?from=${FROM}&to=${TO}&limit=0`)).status).toBe(400);
  });

  test('the OpenAPI document names each report with its content type', async () => {
    const doc = (await server.admin.get('/docs/json')).body;
    for (const report of ['daily', 'timesheet', 'summary', 'exceptions']) {
      for (const [format, type] of [
        ['csv', 'text/csv'],
        ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
        ['pdf', 'application/pdf'],
      ] as const) {
        const op = doc.paths[`${API}/reports/${report}.${format}/`]?.get;
        expect({ report, format, op: op !== undefined }).toEqual({ report, format, op: true });
        expect(Object.keys(op.responses['200'].content)).toEqual([type]);
        expect(op.responses['400']).toBeDefined();
        expect(op.responses['404']).toBeDefined();
      }
    }
    const names = (format: string) => doc.paths[`${API}/reports/exceptions.${format}/`].get.parameters.map((p: { name: string }) => p.name).sort();
    // `bom` is a CSV's only.
    expect(names('csv')).toEqual(['area', 'bom', 'from', 'kind', 'to']);
    expect(names('xlsx')).toEqual(['area', 'from', 'kind', 'to']);
  });
});

test('a normal day is 8:03 worked', () => {
  expect(NORMAL).toBe(28980);
});

describe('today, someone in without an out yet', () => {
  test('reads "In, no out yet" in the daily report and the timesheet, and is no missing punch', async () => {
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(clock.now);
    const d1 = (await server.admin.get('/enrollees/?employee=D1')).body.results[0];
    const at = new Date(clock.now - 30 * 60_000).toISOString();
    expect((await server.admin.post('/punches/manual/', { enrollee: d1.id, at, reason: 'came in, the terminal was down' })).status).toBe(201);
    const daily = csvOf((await download(`/reports/daily.csv?date=${today}`)).bytes);
    expect(daily.find((r) => r.employee === 'D1')).toMatchObject({ status: 'in_now' });
    const preview = await server.admin.get(`/reports/timesheet/preview/?from=${today}&to=${today}&employee=D1`);
    expect(preview.body.sheets[0].rows[0]).toContain('In, no out yet');
    const exceptions = csvOf((await download(`/reports/exceptions.csv?from=${today}&to=${today}`)).bytes);
    expect(exceptions.filter((r) => r.employee === 'D1' && r.kind === 'missing_punch')).toEqual([]);
  });
});
