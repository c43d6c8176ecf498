/** What an installer must fix (`diagnostics/`), as the overview and a terminal's page show it. */
import type { DiagnosticView } from '../../../diagnostics';
import { badge, h } from '../dom';
import { dateTime } from '../format';

/** One diagnostic: what is wrong, linking to the terminal, and the fix in plain words. */
export function diagnosticItem(d: DiagnosticView): HTMLElement {
  return h(
    'li',
    { class: `diagnostic ${d.severity}`, 'data-kind': d.kind },
    badge(d.severity === 'error' ? 'Fix now' : 'Check', d.severity === 'error' ? 'bad' : 'warn'),
    ' ',
    // A refused registration's serial has no terminal page (it was never stored): the list of terminals.
    d.kind === 'registration_refused'
      ? h('a', { href: '#/terminals' }, 'Terminals')
      : h('a', { href: `#/terminals/${encodeURIComponent(d.device)}` }, d.device_name ?? d.device),
    `: ${d.message}`,
    d.since ? h('span', { class: 'muted' }, ` (since ${dateTime(d.since)})`) : null,
    h('p', { class: 'fix' }, h('strong', {}, 'Fix: '), d.fix),
  );
}
