/**
 * A report as a PDF (pdfkit): A4 (portrait for a timesheet, landscape for the wider reports),
 * every page headed by the company name, the report's title, its period and scope, and footed
 * by "Page n of m"; the table breaks across pages with its header row repeated; a timesheet
 * starts each person on a new page and ends with the totals and signature lines for the
 * employee and the employer.
 *
 * "Page n of m" needs m: the pages are kept (pdfkit's bufferPages) until the last is drawn, so
 * a PDF is built whole before it is sent, and bounded: past MAX_PDF_ROWS rows (counted before
 * anything is drawn: the document's `rowCount`; a totals row is none) the request is refused
 * (`report_too_large`) with a hint to narrow it or take the CSV or Excel file, which stream; so
 * is one of more than MAX_PDF_SHEETS sheets, each a page at least (a timesheet's people). It
 * is drawn with turns of the event loop between rows and pages (platform/event-loop.ts Pacer).
 * The built-in Helvetica covers Western European names (WinAnsi); REPORT_FONT names a font file
 * for any other script.
 */
import PDFDocument from 'pdfkit';
import { FpaError } from '../../platform/errors';
import { Pacer } from '../../platform/event-loop';
import { type Column, printed, type ReportDocument, type Row, type Sheet } from './table';

/** About 250 pages: a month's timesheets for eight people a page… or a year of exceptions for a department. */
export const MAX_PDF_ROWS = 10_000;

/**
 * Sheets a PDF draws at most: each starts a page of its own (a timesheet's person), so a
 * timesheet of one date for 10,000 people passed the row limit and came out as 10,000 pages.
 */
export const MAX_PDF_SHEETS = 1_000;

function tooManySheets(maxSheets: number): FpaError {
  return new FpaError(
    'report_too_large',
    `this report has more than ${maxSheets} people, a page each, too many for a PDF: narrow the area, or download the Excel file (every person's rows) or the daily report`,
    { max_sheets: maxSheets },
  );
}

function tooLarge(maxRows: number): FpaError {
  return new FpaError(
    'report_too_large',
    `this report has more than ${maxRows} rows, too many for a PDF: narrow the period or the area, or download the CSV or Excel file`,
    { max_rows: maxRows },
  );
}

const MARGIN = 36;
const FOOTER = 22;
const ROW = 13;
const BODY = 7.5;
/** A wrapped cell's further lines (BODY type): a totals row's notes or a day's flags that do not fit. */
const WRAPPED_LINE = 9;
/** Lines a text cell may take before it is cut with an ellipsis. */
const MAX_CELL_LINES = 3;
const GREY = '#555555';
const LINE = '#999999';

type Pdf = PDFKit.PDFDocument;
/** The two faces a report is printed in. */
type Face = 'Body' | 'Bold';

/** Font files for the PDF (REPORT_FONT, REPORT_FONT_BOLD); empty: the built-in Helvetica. */
export interface PdfFonts {
  regular: string;
  bold: string;
}

/** The characters Helvetica can print (WinAnsi: Latin-1 and a few typographic signs). */
const NOT_WIN_ANSI = '[^\\x20-\\x7e\\xa0-\\xff€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]';
const OUTSIDE = new RegExp(NOT_WIN_ANSI, 'gu');
const ANY_OUTSIDE = new RegExp(NOT_WIN_ANSI, 'u');

