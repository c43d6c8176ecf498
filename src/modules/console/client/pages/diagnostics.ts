/** What an installer must fix (`diagnostics/`), as the overview and a terminal's page show it. */
import type { DiagnosticView } from '../../../diagnostics';
import { badge, h } from '../dom';
import { dateTime } from '../format';

/** How the API's message says a time, for a reader of the API alone ("since 2026-11-28 14:09 (Europe/Berlin)"). */
const API_WALL_TIMES = /\d{4}-\d{2}-\d{2} \d{2}:\d{2} \([^)]+\)/g;

/**
 * The message as the console says it, and whether `since` is still to be said after it. A
 * message with one time says `since`: the console's form takes its place. One with several
 * (commands failing since one time, deletes refused since another) is left as the API said it,
 * each time its own, since `since` is only the earliest of them.
 */
export function diagnosticWords(d: Pick<DiagnosticView, 'message' | 'since'>, format: (iso: string) => string): { message: string; sinceAfter: boolean } {
  const times = d.message.match(API_WALL_TIMES)?.length ?? 0;
  if (d.since === null) return { message: d.message, sinceAfter: false };
  if (times === 1) return { message: d.message.replace(API_WALL_TIMES, format(d.since)), sinceAfter: false };
  return { message: d.message, sinceAfter: times === 0 };
}

/**
 * One diagnostic: what is wrong, linking to the terminal, and the fix in plain words. Its time is
 * said once, as the console says every time (diagnosticWords).
 */
export function diagnosticItem(d: DiagnosticView): HTMLElement {
  const { message, sinceAfter } = diagnosticWords(d, dateTime);
  return h(
    'li',
    { class: `diagnostic ${d.severity}`, 'data-kind': d.kind },
    badge(d.severity === 'error' ? 'Fix now' : 'Check', d.severity === 'error' ? 'bad' : 'warn'),
    ' ',
    // A refused registration's serial has no terminal page (it was never stored): the list of terminals.
    d.kind === 'registration_refused'
      ? h('a', { href: '#/terminals' }, 'Terminals')
      : h('a', { href: `#/terminals/${encodeURIComponent(d.device)}` }, d.device_name ?? d.device),
    `: ${message}`,
    d.since && sinceAfter ? h('span', { class: 'muted' }, ` (since ${dateTime(d.since)})`) : null,
    h('p', { class: 'fix' }, h('strong', {}, 'Fix: '), d.fix),
  );
}
