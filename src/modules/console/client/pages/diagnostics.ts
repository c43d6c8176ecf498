/** What an installer must fix (`diagnostics/`), as the overview and a terminal's page show it. */
import type { DiagnosticView } from '../../../diagnostics';
import { badge, h } from '../dom';
import { dateTime } from '../format';

/** How the API's message says a time, for a reader of the API alone ("since 2026-11-28 14:09 (Europe/Berlin)"). */
const API_WALL_TIME = /\d{4}-\d{2}-\d{2} \d{2}:\d{2} \([^)]+\)/;

/**
 * One diagnostic: what is wrong, linking to the terminal, and the fix in plain words. Its time is
 * said once, as the console says every time: in the message when the message says it (the API's
 * form replaced), else after it ("since …").
 */
export function diagnosticItem(d: DiagnosticView): HTMLElement {
  const inMessage = d.since !== null && API_WALL_TIME.test(d.message);
  const message = d.since && inMessage ? d.message.replace(API_WALL_TIME, dateTime(d.since)) : d.message;
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
    d.since && !inMessage ? h('span', { class: 'muted' }, ` (since ${dateTime(d.since)})`) : null,
    h('p', { class: 'fix' }, h('strong', {}, 'Fix: '), d.fix),
  );
}
