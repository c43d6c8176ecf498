/**
 * The Excel timesheet of an area names each sheet after its person, `Name (ID)`, within Excel's
 * 31 characters: a long name is shortened and the ` (ID)` kept whole, so the tabs of two people
 * whose long names begin alike still say who each is. Through the real server (HTTP download,
 * the workbook opened with exceljs).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import ExcelJS from 'exceljs';
import { linesAt, terminal, upload } from '../support/attendance';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
let server: TestServer;

const NAMES: Record<string, string> = {
  D1: 'Dana Fischer',
  E158: '=HYPERLINK("http://x") Evil Person',
  E159: '=HYPERLINK("http://x") Evil Twin',
  'E-2026-000042': 'Maximiliane Alexandra von Hohenberg-Schwarzenfels',
};

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE, DEFAULT_SCHEDULE: '08:00-16:00/5m' }, { clock: { now: () => Date.parse('2026-11-25T12:00:00Z') } });
  const device = await terminal(server, 'TERMS001');
  for (const [employee, name] of Object.entries(NAMES)) {
    expect((await server.admin.post('/employees/', { id: employee, name })).status).toBe(201);
    const enrollee = await server.admin.post('/enrollees/', { employee });
    expect(enrollee.status).toBe(201);
    await upload(server, device, linesAt(ZONE, enrollee.body.device_pin, '2026-11-24 08:00:00', '2026-11-24 16:00:00'));
  }
});
afterAll(async () => {
  await server.close();
});

describe('the sheets of an Excel timesheet', () => {
  test('keep each person’s id whole: a long name is shortened instead', async () => {
    const res = await fetch(`${server.admin.base}/reports/timesheet.xlsx?from=2026-11-24&to=2026-11-24`, { headers: server.admin.headers });
    expect(res.status).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(await res.arrayBuffer());
    const names = book.worksheets.map((s) => s.name);
    expect(names.sort()).toEqual(['=HYPERLINK("http x") (E158)', '=HYPERLINK("http x") (E159)', 'Dana Fischer (D1)', 'Maximiliane (E-2026-000042)'].sort());
    for (const name of names) expect(name.length).toBeLessThanOrEqual(31);
  });
});
