/** A report's first rows on screen (`reports/{kind}/preview/`), as the PDF prints them: a table per sheet. */
import type { ReportPreviewView } from '../../../reports';
import { h, table } from '../dom';
import { dateSpan, localDay, weekdayOf } from '../format';

type Sheet = ReportPreviewView['sheets'][number];

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The report's period as the API prints it (`2026-11-01 to 2026-11-29`, or one date), in the console's one date format. */
function periodShown(period: string): string {
  const [, from, to] = /^(\d{4}-\d{2}-\d{2})(?: to (\d{4}-\d{2}-\d{2}))?$/.exec(period) ?? [];
  return from ? dateSpan(from, to ?? from) : period;
}

/**
 * A row's cells as the page shows them: the files keep ISO dates and English weekdays (for
 * spreadsheets and payroll), the screen the browser's language, as every other date of the
 * console (`1 Nov 2026`, `Sun`; `Nov 1, 2026`, `Sun` in en-US; `So` in German).
 */
function shownRow(columns: Sheet['columns'], row: string[]): string[] {
  const date = row[columns.findIndex((c) => c.key === 'date')];
  return row.map((cell, i) => {
    const key = columns[i]?.key;
    if (key === 'date' && ISO_DATE.test(cell)) return localDay(cell);
    if (key === 'weekday' && date && ISO_DATE.test(date)) return weekdayOf(date);
    return cell;
  });
}

export function previewOf(report: ReportPreviewView): HTMLElement {
  const rows = report.sheets.reduce((n, s) => n + s.rows.length, 0);
  const several = report.sheets.length > 1;
  return h(
    'div',
    { class: 'report-preview' },
    h('h3', {}, `${report.title}, ${periodShown(report.period)} — ${report.scope}`),
    h(
      'p',
      { class: 'muted' },
      report.truncated
        ? `The first ${rows} rows; the files have them all. Times in ${report.times_in}.`
        : `The whole report: ${rows === 1 ? '1 row' : `${rows} rows`}. Times in ${report.times_in}.`,
    ),
    report.sheets.length === 0 ? h('p', {}, 'Nobody to report on with these choices.') : null,
    ...report.sheets.map((sheet) =>
      h(
        'div',
        { class: 'report-sheet' },
        several || sheet.details.length > 0 ? h('h4', {}, sheet.name) : null,
        sheet.details.length > 0 ? h('p', { class: 'muted' }, sheet.details.join(' · ')) : null,
        withTotals(
          table(
            sheet.columns.map((c) => c.label),
            sheet.rows.map((row) => shownRow(sheet.columns, row)),
            'No rows.',
          ),
          sheet.totals,
        ),
      ),
    ),
    report.notes.length > 0 ? h('ul', { class: 'muted' }, ...report.notes.map((n) => h('li', {}, n))) : null,
  );
}

/** The totals row in the table's foot, its first cell a row header ("Total"), as a table reads it. */
function withTotals(drawn: HTMLElement, totals: string[] | null): HTMLElement {
  const grid = drawn.querySelector('table');
  if (!grid || !totals) return drawn;
  const [label, ...cells] = totals;
  grid.append(h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, label ?? ''), ...cells.map((c) => h('td', {}, c)))));
  return drawn;
}
