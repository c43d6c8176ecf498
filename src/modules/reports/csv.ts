/**
 * A report as CSV: one header row of stable snake-case keys, then one record per row of every
 * sheet (a timesheet of an area: everyone's rows, each naming the employee). Durations are
 * decimal hours with two places of their whole minutes (41 min 42 s: 0.68, the PDF's 0:41),
 * times local wall times `YYYY-MM-DD HH:MM:SS`, statuses and
 * flags their codes. No totals row: a CSV is for machines, which add up themselves. Streamed,
 * with a turn of the event loop every few rows (platform/event-loop.ts `Pacer`).
 */
import { csvField, csvRow, csvText } from '../../platform/csv';
import { Pacer } from '../../platform/event-loop';
import { type Cell, type Column, decimalHours, type ReportDocument } from './table';

function field(column: Column, value: Cell): string {
  if (value === null) return '';
  switch (column.kind) {
    case 'hours':
      return decimalHours(Number(value)).toFixed(2);
    case 'count':
      return String(value);
    case 'text':
      return csvText(String(value));
    default:
      return csvField(value);
  }
}

export function csvStream(doc: ReportDocument): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  async function* lines(): AsyncGenerator<string> {
    // The rows are built on this thread: a turn of the event loop every few of them.
    const pacer = new Pacer();
    let header = false;
    for await (const sheet of doc.sheets) {
      if (!header) {
        header = true;
        yield csvRow(sheet.columns.map((c) => c.key));
      }
      let text = '';
      for await (const row of sheet.rows) {
        text += csvRow(row.cells.map((value, i) => field(sheet.columns[i]!, value)));
        if (text.length > 64 * 1024) {
          yield text;
          text = '';
        }
        await pacer.turn();
      }
      if (text !== '') yield text;
    }
    // An empty report still names its columns.
    if (!header) yield csvRow(doc.emptyColumns.map((c) => c.key));
  }
  const it = lines();
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      const next = await it.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    cancel: async () => {
      await it.return(undefined);
    },
  });
}
