/**
 * Reports of more people than a small team, through the real server: 210 people with a working
 * week each (punches uploaded through the punch service; every 7th late, every 11th without an
 * out), and a terminal polling meanwhile.
 *
 * - An Excel timesheet of more than 200 people is one sheet (xlsx.ts MAX_SHEETS): a workbook of a
 *   sheet per person, 10,000 sheets for 10,000 people, took 1.6 GB and 20 s before its first byte.
 * - A long download gives the event loop turns: a terminal's poll is answered while it streams
 *   (a month's timesheets of 10,000 people held every poll for 20 s).
 * - A PDF's limit counts what the report is made of (people, a row per date per person,
 *   exceptions), never a totals row, and is checked from a count before anything is drawn.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import ExcelJS from 'exceljs';
import { MAX_PDF_ROWS, pdfBytes } from '../../src/modules/reports/pdf';
import type { ReportDocument, Sheet } from '../../src/modules/reports/table';
import { parseCsv } from '../../src/platform/csv';
import { startTestServer, type TestServer } from '../support/harness';
import { seedPeople } from '../support/people';
import { approvedDevice, ingest } from '../support/punch-feed';

const API = '/api/fingerprint/v1';
const SERIAL = 'CROWD0001';
const PEOPLE = Array.from({ length: 210 }, (_, i) => ({ employee: `C${String(i + 1).padStart(3, '0')}`, name: `Person ${String(i + 1).padStart(3, '0')}` }));
const WEEK = ['2026-02-02', '2026-02-03', '2026-02-04', '2026-02-05', '2026-02-06'];
const FROM = '2026-02-01';
const TO = '2026-02-07';
const clock = { now: Date.parse('2026-03-02T12:00:00Z') };
let server: TestServer;

/** Wall times of person `i` on a workday: every 7th is late (08:30), every 11th forgets to clock out. */
function punchesOf(i: number): string[] {
  const first = i % 7 === 0 ? '08:30' : '07:58';
  return i % 11 === 0 ? [first] : [first, '16:02'];
}

beforeAll(async () => {
  server = await startTestServer({ DEFAULT_SCHEDULE: '08:00-16:00/5m' }, { clock: { now: () => clock.now } });
  await seedPeople(server, PEOPLE, 900_000);
  const device = await approvedDevice(server, SERIAL);
  const lines = PEOPLE.flatMap((_, i) =>
    WEEK.flatMap((date) =>
      punchesOf(i).map((time, n) => {
        const localTime = `${date} ${time}:00`;
        const pin = String(900_000 + i);
        return {
          pin,
          localTime,
          punchedAt: Date.parse(`${date}T${time}:00Z`),
          utcOffsetMinutes: 0,
          state: n,
          verifyType: 1,
          workCode: '0',
          extra: [],
          raw: `${pin}\t${localTime}\t${n}\t1\t0\t0\t0`,
        };
      }),
    ),
  );
  for (let i = 0; i < lines.length; i += 500) await ingest(server, device, lines.slice(i, i + 500));
}, 120_000);
afterAll(async () => {
  await server?.close();
});

const get = (path: string) => fetch(`${server.url}${API}${path}`, { headers: server.admin.headers });

function csvOf(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text).map((r) => ('fields' in r ? r.fields : []));
  return rows.map((fields) => Object.fromEntries(header!.map((h, i) => [h, fields[i] ?? ''])));
}

/**
 * Polls the terminal's getrequest one after another while `work` runs: how many were answered
 * meanwhile, and the longest wait. A server whose event loop is held answers none until the end.
 */
async function pollingDuring(work: () => Promise<unknown>): Promise<{ answered: number; longestMs: number; workMs: number }> {
  let running = true;
  const waits: number[] = [];
  const polls = (async () => {
    while (running) {
      const t0 = performance.now();
      await (await fetch(`${server.url}${server.fpa.settings.ADMS_URL_PREFIX}getrequest?SN=${SERIAL}`)).text();
      if (running) waits.push(performance.now() - t0);
      await Bun.sleep(5);
    }
  })();
  const t0 = performance.now();
  await work();
  const workMs = performance.now() - t0;
  running = false;
  await polls;
  return { answered: waits.length, longestMs: Math.max(0, ...waits), workMs };
}

