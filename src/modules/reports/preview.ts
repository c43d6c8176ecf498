/**
 * A report's first rows as the console shows them before a download: the same document as the
 * files (table.ts), its cells as the PDF prints them (`printed`: times `HH:MM`, durations
 * `H:MM`, words for codes), the columns the PDF has. Reading stops after `limit` rows, so a
 * preview of a large area's month costs what its first page does.
 */
import type { ReportPreviewView } from './model';
import { printed, type ReportDocument, type Row, type Sheet } from './table';

export async function previewOf(doc: ReportDocument, limit: number): Promise<ReportPreviewView> {
  const sheets: ReportPreviewView['sheets'] = [];
  let left = limit;
  let truncated = false;
  for await (const sheet of doc.sheets) {
    if (left === 0) {
      truncated = true;
      break;
    }
    const shown = sheet.columns.flatMap((c, i) => (c.pdf === false ? [] : [i]));
    const text = (row: Row) => shown.map((i) => printed(sheet.columns[i]!, row.cells[i] ?? null, row.date));
    const rows: string[][] = [];
    const whole = await readUpTo(sheet, left, (row) => rows.push(text(row)));
    left -= rows.length;
    truncated ||= !whole;
    // Totals only of a sheet read to its end (they are of every row).
    const totals = whole ? (sheet.totals?.() ?? null) : null;
    sheets.push({
      name: sheet.name,
      details: sheet.details,
      columns: shown.map((i) => ({ key: sheet.columns[i]!.key, label: sheet.columns[i]!.label })),
      rows,
      totals: totals ? text(totals) : null,
    });
  }
  return { title: doc.title, period: doc.period, scope: doc.scope, time_zone: doc.timeZone, times_in: doc.timesIn, notes: doc.notes, sheets, truncated };
}

/** Reads a sheet's rows into `take`, at most `limit`; true when the sheet ended within them. */
async function readUpTo(sheet: Sheet, limit: number, take: (row: Row) => void): Promise<boolean> {
  let read = 0;
  for await (const row of sheet.rows) {
    if (read === limit) return false;
    take(row);
    read++;
  }
  return true;
}
