/**
 * Every report format gives payroll the same minutes (an HR officer's finding): a duration with
 * seconds (41 min 42 s of overtime) is 0:41 in the preview and the PDF, and was 0.70 (42 min) in
 * the CSV and 0.695 in the Excel cell. Now each format works from the whole minutes: the CSV has
 * 41/60 to two places (0.68), the Excel cell 41/60, and a summary's totals row is the sum of its
 * rows in every format.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import ExcelJS from 'exceljs';
import { extractText, getDocumentProxy } from 'unpdf';
import { parseCsv } from '../../src/platform/csv';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

const API = '/api/fingerprint/v1';
const ZONE = 'Europe/Berlin';
const DATE = '2026-02-03';
const clock = { now: Date.parse('2026-02-01T12:00:00Z') };
let server: TestServer;

// 07:58:00 to 17:11:42 on the 08:00–16:30 shift (30 min break): 8:43:42 worked, 41:42 overtime.
const WORKED = 8 * 3600 + 43 * 60 + 42;
const OVERTIME = 41 * 60 + 42;

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => clock.now } });
  const pins: string[] = [];
  for (const [id, name] of [
    ['M1', 'Mia Lang'],
    ['M2', 'Max Roth'],
  ]) {
    expect((await server.admin.post('/employees/', { id, name })).status).toBe(201);
    const enrollee = await server.admin.post('/enrollees/', { employee: id, areas: ['plant'] });
    pins.push(enrollee.body.device_pin);
  }
  const terminal = new SimulatedTerminal({ url: server.url, sn: 'PLANT01', timeZone: ZONE });
  await terminal.handshake();
  expect((await server.admin.post('/devices/PLANT01/approve/', { areas: ['plant'] })).status).toBe(200);
  expect(
    (await server.admin.post('/work-schedules/', { name: 'day', start: '08:00', end: '16:30', grace_in: '5m', grace_out: '5m', break: '30m' })).status,
  ).toBe(201);
  expect((await server.admin.post('/shift-assignments/', { schedule: 'day', area: 'plant', from: '2026-02-01' })).status).toBe(201);
  clock.now = Date.parse('2026-02-04T06:00:00Z');
  const lines = pins.flatMap((pin) => ['07:58:00', '17:11:42'].map((time) => ({ pin, localTime: `${DATE} ${time}` })));
  expect(await terminal.punch(lines)).toEqual({ status: 200, body: `OK:${lines.length}` });
});
afterAll(async () => {
  await server.close();
});

async function download(path: string): Promise<Uint8Array> {
  const res = await fetch(`${server.url}${API}${path}`, { headers: server.admin.headers });
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

function csvOf(bytes: Uint8Array): Record<string, string>[] {
  const [header, ...rows] = parseCsv(new TextDecoder().decode(bytes)).map((r) => ('fields' in r ? r.fields : []));
  return rows.map((fields) => Object.fromEntries(header!.map((h, i) => [h, fields[i] ?? ''])));
}

async function sheetOf(bytes: Uint8Array): Promise<Record<string, ExcelJS.Cell>[]> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(bytes.buffer as ArrayBuffer);
  const sheet = book.worksheets[0]!;
  const labels = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
  const out: Record<string, ExcelJS.Cell>[] = [];
  for (let r = 2; r <= sheet.rowCount; r++) out.push(Object.fromEntries(labels.map((label, i) => [label, sheet.getRow(r).getCell(i + 1)])));
  return out;
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(bytes.slice()), { mergePages: true });
  return text as string;
}

describe('every format gives the same whole minutes', () => {
  test('the stored day has the seconds', async () => {
    const days = await server.admin.get(`/attendance-days/?employee=M1&from=${DATE}&to=${DATE}`);
    expect(days.body.results[0]).toMatchObject({ worked_seconds: WORKED, overtime_seconds: OVERTIME });
  });

  test('summary: preview 0:41, CSV 0.68, Excel 41/60, PDF 0:41; the totals row is the sum of the rows', async () => {
    const query = `from=${DATE}&to=${DATE}&area=plant`;
    const preview = (await server.admin.get(`/reports/summary/preview/?${query}`)).body.sheets[0];
    const column = (label: string) => preview.columns.findIndex((c: { label: string }) => c.label === label);
    expect(preview.rows.map((r: string[]) => [r[column('Worked')], r[column('Overtime')]])).toEqual([
      ['8:43', '0:41'],
      ['8:43', '0:41'],
    ]);
    // 0:41 + 0:41, not the 83.4 minutes of the seconds cut once (1:23).
    expect([preview.totals[column('Worked')], preview.totals[column('Overtime')]]).toEqual(['17:26', '1:22']);

    const csv = csvOf(await download(`/reports/summary.csv?${query}`));
    expect(csv.map((r) => [r.worked_hours, r.overtime_hours])).toEqual([
      ['8.72', '0.68'],
      ['8.72', '0.68'],
    ]);

    const sheet = await sheetOf(await download(`/reports/summary.xlsx?${query}`));
    expect(sheet.map((r) => r.Employee!.value)).toEqual(['M1', 'M2', 'Total']);
    for (const row of sheet.slice(0, 2)) {
      expect(row.Overtime!.value).toBeCloseTo(41 / 60, 9);
      expect(row.Worked!.value).toBeCloseTo(523 / 60, 9);
      expect(row.Overtime!.numFmt).toBe('0.00');
    }
    expect(sheet[2]!.Overtime!.value).toBeCloseTo(82 / 60, 9);
    expect(sheet[2]!.Worked!.value).toBeCloseTo(1046 / 60, 9);

    const pdf = await pdfText(await download(`/reports/summary.pdf?${query}`));
    for (const figure of ['8:43', '0:41', '17:26', '1:22']) expect(pdf).toContain(figure);
    expect(pdf).not.toContain('1:23');
  });

  test('daily, timesheet and exceptions: the same minutes in the CSV and Excel files as in the preview', async () => {
    const daily = csvOf(await download(`/reports/daily.csv?date=${DATE}&area=plant`));
    expect(daily.map((r) => [r.employee, r.worked_hours, r.overtime_hours])).toEqual([
      ['M2', '8.72', '0.68'],
      ['M1', '8.72', '0.68'],
    ]);
    const exceptions = csvOf(await download(`/reports/exceptions.csv?from=${DATE}&to=${DATE}`));
    expect(exceptions.map((r) => [r.employee, r.kind, r.hours])).toEqual([
      ['M1', 'overtime', '0.68'],
      ['M2', 'overtime', '0.68'],
    ]);
    const timesheet = await sheetOf(await download(`/reports/timesheet.xlsx?employee=M1&from=${DATE}&to=${DATE}`));
    expect(timesheet[0]!.Overtime!.value).toBeCloseTo(41 / 60, 9);
    expect(timesheet[1]!.Overtime!.value).toBeCloseTo(41 / 60, 9);
    const preview = (await server.admin.get(`/reports/timesheet/preview/?employee=M1&from=${DATE}&to=${DATE}`)).body.sheets[0];
    const overtime = preview.columns.findIndex((c: { key: string }) => c.key === 'overtime_hours');
    expect([preview.rows[0][overtime], preview.totals[overtime]]).toEqual(['0:41', '0:41']);
  });
});