describe('Excel timesheets of many people', () => {
  test('more than 200 people: one sheet of everyone’s dates, each person’s totals after them, said in the file', async () => {
    const res = await get(`/reports/timesheet.xlsx?from=${FROM}&to=${TO}`);
    expect(res.status).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(await res.arrayBuffer());
    expect(book.worksheets.map((s) => s.name)).toEqual(['Timesheets']);
    const sheet = book.worksheets[0]!;
    const cells = (r: number) => (sheet.getRow(r).values as unknown[]).slice(1);
    expect(cells(1).slice(0, 3)).toEqual(['Employee', 'Name', 'Date']);
    // A row per date of the period for each person, by employee, then their totals (bold, naming them).
    expect(sheet.getRow(2).getCell(1).value).toBe('C001');
    expect((sheet.getRow(2).getCell(3).value as Date).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    const totals = sheet.getRow(2 + 7);
    expect(cells(2 + 7).slice(0, 3)).toEqual(['C001', 'Person 001', 'Total']);
    expect(totals.font?.bold).toBe(true);
    expect(totals.getCell(15).value).toBe('5 days worked');
    expect(sheet.getRow(2 + 8).getCell(1).value).toBe('C002');
    const last = 1 + PEOPLE.length * 8;
    expect(cells(last).slice(0, 3)).toEqual(['C210', 'Person 210', 'Total']);
    expect(String(sheet.getRow(last + 2).getCell(1).value)).toContain('More than 200 people: one sheet');
    expect(book.description).toContain('More than 200 people');
  });
});

describe('a long download and a terminal', () => {
  test('a terminal polling while everyone’s timesheets download is answered meanwhile', async () => {
    // 210 people × 181 dates: 38,010 rows.
    let bytes = 0;
    const polled = await pollingDuring(async () => {
      const res = await get(`/reports/timesheet.xlsx?from=2025-09-01&to=2026-02-28`);
      bytes = (await res.arrayBuffer()).byteLength;
    });
    expect(bytes).toBeGreaterThan(100_000);
    expect(polled.answered).toBeGreaterThanOrEqual(5);
    // Each poll waits for a turn of the report's work, not for the report.
    expect(polled.longestMs).toBeLessThan(Math.max(1000, polled.workMs / 3));
  }, 120_000);

  test('and while the CSV and the PDF are built', async () => {
    // 210 people × 366 dates: 76,860 rows, quicker to write than Excel's.
    const csv = await pollingDuring(async () => (await get(`/reports/timesheet.csv?from=2025-03-01&to=2026-03-01`)).text());
    expect(csv.answered).toBeGreaterThanOrEqual(3);
    expect(csv.longestMs).toBeLessThan(Math.max(250, csv.workMs / 2));
    const pdf = await pollingDuring(async () => expect((await get(`/reports/timesheet.pdf?from=${FROM}&to=${TO}`)).status).toBe(200));
    expect(pdf.answered).toBeGreaterThanOrEqual(3);
    expect(pdf.longestMs).toBeLessThan(Math.max(1000, pdf.workMs / 3));
  }, 120_000);

  test('the payroll export reads a page at a time, with a turn of the event loop between pages', async () => {
    const stream = await server.fpa.service.reports.exportCsv({ from: FROM, to: TO }, { pageRows: 50 });
    let turns = 0;
    let reading = true;
    const tick = () => {
      turns++;
      if (reading) setImmediate(tick);
    };
    setImmediate(tick);
    const text = await new Response(stream).text();
    reading = false;
    const days = csvOf(text).length;
    expect(days).toBe(PEOPLE.length * WEEK.length);
    // One turn at least before each page of 50 days.
    expect(turns).toBeGreaterThanOrEqual(Math.floor(days / 50));
  });
});

describe('the PDF limit', () => {
  const everyone = { areas: [] as string[] };

  test('counts what the report is made of: its people, a row per date for each, its exceptions', async () => {
    const files = server.fpa.service.reportFiles;
    expect(await (await files.summary({ from: FROM, to: TO }, everyone)).rowCount!(MAX_PDF_ROWS)).toBe(PEOPLE.length);
    expect(await (await files.timesheet({ from: FROM, to: TO }, everyone)).rowCount!(MAX_PDF_ROWS)).toBe(PEOPLE.length * 7);
    const daily = await files.daily({ date: WEEK[0] }, everyone);
    expect(await daily.rowCount!(MAX_PDF_ROWS)).toBe(PEOPLE.length);
    // The exceptions counted as the CSV lists them, whatever kinds are asked.
    for (const kind of [undefined, 'late', 'missing_punch', 'absent,overtime']) {
      const query = `from=${FROM}&to=${TO}${kind ? `&kind=${kind}` : ''}`;
      const listed = csvOf(await (await get(`/reports/exceptions.csv?${query}`)).text()).length;
      const doc = await files.exceptions({ from: FROM, to: TO, kind }, everyone);
      expect({ kind, counted: await doc.rowCount!(MAX_PDF_ROWS) }).toEqual({ kind, counted: listed });
    }
    expect(csvOf(await (await get(`/reports/exceptions.csv?from=${FROM}&to=${TO}&kind=late`)).text())).toHaveLength(30 * WEEK.length);
  });

  test('a totals row is not one of the rows: exactly the limit of people is drawn', async () => {
    const doc = await server.fpa.service.reportFiles.summary({ from: FROM, to: TO }, everyone);
    const bytes = await pdfBytes(doc, '2026-03-02 12:00', false, { maxRows: PEOPLE.length });
    expect(bytes.byteLength).toBeGreaterThan(1000);
  });

  test('past it, refused from the count before anything is drawn (a year of everyone’s timesheets)', async () => {
    const doc = await server.fpa.service.reportFiles.timesheet({ from: '2025-03-01', to: '2026-02-28' }, everyone);
    let drawn = 0;
    async function* counted(sheets: AsyncIterable<Sheet>) {
      for await (const sheet of sheets) {
        drawn++;
        yield sheet;
      }
    }
    const watched: ReportDocument = { ...doc, sheets: counted(doc.sheets) };
    await expect(pdfBytes(watched, 'now', true)).rejects.toMatchObject({ code: 'report_too_large', details: { max_rows: MAX_PDF_ROWS } });
    expect(drawn).toBe(0);
    const res = await get(`/reports/timesheet.pdf?from=2025-03-01&to=2026-02-28`);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('report_too_large');
  });
});