/** Latin letters with a stroke, which no decomposition takes to their base letter. */
const STROKED: Record<string, string> = { Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', Ħ: 'H', ħ: 'h', ı: 'i', Ŧ: 'T', ŧ: 't' };

/** Text Helvetica can print: accents it lacks dropped (ő → o, ł → l), other letters `?` (garbage otherwise). */
export function winAnsi(text: string): string {
  return text.replace(OUTSIDE, (c) => {
    const base = STROKED[c] ?? c.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
    return base !== c && !ANY_OUTSIDE.test(base) ? base : '?';
  });
}

/** Text cut to a width, with an ellipsis. */
function fit(pdf: Pdf, text: string, width: number): string {
  if (pdf.widthOfString(text) <= width) return text;
  let [lo, hi] = [0, text.length];
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (pdf.widthOfString(`${text.slice(0, mid)}…`) <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo)}…`;
}

/**
 * Text in at most `maxLines` lines of a width, broken between words (a word wider than the line
 * is cut), the last line cut with an ellipsis when the rest does not fit.
 */
function wrap(pdf: Pdf, text: string, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  let current = '';
  const words = text.split(' ');
  for (const [i, word] of words.entries()) {
    const tried = current === '' ? word : `${current} ${word}`;
    if (pdf.widthOfString(tried) <= width || current === '') {
      current = tried;
      continue;
    }
    if (lines.length === maxLines - 1) return [...lines, fit(pdf, `${current} ${words.slice(i).join(' ')}`, width)];
    lines.push(fit(pdf, current, width));
    current = word;
  }
  return [...lines, fit(pdf, current, width)];
}

class Layout {
  private y = 0;
  private rows = 0;
  private columns: Column[] = [];
  private widths: number[] = [];
  private sheet: Sheet | null = null;

  constructor(
    private readonly pdf: Pdf,
    /** The font file or built-in font of each face. */
    private readonly faces: Record<Face, string>,
    private readonly doc: ReportDocument,
    /** Text as the fonts can print it (winAnsi with the built-in Helvetica). */
    private readonly clean: (text: string) => string,
    private readonly maxRows: number,
  ) {}

  /**
   * The face's font, by its file or built-in name, which pdfkit keeps once loaded. Not by a name
   * given with registerFont: pdfkit (0.20) loads a registered font again on every use when its
   * own name already holds it (Helvetica, pdfkit's default font), and parsing Helvetica's metrics
   * at every row was most of a large PDF's time (four to five times that of the rest).
   */
  private font(face: Face): Pdf {
    return this.pdf.font(this.faces[face]);
  }

  private fit(text: string, width: number): string {
    return fit(this.pdf, this.clean(text), width);
  }

  private get left() {
    return MARGIN;
  }
  private get width() {
    return this.pdf.page.width - 2 * MARGIN;
  }
  private get bottom() {
    return this.pdf.page.height - MARGIN - FOOTER;
  }

  /** A new page with the report's heading; `continued` repeats the sheet's name and the table header. */
  page(continued: boolean): void {
    this.pdf.addPage();
    const { pdf, doc, left, width } = this;
    let y = MARGIN;
    this.font('Bold').fillColor('black').fontSize(13);
    pdf.text(this.fit(doc.company, width * 0.6), left, y, { lineBreak: false });
    this.font('Body').fontSize(9).fillColor(GREY);
    pdf.text(`Times in ${doc.timesIn}`, left, y + 3, { width, align: 'right', lineBreak: false });
    y += doc.company ? 18 : 2;
    this.font('Bold').fillColor('black').fontSize(11).text(doc.title, left, y, { lineBreak: false });
    this.font('Body')
      .fontSize(10)
      .text(`Period: ${doc.period}`, left, y + 1, { width, align: 'right', lineBreak: false });
    y += 15;
    pdf.fontSize(9).fillColor(GREY).text(doc.scope, left, y, { lineBreak: false });
    y += 13;
    pdf
      .moveTo(left, y)
      .lineTo(left + width, y)
      .lineWidth(0.7)
      .strokeColor(LINE)
      .stroke();
    this.y = y + 8;
    if (continued && this.sheet) {
      if (this.sheet.details.length > 0) this.line(`${this.sheet.name} (continued)`, 'Bold', 9);
      this.header();
    }
  }

  private line(text: string, font: Face, size: number, color = 'black'): void {
    this.font(font).fontSize(size).fillColor(color).text(this.fit(text, this.width), this.left, this.y, { lineBreak: false });
    this.y += size + 4;
  }

  /** Starts a sheet: a timesheet's person on a new page, headed by their name and details. */
  startSheet(sheet: Sheet, first: boolean): void {
    this.sheet = sheet;
    this.columns = sheet.columns.filter((c) => c.pdf !== false);
    if (first || sheet.signatures) this.page(false);
    this.widths = this.columnWidths();
    if (sheet.details.length > 0) {
      this.line(sheet.name, 'Bold', 11);
      for (const detail of sheet.details) this.line(detail, 'Body', 9, GREY);
      this.y += 2;
    }
    this.header();
  }

  /** Shares of the page by relative width, each at least as wide as its label (the text columns give way). */
  private columnWidths(): number[] {
    this.font('Bold').fontSize(BODY);
    const least = this.columns.map((c) => this.pdf.widthOfString(c.label) + 6);
    const units = this.columns.reduce((n, c) => n + c.width, 0);
    const widths = this.columns.map((c, i) => Math.max(least[i]!, (c.width / units) * this.width));
    const excess = widths.reduce((n, w) => n + w, 0) - this.width;
    const slack = widths.reduce((n, w, i) => n + (w - least[i]!), 0);
    return excess <= 0 || slack <= 0 ? widths : widths.map((w, i) => w - ((w - least[i]!) / slack) * excess);
  }

  private header(): void {
    const { pdf } = this;
    pdf
      .rect(this.left, this.y, this.width, ROW + 2)
      .fillColor('#e8e8e8')
      .fill();
    this.cells(
      this.cellLines(
        this.columns.map((c) => c.label),
        'Bold',
        false,
      ),
      'Bold',
      this.y + 4,
    );
    this.y += ROW + 2;
  }

  /** Each cell's lines: figures on one line, text wrapped between words (MAX_CELL_LINES). */
  private cellLines(texts: string[], font: Face, wrapText: boolean): string[][] {
    this.font(font).fontSize(BODY);
    return texts.map((text, i) => {
      const room = this.widths[i]! - 4;
      return wrapText && !this.numeric(i) ? wrap(this.pdf, this.clean(text), room, MAX_CELL_LINES) : [this.fit(text, room)];
    });
  }

  private numeric(column: number): boolean {
    const { kind } = this.columns[column]!;
    return kind === 'hours' || kind === 'count';
  }

  private cells(lines: string[][], font: Face, y: number): void {
    const { pdf } = this;
    this.font(font).fontSize(BODY).fillColor('black');
    let x = this.left;
    lines.forEach((cell, i) => {
      const w = this.widths[i]!;
      for (const [n, line] of cell.entries()) {
        pdf.text(line, x + 2, y + n * WRAPPED_LINE, { width: w - 4, align: this.numeric(i) ? 'right' : 'left', lineBreak: false });
      }
      x += w;
    });
  }

  /**
   * One row of the table (a new page first when it would not fit). A totals row (`bold`) is not
   * one of the rows the limit counts; the rows are counted before drawing (pdfBytes), and here
   * again for a report that could not say how many it has.
   */
  row(row: Row, all: readonly Column[], bold = false): void {
    if (!bold && ++this.rows > this.maxRows) throw tooLarge(this.maxRows);
    const font = bold ? 'Bold' : 'Body';
    const texts = all.flatMap((c, i) => (c.pdf === false ? [] : [printed(c, row.cells[i] ?? null, row.date)]));
    // A text that does not fit (a totals row's "days worked, on leave…", a day's flags) wraps: the row grows.
    const lines = this.cellLines(texts, font, true);
    const height = ROW + (Math.max(...lines.map((cell) => cell.length)) - 1) * WRAPPED_LINE;
    if (this.y + height > this.bottom) this.page(true);
    if (bold)
      this.pdf
        .moveTo(this.left, this.y)
        .lineTo(this.left + this.width, this.y)
        .lineWidth(0.7)
        .strokeColor('black')
        .stroke();
    else if (this.rows % 2 === 0) this.pdf.rect(this.left, this.y, this.width, height).fillColor('#f5f5f5').fill();
    this.cells(lines, font, this.y + 3);
    this.y += height;
  }

  /** Lines of small print under a table (what marks mean). */
  notes(lines: readonly string[]): void {
    if (lines.length === 0) return;
    if (this.y + 6 + lines.length * 10 > this.bottom) this.page(false);
    this.y += 6;
    for (const text of lines) this.line(text, 'Body', 7, GREY);
  }

  /** The employee's and the employer's signature lines, side by side. */
  signatures(person: string): void {
    const height = 78;
    if (this.y + height > this.bottom) this.page(false);
    const { pdf, left, width } = this;
    this.y += 10;
    this.font('Body').fontSize(8).fillColor('black');
    pdf.text('I confirm that this record of my working time is complete and correct.', left, this.y, { lineBreak: false });
    const lineY = this.y + 42;
    const half = (width - 40) / 2;
    for (const [i, label] of [`Employee: ${person}`, 'Employer (name and function)'].entries()) {
      const x = left + i * (half + 40);
      pdf
        .moveTo(x, lineY)
        .lineTo(x + half, lineY)
        .lineWidth(0.7)
        .strokeColor('black')
        .stroke();
      pdf.text(this.fit(`${label}`, half), x, lineY + 4, { lineBreak: false });
      pdf
        .fillColor(GREY)
        .text('Signature and date', x, lineY + 15, { lineBreak: false })
        .fillColor('black');
    }
    this.y = lineY + 30;
  }

  /** "Page n of m" and when it was made, on every page (the pages are buffered until now), a turn of the event loop every few pages. */
  async footers(generated: string, pacer: Pacer): Promise<void> {
    const { pdf } = this;
    const range = pdf.bufferedPageRange();
    for (let i = 0; i < range.count; i++) {
      pdf.switchToPage(range.start + i);
      // Below the bottom margin: without this, pdfkit would start a new page for the text.
      pdf.page.margins.bottom = 0;
      const y = pdf.page.height - MARGIN - 10;
      this.font('Body').fontSize(8).fillColor(GREY);
      pdf.text(`${this.doc.title}, ${this.doc.period}. Generated ${generated}`, MARGIN, y, { lineBreak: false });
      pdf.text(`Page ${i + 1} of ${range.count}`, MARGIN, y, { width: pdf.page.width - 2 * MARGIN, align: 'right', lineBreak: false });
      await pacer.turn();
    }
  }
}

/**
 * Writes the buffered pages out one at a time, with turns of the event loop between: pdfkit's
 * end() flushes every buffered page in one call (compressing each), and a 10,000-row PDF's 285
 * pages held the thread 140 ms on a busy machine. pdfkit has no public way to flush part of its
 * buffer, so the buffer flushPages empties (`_pageBuffer`) is handed to it a page at a time; with
 * a pdfkit without one, end() flushes them all as before.
 */
async function flushInTurns(pdf: Pdf, pacer: Pacer): Promise<void> {
  const buffered: unknown = Reflect.get(pdf, '_pageBuffer');
  if (!Array.isArray(buffered)) return;
  for (const page of [...buffered]) {
    Reflect.set(pdf, '_pageBuffer', [page]);
    pdf.flushPages();
    await pacer.turn();
  }
}

export async function pdfBytes(
  doc: ReportDocument,
  generated: string,
  portrait: boolean,
  options: { fonts?: PdfFonts; maxRows?: number; maxSheets?: number } = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const fonts = options.fonts ?? { regular: '', bold: '' };
  const maxRows = options.maxRows ?? MAX_PDF_ROWS;
  const maxSheets = options.maxSheets ?? MAX_PDF_SHEETS;
  // Refused before anything is drawn: the sheets (a page each), then the rows (people, a person's dates, exceptions).
  if (doc.sheetCount && (await doc.sheetCount(maxSheets + 1)) > maxSheets) throw tooManySheets(maxSheets);
  if (doc.rowCount && (await doc.rowCount(maxRows)) > maxRows) throw tooLarge(maxRows);
  const pdf = new PDFDocument({
    size: 'A4',
    layout: portrait ? 'portrait' : 'landscape',
    margin: MARGIN,
    bufferPages: true,
    autoFirstPage: false,
    info: { Title: `${doc.title} ${doc.period}`, Author: doc.company || 'Fingerprint Attendance', Subject: doc.scope, Creator: 'Fingerprint Attendance' },
  });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    pdf.on('end', resolve);
    pdf.on('error', reject);
  });
  // Fonts by role: a configured file, or the built-in Helvetica (pdfkit takes a standard font's name as its source).
  const faces = { Body: fonts.regular || 'Helvetica', Bold: fonts.bold || fonts.regular || 'Helvetica-Bold' };
  const layout = new Layout(pdf, faces, doc, fonts.regular ? (text) => text : winAnsi, maxRows);
  // Drawing is this thread's work: a turn of the event loop every few rows (terminals still poll).
  const pacer = new Pacer();
  let first = true;
  for await (const sheet of doc.sheets) {
    layout.startSheet(sheet, first);
    first = false;
    for await (const row of sheet.rows) {
      layout.row(row, sheet.columns);
      await pacer.turn();
    }
    const totals = sheet.totals?.();
    if (totals) layout.row(totals, sheet.columns, true);
    layout.notes(doc.notes);
    if (sheet.signatures) layout.signatures(sheet.name);
  }
  if (first) {
    layout.page(false);
    layout.notes(['Nothing to report for this period and scope.']);
  }
  await layout.footers(generated, pacer);
  await flushInTurns(pdf, pacer);
  pdf.end();
  await ended;
  return new Uint8Array(Buffer.concat(chunks));
}
