/**
 * A terminal's punch completeness (`devices/{sn}/completeness/`): a month calendar, one cell per
 * local date of the terminal with its status (complete, being recovered, gap, unknown), the
 * punches stored and what the terminal reported, and the re-uploads asked of it.
 */
import type { CompletenessView } from '../../../completeness';
import { api, can } from '../api';
import { badge, button, definitionList, h, replace, section, table, tableWrap } from '../dom';
import { addDays, count, dateSpan, dateTime, weekdayName, words } from '../format';

type Day = CompletenessView['days'][number];

const STATUS: Record<Day['status'], { label: string; tone: 'ok' | 'warn' | 'bad' | 'muted' | 'info' }> = {
  complete: { label: 'Complete', tone: 'ok' },
  recovering: { label: 'Recovering', tone: 'info' },
  gap: { label: 'Gap', tone: 'bad' },
  possible_gap: { label: 'Possible gap', tone: 'warn' },
  unknown: { label: 'Unknown', tone: 'muted' },
};

/** Monday first, in the browser's language. */
const WEEKDAYS = [1, 2, 3, 4, 5, 6, 0].map((d) => weekdayName(d));

/** The section, filled once its answer arrives (the rest of the terminal page does not wait). */
export function completenessSection(serial: string): HTMLElement {
  const body = h('div', {}, h('p', { class: 'loading' }, 'Loading…'));
  const show = async (to?: string) => {
    const report = await api.get<CompletenessView>(`devices/${encodeURIComponent(serial)}/completeness/${to ? `?from=${addDays(to, -34)}&to=${to}` : ''}`);
    replace(body, ...render(report, show));
  };
  show().catch((error) => replace(body, h('p', { class: 'error' }, error instanceof Error ? error.message : String(error))));
  return section('Punch completeness', body);
}

function render(report: CompletenessView, show: (to?: string) => Promise<void>): (HTMLElement | string)[] {
  const counts = report.counts;
  const gaps = report.days.filter((d) => d.status === 'gap').length;
  const possible = report.days.filter((d) => d.status === 'possible_gap').length;
  const summary = h(
    'p',
    { class: 'lede' },
    counts.missing !== null
      ? badge(`${count(counts.missing, 'punch', 'punches')} missing`, 'bad')
      : gaps > 0
        ? badge(`${count(gaps, 'day', 'days')} with a gap`, 'bad')
        : possible > 0
          ? badge(`${count(possible, 'day', 'days')} that may have a gap`, 'warn')
          : counts.agreed_at === null
            ? // Nothing compared yet (the terminal has not reported its count): no verdict to give.
              badge('Not checked yet', 'muted')
            : badge('Nothing missing', 'ok'),
    ' ',
    'Whether every punch this terminal holds is stored here. It reports how many records it holds; when that is more than the punches stored from it, it is asked to send the missing range again (duplicates are ignored).',
  );
  const lost: [string, string][] =
    counts.missing_at_clear === null
      ? []
      : [['Lost when its log was cleared', `${count(counts.missing_at_clear, 'punch', 'punches')} (${dateTime(counts.cleared_at)})`]];
  const facts = definitionList([
    ['Records it reported', counts.reported === null ? 'Not reported yet' : `${counts.reported} (${dateTime(counts.reported_at)})`],
    ['Last in agreement', counts.agreed_at ? dateTime(counts.agreed_at) : 'Not yet'],
    ...lost,
  ]);
  const nav = h(
    'div',
    { class: 'actions' },
    button('Earlier', () => show(addDays(report.from, -1))),
    button('Later', () => show(addDays(report.to, 35))),
  );
  const refused = report.recoveries.find((r) => r.status === 'failed');
  const advice =
    refused && counts.missing !== null
      ? h(
          'p',
          { class: 'error' },
          `The terminal refused the re-upload${refused.return_code === null ? ' or never answered' : ` (code ${refused.return_code})`}. It is asked again within the hour. If its firmware cannot re-send (code -1002), ${
            can('POST devices/{sn}/punches/import/')
              ? 'save its punches to a USB stick and import the file below (Punches from a USB stick)'
              : 'save its punches to a USB stick at the terminal and hand the file to HR, who import it on this page'
          }.`,
        )
      : null;
  return [summary, ...(advice ? [advice] : []), facts, nav, calendar(report.days), legend(), recoveries(report)];
}

