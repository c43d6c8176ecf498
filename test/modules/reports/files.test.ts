/**
 * The three writers (src/modules/reports/{csv,xlsx,pdf}.ts) on hand-made documents: a table
 * long enough to break across PDF pages with its header repeated, "Page n of m", sheets named
 * as Excel allows, CSV quoting and spreadsheet-formula neutralising, the PDF row limit.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { extractText, getDocumentProxy } from 'unpdf';
import { csvStream } from '../../../src/modules/reports/csv';
import { MAX_PDF_ROWS, MAX_PDF_SHEETS, pdfBytes, winAnsi } from '../../../src/modules/reports/pdf';
import type { Column, ReportDocument, Row, Sheet } from '../../../src/modules/reports/table';
import { decimalHours, hoursMinutes, minuteHours, printed } from '../../../src/modules/reports/table';
import { MAX_SHEETS, ONE_SHEET_NOTE, sheetName, xlsxStream } from '../../../src/modules/reports/xlsx';
import { parseCsv } from '../../../src/platform/csv';

const COLUMNS: Column[] = [
  { key: 'name', label: 'Name', kind: 'text', width: 20 },
  { key: 'date', label: 'Date', kind: 'date', width: 10 },
  { key: 'first_in', label: 'First in', kind: 'time', width: 10 },
  { key: 'worked_hours', label: 'Worked', kind: 'hours', width: 8 },
  { key: 'status', label: 'Status', kind: 'status', width: 10 },
];

function doc(sheets: Sheet[]): ReportDocument {
  return {
    kind: 'test',
    title: 'Test report',
    period: '2026-02-01 to 2026-02-28',
    scope: 'All areas',
    company: 'Acme & Co',
    basename: 'test',
    timeZone: 'Europe/Berlin',
    timesIn: 'Europe/Berlin',
    notes: ['A note.'],
    sheets: (async function* () {
      yield* sheets;
    })(),
    emptyColumns: COLUMNS,
  };
}

const rows = (n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({ date: '2026-02-02', cells: [`Person ${i + 1}`, '2026-02-02', '2026-02-03 06:05:00', 8 * 3600 + 180, 'present'] }));

async function pdfText(bytes: Uint8Array): Promise<string[]> {
  const { text } = await extractText(await getDocumentProxy(bytes.slice()), { mergePages: false });
  return text as string[];
}

describe('PDF', () => {
  test('a long table breaks across pages, its header on each, "Page n of m" on every page', async () => {
    const pages = await pdfText(await pdfBytes(doc([{ name: 'All', details: [], columns: COLUMNS, rows: rows(120) }]), '2026-03-01 07:00', false));
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const [i, page] of pages.entries()) {
      expect(page).toContain('Acme & Co');
      expect(page).toContain('Test report');
      expect(page).toContain('Period: 2026-02-01 to 2026-02-28');
      expect(page).toContain('Name');
      expect(page).toContain('First in');
      expect(page).toContain(`Page ${i + 1} of ${pages.length}`);
    }
    const all = pages.join('\n');
    for (const n of [1, 60, 120]) expect(all).toContain(`Person ${n}`);
    expect(all).toContain('06:05 +1');
    expect(all).toContain('8:03');
    expect(all).toContain('Present');
  });

  test('a sheet with signatures starts a page; nothing to report says so', async () => {
    const signed: Sheet = {
      name: 'Ann (A1)',
      details: ['Employee A1'],
      columns: COLUMNS,
      rows: rows(3),
      signatures: true,
      totals: () => ({ cells: ['Total', null, null, 3 * 8 * 3600, null] }),
    };
    const pages = await pdfText(await pdfBytes(doc([signed, { ...signed, name: 'Bob (B1)' }]), 'now', true));
    expect(pages).toHaveLength(2);
    expect(pages[1]).toContain('Bob (B1)');
    expect(pages[1]).toContain('Employee: Bob (B1)');
    expect(pages[1]).toContain('Employer');
    expect(pages[0]).toContain('24:00');
    const empty = await pdfText(await pdfBytes(doc([]), 'now', false));
    expect(empty[0]).toContain('Nothing to report');
  });

  test("a text too long for its column wraps onto more lines of the row, none of it cut (a totals row's counts, a day's flags)", async () => {
    const columns: Column[] = [...COLUMNS, { key: 'flags', label: 'Notes', kind: 'flags', width: 12 }];
    const totals = '15 days worked, 4 on leave, 1 holiday, 2 absent';
    const sheet: Sheet = {
      name: 'Nora (N3)',
      details: [],
      columns,
      rows: [{ date: '2026-02-02', cells: ['Nora', '2026-02-02', '2026-02-02 08:00:00', 8 * 3600, 'present', 'worked_on_off_day overtime late early_leave'] }],
      signatures: true,
      totals: () => ({ cells: ['Total', null, null, 8 * 3600, null, totals] }),
    };
    const text = (await pdfText(await pdfBytes(doc([sheet]), 'now', true)))[0]!.replace(/\s+/g, ' ');
    expect(text).not.toContain('…');
    expect(text).toContain(totals);
    expect(text).toContain('worked on a day off, overtime, late, left early');
  });

  test('past the row limit: refused before anything is sent', async () => {
    expect(MAX_PDF_ROWS).toBe(10_000);
    const big = doc([{ name: 'All', details: [], columns: COLUMNS, rows: rows(301) }]);
    await expect(pdfBytes(big, 'now', false, { maxRows: 300 })).rejects.toThrow('this report has more than 300 rows, too many for a PDF');
  });

  test('the rows are counted before anything is drawn: past the limit, not one row is read; a totals row is not counted', async () => {
    let read = 0;
    async function* counted(): AsyncGenerator<Row> {
      for (const row of rows(301)) {
        read++;
        yield row;
      }
    }
    const over: ReportDocument = { ...doc([{ name: 'All', details: [], columns: COLUMNS, rows: counted() }]), rowCount: async () => 301 };
    await expect(pdfBytes(over, 'now', false, { maxRows: 300 })).rejects.toMatchObject({ code: 'report_too_large', details: { max_rows: 300 } });
    expect(read).toBe(0);
    // Exactly the limit, and a totals row under it: drawn.
    const totals = () => ({ cells: ['Total', null, null, 300 * 8 * 3600, null] });
    const full: ReportDocument = { ...doc([{ name: 'All', details: [], columns: COLUMNS, rows: rows(300), totals }]), rowCount: async () => 300 };
    expect((await pdfText(await pdfBytes(full, 'now', false, { maxRows: 300 }))).join('\n')).toContain('Total');
  });

  test('past the sheet limit (a page each: one date of everyone’s timesheets), refused before anything is drawn, however few the rows', async () => {
    expect(MAX_PDF_SHEETS).toBe(1_000);
    let read = 0;
    async function* people(count: number): AsyncGenerator<Sheet> {
      for (let i = 0; i < count; i++) {
        read++;
        yield { name: `P${i}`, details: [], columns: COLUMNS, rows: rows(1), signatures: true };
      }
    }
    const four: ReportDocument = { ...doc([]), sheets: people(4), sheetCount: async () => 4, rowCount: async () => 4 };
    await expect(pdfBytes(four, 'now', true, { maxSheets: 3 })).rejects.toMatchObject({ code: 'report_too_large', details: { max_sheets: 3 } });
    expect(read).toBe(0);
    // Exactly the limit: drawn, a page a person.
    const three: ReportDocument = { ...doc([]), sheets: people(3), sheetCount: async () => 3, rowCount: async () => 3 };
    expect(await pdfText(await pdfBytes(three, 'now', true, { maxSheets: 3 }))).toHaveLength(3);
  });

  test('names in other scripts: with the built-in Helvetica accents dropped or `?`, never garbage', async () => {
    expect(winAnsi('Müller Nguyễn Ōta Łukasz 王 😀 – “ok”')).toBe('Müller Nguyen Ota Lukasz ? ? – “ok”');
    const names: Sheet = {
      name: 'All',
      details: [],
      columns: COLUMNS,
      rows: [{ cells: ['Łukasz Żółć', null, null, 0, null] }, { cells: ['Nguyễn Văn An', null, null, 0, null] }],
    };
    const text = (await pdfText(await pdfBytes(doc([names]), 'now', false))).join('\n');
    expect(text).toContain('Lukasz Zólc');
    expect(text).toContain('Nguyen Van An');
  });

  const DEJAVU = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
  test.skipIf(!existsSync(DEJAVU))('names in other scripts: printed as they are with REPORT_FONT', async () => {
    const names: Sheet = {
      name: 'All',
      details: [],
      columns: COLUMNS,
      rows: [{ cells: ['Łukasz Żółć', null, null, 0, null] }, { cells: ['Nguyễn Văn An', null, null, 0, null] }],
    };
    const bytes = await pdfBytes(doc([names]), 'now', false, { fonts: { regular: DEJAVU, bold: DEJAVU.replace('Sans.ttf', 'Sans-Bold.ttf') } });
    const text = (await pdfText(bytes)).join('\n');
    expect(text).toContain('Łukasz Żółć');
    expect(text).toContain('Nguyễn Văn An');
    expect(text).toContain('Page 1 of 1');
  });

  test('cells as printed', () => {
    expect(printed(COLUMNS[2]!, '2026-02-02 07:58:00', '2026-02-02')).toBe('07:58');
    expect(printed(COLUMNS[3]!, 0)).toBe('0:00');
    expect(printed({ key: 'late_hours', label: 'Late', kind: 'hours', width: 5 }, 0)).toBe('');
  });
});

describe('Excel', () => {
  test('sheet names Excel accepts, unique; typed cells', async () => {
    const sheet = (name: string): Sheet => ({ name, details: [], columns: COLUMNS, rows: rows(2) });
    const bytes = new Uint8Array(
      await new Response(await xlsxStream(doc([sheet('Ann [A/1]: night?'), sheet('Ann [A/1]: night?'), sheet('x'.repeat(40))]))).arrayBuffer(),
    );
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(bytes.buffer as ArrayBuffer);
    expect(book.worksheets.map((s) => s.name)).toEqual(['Ann A 1 night', 'Ann A 1 night 2', 'x'.repeat(28)]);
    const ws = book.worksheets[0]!;
    expect(ws.getCell('B2').type).toBe(ExcelJS.ValueType.Date);
    expect(ws.getCell('C2').value).toEqual(new Date('2026-02-03T06:05:00Z'));
    expect(ws.getCell('D2').value).toBeCloseTo(8.05, 6);
    expect(ws.getCell('E2').value).toBe('Present');
  });

  test("no sheet name starts or ends with an apostrophe (Excel and exceljs's reader refuse the book); names differing in case only are made unique", async () => {
    const sheet = (name: string): Sheet => ({ name, details: [], columns: COLUMNS, rows: rows(1) });
    // The 28-character cut of the third ends just after an apostrophe.
    const names = ["'Tis Lee (Q-1)", "Quinn O'Hara (Q-2)'", `${'x'.repeat(27)}'s night (Q-3)`, 'Ann Lee (A1)', 'ANN LEE (a1)', 'History'];
    const bytes = new Uint8Array(await new Response(await xlsxStream(doc(names.map(sheet)))).arrayBuffer());
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(bytes.buffer as ArrayBuffer);
    expect(book.worksheets.map((s) => s.name)).toEqual(['Tis Lee (Q-1)', "Quinn O'Hara (Q-2)", 'x'.repeat(27), 'Ann Lee (A1)', 'ANN LEE (a1) 2', 'History 1']);
  });

  test(`up to ${MAX_SHEETS} sheets (as the report counts them) a sheet each; more are one sheet of all their rows, each sheet's totals after them, said in the file`, async () => {
    const person = (n: number): Sheet => ({
      name: `Person ${n} (P${n})`,
      keep: ` (P${n})`,
      details: [],
      columns: COLUMNS,
      rows: rows(2).map((r) => ({ ...r, cells: [`Person ${n}`, ...r.cells.slice(1)] })),
      totals: () => ({ cells: [`Person ${n}`, 'Total', null, 2 * 8 * 3600, null] }),
    });
    const bookOf = async (sheetCount: number) => {
      const book = new ExcelJS.Workbook();
      const written = await xlsxStream({ ...doc([person(1), person(2), person(3)]), sheetCount: async () => sheetCount });
      await book.xlsx.load(await new Response(written).arrayBuffer());
      return book;
    };
    expect((await bookOf(MAX_SHEETS)).worksheets.map((s) => s.name)).toEqual(['Person 1 (P1)', 'Person 2 (P2)', 'Person 3 (P3)']);
    const one = await bookOf(MAX_SHEETS + 1);
    expect(one.worksheets.map((s) => s.name)).toEqual(['Test reports']);
    const ws = one.worksheets[0]!;
    const column = (c: number) => ws.getColumn(c).values.slice(1);
    expect(column(1)).toEqual([
      'Name',
      'Person 1',
      'Person 1',
      'Person 1',
      'Person 2',
      'Person 2',
      'Person 2',
      'Person 3',
      'Person 3',
      'Person 3',
      undefined,
      ONE_SHEET_NOTE,
    ]);
    expect(column(2).slice(3, 4)).toEqual(['Total']);
    expect(ws.getRow(4).font?.bold).toBe(true);
    expect(ws.getCell('D4').value).toBeCloseTo(16, 6);
    expect(one.description).toBe(ONE_SHEET_NOTE);
  });

  test('a person’s id stays whole at the end of their sheet’s name: the name is shortened instead', () => {
    const taken = new Set<string>();
    const of = (name: string, id: string) => sheetName(`${name} (${id})`, taken, ` (${id})`);
    expect(of('Dana Fischer', 'D1')).toBe('Dana Fischer (D1)');
    // The name of issue 26's officer: `=HYPERLINK("http x") Evil (E` before, the id cut.
    expect(of('=HYPERLINK("http://x") Evil Person', 'E158')).toBe('=HYPERLINK("http x") (E158)');
    expect(of('=HYPERLINK("http://x") Evil Twin', 'E159')).toBe('=HYPERLINK("http x") (E159)');
    // Alike but for case: numbered after the id.
    expect(of('Ann Lee', 'A1')).toBe('Ann Lee (A1)');
    expect(of('ANN LEE', 'a1')).toBe('ANN LEE (a1) 2');
    // A name cut just after a space or an apostrophe loses it; a character a sheet cannot hold (`/`) is a space.
    expect(of('Jean Baptiste Emman Zorg', 'JB-12')).toBe('Jean Baptiste Emman (JB-12)');
    expect(of("Anna-Lena Mariele O'Neil", 'A/123')).toBe('Anna-Lena Mariele O (A 123)');
    // An id too long to leave room for any of the name is cut with the rest, as any name is.
    expect(of('Ann Lee', 'x'.repeat(30))).toBe(`Ann Lee (${'x'.repeat(19)}`);
  });

  test('any names with an id kept: accepted by Excel, none twice, the id whole when it fits', () => {
    const unit = fc.constantFrom('a', 'A', 'é', "'", ' ', '[', ':', '/', '\t', '😀', 'x');
    const idUnit = fc.constantFrom('a', 'A', '1', '-', 'é', '_');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ unit, maxLength: 40 }), fc.string({ unit: idUnit, minLength: 1, maxLength: 24 })), { maxLength: 12 }),
        (input) => {
          const taken = new Set<string>();
          for (const [name, id] of input) {
            const sheet = sheetName(`${name} (${id})`, taken, ` (${id})`);
            expect(sheet.length).toBeLessThanOrEqual(31);
            expect(sheet).not.toMatch(/[[\]:*?/\\\p{Cc}]|^'|'$|^\s|\s$|[\uD800-\uDBFF]$/u);
            if (id.length <= 21) expect(sheet.replace(/ \d+$/, '')).toEndWith(`(${id})`);
          }
          expect(taken.size).toBe(input.length);
        },
      ),
    );
  });

  test('any names: each sheet name is one Excel accepts, none twice whatever the case', () => {
    const unit = fc.constantFrom('a', 'A', 'é', 'É', "'", ' ', '[', ']', ':', '*', '?', '/', '\\', '\t', '\u0001', '😀', 'x');
    fc.assert(
      fc.property(fc.array(fc.string({ unit, maxLength: 40 }), { maxLength: 12 }), (input) => {
        const taken = new Set<string>();
        const names = input.map((n) => sheetName(n, taken));
        for (const name of names) {
          expect(name.length).toBeGreaterThan(0);
          expect(name.length).toBeLessThanOrEqual(31);
          expect(name).not.toMatch(/[[\]:*?/\\\p{Cc}]|^'|'$|^\s|\s$|[\uD800-\uDBFF]$/u);
          expect(name.toLowerCase()).not.toBe('history');
        }
        expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
      }),
    );
  });
});

describe('durations: every format the same whole minutes', () => {
  test('41 min 42 s is 0:41 printed, 0.68 in a CSV, 41/60 in an Excel cell', async () => {
    const sheet: Sheet = { name: 'All', details: [], columns: COLUMNS, rows: [{ cells: ['Ann', '2026-02-02', null, 2502, 'present'] }] };
    expect(printed(COLUMNS[3]!, 2502)).toBe('0:41');
    const csv = parseCsv(await new Response(csvStream(doc([sheet]))).text()).map((r) => ('fields' in r ? r.fields : []));
    expect(csv[1]![3]).toBe('0.68');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(await new Response(await xlsxStream(doc([sheet]))).arrayBuffer());
    expect(book.worksheets[0]!.getCell('D2').value).toBeCloseTo(41 / 60, 12);
  });

  test('any duration: the CSV’s two places and the Excel cell give back the printed minutes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 * 3600 }), (seconds) => {
        const [h, m] = hoursMinutes(seconds).split(':').map(Number);
        const minutes = h! * 60 + m!;
        expect(minutes).toBe(Math.floor(seconds / 60));
        expect(Math.round(decimalHours(seconds) * 60)).toBe(minutes);
        expect(Math.round(minuteHours(seconds) * 60 * 1e6) / 1e6).toBe(minutes);
      }),
    );
  });
});

describe('CSV', () => {
  test('keys as header, quoting, formulas neutralised, decimal hours', async () => {
    const text = await new Response(
      csvStream(doc([{ name: 'All', details: [], columns: COLUMNS, rows: [{ cells: ['=HYPERLINK("x")', '2026-02-02', null, 5400, 'absent'] }] }])),
    ).text();
    const records = parseCsv(text).map((r) => ('fields' in r ? r.fields : []));
    expect(records).toEqual([
      ['name', 'date', 'first_in', 'worked_hours', 'status'],
      [`'=HYPERLINK("x")`, '2026-02-02', '', '1.50', 'absent'],
    ]);
    expect(await new Response(csvStream(doc([]))).text()).toBe('name,date,first_in,worked_hours,status\r\n');
  });
});
