/** A report's first rows on screen (`reports/{kind}/preview/`), as the PDF prints them: a table per sheet. */
import type { ReportPreviewView } from '../../../reports';
import { h, table } from '../dom';

export function previewOf(report: ReportPreviewView): HTMLElement {
  const rows = report.sheets.reduce((n, s) => n + s.rows.length, 0);
  const several = report.sheets.length > 1;
  return h(
    'div',
    { class: 'report-preview' },
    h('h3', {}, `${report.title}, ${report.period} — ${report.scope}`),
    h(
      'p',
      { class: 'muted' },
      report.truncated
        ? `The first ${rows} rows; the files have them all. Times in ${report.time_zone}.`
        : `The whole report: ${rows === 1 ? '1 row' : `${rows} rows`}. Times in ${report.time_zone}.`,
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
            sheet.rows,
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