/** Weeks as rows, Monday first; each date a cell with its status and counts. */
function calendar(days: readonly Day[]): HTMLElement {
  if (days.length === 0) return h('p', { class: 'empty' }, 'No dates.');
  const first = days[0]!.date;
  const lead = (new Date(`${first}T00:00:00Z`).getUTCDay() + 6) % 7;
  const cells: (HTMLElement | null)[] = [...Array.from({ length: lead }, () => null), ...days.map(cell)];
  const rows: HTMLElement[] = [];
  for (let i = 0; i < cells.length; i += 7) {
    const week = cells.slice(i, i + 7);
    while (week.length < 7) week.push(null);
    rows.push(h('tr', {}, ...week.map((c) => c ?? h('td', { class: 'cal-empty' }))));
  }
  return tableWrap(
    h(
      'table',
      { class: 'completeness-calendar', id: 'completeness-calendar' },
      h('caption', {}, `Dates ${dateSpan(days[0]!.date, days.at(-1)!.date)}, the terminal’s own calendar`),
      h('thead', {}, h('tr', {}, ...WEEKDAYS.map((d) => h('th', { scope: 'col' }, d)))),
      h('tbody', {}, ...rows),
    ),
  );
}

function cell(day: Day): HTMLElement {
  const status = STATUS[day.status];
  const reported =
    day.reported === null ? 'reported: not known' : `reported ${day.reported}${day.reported_by === 'reupload' ? ` (re-sent${partOf(day)})` : ''}`;
  return h(
    'td',
    { class: `cal-day ${day.status}`, 'data-date': day.date, 'data-status': day.status },
    h('div', { class: 'cal-date' }, day.date.slice(8)),
    badge(status.label, status.tone),
    h('div', { class: 'cal-counts' }, `${day.stored} stored`),
    day.status === 'unknown' ? null : h('div', { class: 'cal-counts muted' }, reported),
    day.recovered > 0 ? h('div', { class: 'cal-counts' }, `${day.recovered} recovered`) : null,
  );
}

/** The hours a re-upload's count covers, when it asked for only part of the date. */
function partOf(day: Day): string {
  const from = day.reported_from?.slice(11, 16) ?? '00:00';
  const to = day.reported_to?.slice(11, 16) ?? '23:59';
  return from === '00:00' && to === '23:59' ? '' : `, ${from}–${to}`;
}

function legend(): HTMLElement {
  return h(
    'p',
    { class: 'muted' },
    'Complete: every record the terminal holds for the date is stored. Recovering: it was asked to send them again. Gap: it holds records of the date not stored here. Possible gap: records are missing and this is one of the dates they may bear (which one is not known). Unknown: it has said nothing since, or was not connected then.',
  );
}

function recoveries(report: CompletenessView): HTMLElement {
  return h(
    'div',
    { id: 'completeness-recoveries' },
    h('h3', {}, 'Re-uploads asked'),
    table(
      ['Asked', 'Why', 'Range (terminal time)', 'Status', 'Missing', 'Recovered'],
      report.recoveries.map((r) => [
        dateTime(r.queued_at),
        words(r.reason),
        `${r.from} – ${r.to}`,
        badge(words(r.status), r.status === 'done' ? 'ok' : r.status === 'failed' ? 'bad' : 'info'),
        r.missing === null ? '—' : String(r.missing),
        r.recovered === null ? '—' : String(r.recovered),
      ]),
      'None asked in these dates.',
    ),
  );
}
