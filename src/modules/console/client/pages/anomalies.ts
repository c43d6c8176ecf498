/**
 * Anomalies (`anomalies/`): punches that deserve a look, with filters (dates, area, kind). They
 * never change attendance; each links to the person.
 */
import type { AnomalyView } from '../../../anomalies';
import { api, type List, query } from '../api';
import { areaSelect } from '../area-picker';
import { badge, field, h, input, replace, section, select, table } from '../dom';
import { addDays, dateTime, localDate } from '../format';
import { peopleNames } from '../people-names';

const KINDS: [string, string][] = [
  ['', 'Every kind'],
  ['verified_without_biometric', 'PIN or card, fingerprint enrolled'],
  ['impossible_travel', 'Impossible travel'],
  ['while_on_leave', 'Punch while on leave'],
  ['repeated_punch', 'Repeated punch'],
];

const label = (kind: string) => KINDS.find(([k]) => k === kind)?.[1] ?? kind;

const VERIFY: Record<number, string> = { 2: 'PIN', 3: 'password', 4: 'card', 7: 'card or password', 11: 'card and password' };

/** What happened, in plain words. */
function explain(a: AnomalyView): string {
  const d = a.details as Record<string, string | number | string[]>;
  switch (a.kind) {
    case 'verified_without_biometric':
      return `Verified by ${VERIFY[Number(d.verify_type)] ?? `mode ${d.verify_type}`}, though ${(d.biometrics as string[]).join(', ')} is enrolled.`;
    case 'impossible_travel':
      return `${d.minutes_apart} min from a punch at ${d.other_device} (${d.from_area} → ${d.to_area} takes ${d.minutes_needed} min).`;
    case 'while_on_leave':
      return `On ${d.leave} leave that day.`;
    default:
      return `${d.seconds_apart} s after the previous punch (window ${d.window_seconds} s).`;
  }
}

export async function anomaliesPage(main: HTMLElement): Promise<undefined> {
  // The people named are asked for by id as anomalies are shown (never everyone's list first).
  const names = peopleNames();
  const nameOf = (a: AnomalyView) => names.get(a.enrollee)?.display_name ?? a.employee ?? a.enrollee;
  const today = localDate();
  const from = input({ type: 'date', value: addDays(today, -30) });
  const to = input({ type: 'date', value: today });
  const area = await areaSelect({ any: 'All areas', create: false });
  const kind = select(KINDS);
  const results = h('div');
  const load = async () => {
    const list = await api.get<List<AnomalyView>>(`anomalies/${query({ from: from.value, to: to.value, area: area.value, kind: kind.value, limit: 500 })}`);
    await names.load(list.results.map((a) => a.enrollee));
    replace(
      results,
      table(
        ['When', 'Person', 'What', 'Terminal', 'Details'],
        list.results.map((a) => [
          dateTime(a.at),
          h('a', { href: `#/people/${encodeURIComponent(a.enrollee)}` }, nameOf(a)),
          badge(label(a.kind), a.kind === 'impossible_travel' || a.kind === 'verified_without_biometric' ? 'bad' : 'warn'),
          a.device ?? 'Entered by hand',
          explain(a),
        ]),
        'Nothing to look at in these dates.',
        'Punches that deserve a look, newest first',
      ),
    );
  };
  const filters = h(
    'form',
    { class: 'inline-form', role: 'search' },
    field('From', from),
    field('To', to),
    field('Area', area),
    field('Kind', kind),
    h('button', { type: 'submit' }, 'Show'),
  );
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    void load();
  });
  replace(
    main,
    h('h1', {}, 'Anomalies'),
    h(
      'p',
      { class: 'lede' },
      'Punches that deserve a look: someone verified by PIN or card although a fingerprint is enrolled (punching for someone else?), two sites too far apart for the time between them (the travel times the installer set), a punch on a day of leave, the same person again within moments. They never change attendance by themselves: look, then correct the day if needed.',
    ),
    section('Find anomalies', filters, results),
  );
  await load();
  return undefined;
}
