/**
 * A report as an Excel workbook (exceljs's streaming writer: each row is committed as it is
 * written, so a large report is never held whole; a turn of the event loop every few rows). One
 * worksheet per sheet, up to MAX_SHEETS (more: one sheet of them all, oneSheet); typed cells: dates
 * and times are Excel dates (local wall times of the attendance zone, which Excel has no zone
 * for) with a date format, durations numbers of hours with `0.00` (the whole minutes / 60, as
 * the PDF's `H:MM` cuts them), counts integers; the header
 * row bold and frozen, the columns sized, a bold totals row at the end where the report has one.
 * The company, title and period are in the workbook's properties and each sheet's print header;
 * sheets print on A4.
 */
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { Pacer } from '../../platform/event-loop';
import { type Cell, type Column, minuteHours, type ReportDocument, type Row, type Sheet, words } from './table';

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
      return minuteHours(Number(cell));
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

/** The most worksheets a workbook has: a timesheet of more people is one sheet of everyone's rows. */
export const MAX_SHEETS = 200;

/** Said at the end of, and in the properties of, the one sheet of more than MAX_SHEETS people's timesheets. */
export const ONE_SHEET_NOTE = `More than ${MAX_SHEETS} people: one sheet of everyone's timesheets instead of a sheet per person, by employee; each person's dates are followed by their totals row.`;

/** Writes rows into a worksheet as they are read, each committed (so never held), at the pace of the client and of the event loop. */
class SheetWriter {
  private written = 0;
  private readonly pacer = new Pacer();

  constructor(private readonly out: PassThrough) {}

  async rows(ws: ExcelJS.Worksheet, columns: readonly Column[], rows: Sheet['rows']): Promise<void> {
    for await (const row of rows) {
      this.write(ws, columns, row);
      // Backpressure: when the client reads slower than the rows come, wait for it.
      if (++this.written % 200 === 0 && this.out.writableNeedDrain) await once(this.out, 'drain');
      // Building and zipping rows is this thread's work: terminals' polls get a turn every few rows.
      await this.pacer.turn();
    }
  }

  write(ws: ExcelJS.Worksheet, columns: readonly Column[], row: Row, font?: Partial<ExcelJS.Font>): void {
    const added = ws.addRow(row.cells.map((cell, i) => value(columns[i]!, cell)));
    if (font) added.font = font;
    added.commit();
  }
}

/** A worksheet with its print setup, sized columns and bold frozen header row. */
function openSheet(
  book: ExcelJS.stream.xlsx.WorkbookWriter,
  doc: ReportDocument,
  sheet: Pick<Sheet, 'name' | 'keep' | 'columns'>,
  taken: Set<string>,
  heading = `${doc.title}: ${sheet.name}`,
): ExcelJS.Worksheet {
  const ws = book.addWorksheet(sheetName(sheet.name, taken, sheet.keep), {
    views: [{ state: 'frozen', ySplit: 1 }],
    pageSetup: { paperSize: 9, orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0 },
    headerFooter: {
      oddHeader: `&L${headerText(doc.company)}&C&B${headerText(heading)}&B ${headerText(doc.period)}&R${headerText(doc.scope)}`,
      oddFooter: `&LTimes in ${headerText(doc.timesIn)}&RPage &P of &N`,
    },
  });
  ws.columns = sheet.columns.map((c) => ({ key: c.key, width: c.width + 2, style: FORMAT[c.kind] ? { numFmt: FORMAT[c.kind] } : {} }));
  const header = ws.addRow(sheet.columns.map((c) => c.label));
  header.font = { bold: true };
  header.commit();
  return ws;
}

/** A sheet each (a timesheet of up to MAX_SHEETS people: one per person). */
async function sheetEach(book: ExcelJS.stream.xlsx.WorkbookWriter, writer: SheetWriter, doc: ReportDocument): Promise<void> {
  const taken = new Set<string>();
  let sheets = 0;
  for await (const sheet of doc.sheets) {
    const ws = openSheet(book, doc, sheet, taken);
    await writer.rows(ws, sheet.columns, sheet.rows);
    const totals = sheet.totals?.();
    if (totals) writer.write(ws, sheet.columns, totals, { bold: true });
    ws.commit();
    sheets++;
  }
  if (sheets === 0) openSheet(book, doc, { name: doc.title, columns: doc.emptyColumns }, taken).commit();
}

/**
 * Every sheet's rows on one worksheet, each sheet's totals row after its rows, and a note saying
 * so: a workbook of 10,000 sheets (a month's timesheets for 10,000 people) took 1.6 GB to write
 * and is more than Excel opens comfortably; one sheet streams in flat memory and filters by person.
 */
async function oneSheet(book: ExcelJS.stream.xlsx.WorkbookWriter, writer: SheetWriter, doc: ReportDocument): Promise<void> {
  const columns = doc.emptyColumns;
  const ws = openSheet(book, doc, { name: `${doc.title}s`, columns }, new Set(), `${doc.title}s`);
  for await (const sheet of doc.sheets) {
    await writer.rows(ws, columns, sheet.rows);
    const totals = sheet.totals?.();
    if (totals) writer.write(ws, columns, totals, { bold: true });
  }
  ws.addRow([]).commit();
  const note = ws.addRow([ONE_SHEET_NOTE]);
  note.font = { italic: true };
  note.commit();
  ws.commit();
}

/**
 * The workbook, streamed: zipped as its rows are written. A report of more than MAX_SHEETS sheets
 * (counted first: `sheetCount`) is written as one sheet (oneSheet).
 */
export async function xlsxStream(doc: ReportDocument): Promise<ReadableStream<Uint8Array>> {
  const combined = doc.sheetCount !== undefined && (await doc.sheetCount(MAX_SHEETS + 1)) > MAX_SHEETS;
  const pass = new PassThrough();
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: pass, useStyles: true, useSharedStrings: false });
  book.creator = doc.company || 'Fingerprint Attendance';
  book.title = `${doc.title} ${doc.period}`;
  book.company = doc.company;
  if (combined) book.description = ONE_SHEET_NOTE;
  const writer = new SheetWriter(pass);
  const write = async () => {
    await (combined ? oneSheet(book, writer, doc) : sheetEach(book, writer, doc));
    await book.commit();
  };
  write().catch((error: unknown) => pass.destroy(error instanceof Error ? error : new Error(String(error))));
  return webStreamOf(pass);
}

/** A web stream pulled from a Node one as the answer is sent: the zip is written no faster than it is read. */
function webStreamOf(node: PassThrough): ReadableStream<Uint8Array> {
  const chunks: AsyncIterator<Uint8Array> = node[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      node.destroy(reason instanceof Error ? reason : undefined);
    },
  });
}
