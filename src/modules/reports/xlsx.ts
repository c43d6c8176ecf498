/**
 * A report as an Excel workbook (exceljs's streaming writer: each row is committed as it is
 * written, so a large report is never held whole). One worksheet per sheet; typed cells: dates
 * and times are Excel dates (local wall times of the attendance zone, which Excel has no zone
 * for) with a date format, durations numbers of hours with `0.00`, counts integers; the header
 * row bold and frozen, the columns sized, a bold totals row at the end where the report has one.
 * The company, title and period are in the workbook's properties and each sheet's print header;
 * sheets print on A4.
 */
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { type Cell, type Column, type ReportDocument, type Row, type Sheet, words } from './table';

const FORMAT: Partial<Record<Column['kind'], string>> = {
  date: 'yyyy-mm-dd',
  time: 'yyyy-mm-dd hh:mm',
  hours: '0.00',
  count: '0',
};

/** `YYYY-MM-DD[ HH:MM:SS]` as the Date Excel shows as that wall time (written as UTC). */
function wallDate(text: string): Date {
  const [y, m, d, hh, mm, ss] = text.split(/[- :]/).map(Number);
  return new Date(Date.UTC(y!, m! - 1, d!, hh ?? 0, mm ?? 0, ss ?? 0));
}

function value(column: Column, cell: Cell): ExcelJS.CellValue {
  if (cell === null || cell === '') return null;
  switch (column.kind) {
    case 'date':
    case 'time':
      // A totals row's label stays text.
      return typeof cell === 'string' && /^\d{4}-\d{2}-\d{2}/.test(cell) ? wallDate(cell) : cell;
    case 'hours':
      return Number(cell) / 3600;
    case 'count':
      return Number(cell);
    case 'status':
    case 'flags':
      return words(column.kind, cell);
    default:
      return String(cell);
  }
}

/**
 * A worksheet name Excel accepts (exceljs's reader and Excel refuse the others): at most 31
 * characters, none of `[]:*?/\` nor control characters, not starting or ending with `'` (a name like `'Tis Lee`, or
 * one cut just after an apostrophe), not `History` (Excel keeps it for itself), and unique in
 * the book compared without case, as Excel compares them. `keep`, the end of `name` that tells
 * sheets apart (a timesheet's ` (E-1)`, the person's id), stays whole when the name must be
 * shortened: the part before it is cut instead, so two people with long names never share a tab
 * that reads `… (E` (an id too long to leave room for any of the name is cut with the rest).
 */
export function sheetName(name: string, taken: Set<string>, keep = ''): string {
  const whole = edges(excelText(name));
  const end = excelText(keep);
  const kept = end !== '' && whole.endsWith(end) && end.length <= MAX_KEPT ? end : '';
  const head = whole.slice(0, whole.length - kept.length);
  // The name cut to `room` characters with its end kept: `Alexandra Konstantin (E-1)`.
  const within = (room: number) => edges(`${edges(cut(head, room - kept.length))}${kept}`);
  const base = within(28) || 'Sheet';
  let candidate = base.toLowerCase() === 'history' ? `${base} 1` : base;
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${within(26) || edges(cut(base, 26))} ${n}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

/** The longest end a sheet's name keeps whole: 4 characters of its 28 are left for the name. */
const MAX_KEPT = 24;

/** Without the characters a sheet's name may not hold, spaces run together. */
const excelText = (text: string) => text.replace(/[[\]:*?/\\\p{Cc}]/gu, ' ').replace(/\s+/g, ' ');

/** At most `max` UTF-16 units (Excel's count), never half of a character beyond the BMP. */
function cut(text: string, max: number): string {
  const head = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head;
}

/** Without spaces or apostrophes at either end. */
const edges = (text: string) => text.replace(/^[\s']+|[\s']+$/g, '');

/** `&` starts a code in a print header: doubled to print as itself. */
const headerText = (text: string) => text.replaceAll('&', '&&');

async function writeSheet(book: ExcelJS.stream.xlsx.WorkbookWriter, out: PassThrough, doc: ReportDocument, sheet: Sheet, taken: Set<string>): Promise<void> {
  const ws = book.addWorksheet(sheetName(sheet.name, taken, sheet.keep), {
    views: [{ state: 'frozen', ySplit: 1 }],
    pageSetup: { paperSize: 9, orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0 },
    headerFooter: {
      oddHeader: `&L${headerText(doc.company)}&C&B${headerText(`${doc.title}: ${sheet.name}`)}&B ${headerText(doc.period)}&R${headerText(doc.scope)}`,
      oddFooter: `&LTimes in ${headerText(doc.timeZone)}&RPage &P of &N`,
    },
  });
  ws.columns = sheet.columns.map((c) => ({ key: c.key, width: c.width + 2, style: FORMAT[c.kind] ? { numFmt: FORMAT[c.kind] } : {} }));
  const header = ws.addRow(sheet.columns.map((c) => c.label));
  header.font = { bold: true };
  header.commit();
  const write = (row: Row, bold = false) => {
    const added = ws.addRow(row.cells.map((cell, i) => value(sheet.columns[i]!, cell)));
    if (bold) added.font = { bold: true };
    added.commit();
  };
  let written = 0;
  for await (const row of sheet.rows) {
    write(row);
    // Backpressure: when the client reads slower than the rows come, wait for it.
    if (++written % 200 === 0 && out.writableNeedDrain) await once(out, 'drain');
  }
  const totals = sheet.totals?.();
  if (totals) write(totals, true);
  ws.commit();
}

export function xlsxStream(doc: ReportDocument): ReadableStream<Uint8Array> {
  const pass = new PassThrough();
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: pass, useStyles: true, useSharedStrings: false });
  book.creator = doc.company || 'Fingerprint Attendance';
  book.title = `${doc.title} ${doc.period}`;
  book.company = doc.company;
  const taken = new Set<string>();
  const write = async () => {
    let sheets = 0;
    for await (const sheet of doc.sheets) {
      await writeSheet(book, pass, doc, sheet, taken);
      sheets++;
    }
    if (sheets === 0) await writeSheet(book, pass, doc, { name: doc.title, details: [], columns: doc.emptyColumns, rows: [] }, taken);
    await book.commit();
  };
  write().catch((error: unknown) => pass.destroy(error instanceof Error ? error : new Error(String(error))));
  // The same stream class at run time; node:stream/web's type and the global one are declared
  // apart, and neither is assignable to the other.
  return Readable.toWeb(pass) as unknown as ReadableStream<Uint8Array>;
}
