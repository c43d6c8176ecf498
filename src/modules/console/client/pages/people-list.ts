/**
 * The People page's list: search (a part of a name, an employee id, a PIN, a card), filters
 * (area, status, consent, fingerprints), a sort and pages of 50, all answered by `enrollees/`.
 * Typing searches as you type (after a short pause); every change starts again at page 1.
 */

import type { EnrolleeView } from '../../../enrollees';
import { api, type List, query } from '../api';
import { badge, button, field, h, input, replace, section, select, table } from '../dom';
import { fingerName } from '../format';

const PAGE = 50;
const TYPING_PAUSE_MS = 250;

/** Longer than 60 lines on purpose: the filters and the pages share their state through closures. */
export async function peopleList(): Promise<HTMLElement> {
  const areas = await api
    .get<List<{ name: string }>>('areas/')
    .then((l) => l.results.map((a) => a.name))
    .catch(() => [] as string[]);
  const search = input({ type: 'search', autocomplete: 'off', placeholder: 'Name, employee ID, PIN or card', 'aria-controls': 'people-results' });
  const area = select([['', 'All areas'], ...areas.map((a): [string, string] => [a, a])]);
  const status = select([
    ['', 'Active and deactivated'],
    ['active', 'Active'],
    ['deactivated', 'Deactivated'],
  ]);
  const consent = select([
    ['', 'Any'],
    ['given', 'Given'],
    ['missing', 'Not recorded'],
  ]);
  const biometrics = select([
    ['', 'Any'],
    ['some', 'Enrolled'],
    ['none', 'None yet'],
  ]);
  const sort = select([
    ['name', 'Name'],
    ['employee', 'Employee ID'],
    ['pin', 'PIN'],
    ['-created_at', 'Newest first'],
  ]);
  const results = h('div', { id: 'people-results', 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'inline-form', role: 'search', 'aria-label': 'Find people' },
    field('Search', search),
    field('Area', area),
    field('Status', status),
    field('Consent', consent),
    field('Fingerprints', biometrics),
    field('Sort by', sort),
  );
  // Cursors of the pages seen so far: Previous goes back one.
  let cursors: (string | null)[] = [null];
  let serial = 0;
  const load = async (page: number) => {
    const mine = ++serial;
    const list = await api.get<List<EnrolleeView>>(
      `enrollees/${query({
        search: search.value.trim(),
        area: area.value,
        status: status.value,
        consent: consent.value,
        biometrics: biometrics.value,
        sort: sort.value,
        limit: PAGE,
        cursor: cursors[page],
      })}`,
    );
    // An answer to an older search arriving late is dropped.
    if (mine !== serial) return;
    cursors = cursors.slice(0, page + 1);
    cursors.push(list.next_cursor);
    const first = page * PAGE + 1;
    replace(
      results,
      table(
        ['Name', 'Employee ID', 'PIN', 'Card', 'Areas', 'Consent', 'Fingerprints', 'Status'],
        list.results.map((e) => [
          h('a', { href: `#/people/${e.id}` }, e.display_name),
          e.employee,
          e.device_pin,
          e.card ?? '—',
          e.areas.join(', '),
          e.consent ? badge(`Given (${e.consent.version})`, 'ok') : badge('Not recorded', 'warn'),
          e.fingers.length > 0 ? e.fingers.map(fingerName).join(', ') : 'None',
          e.status === 'active' ? badge('Active', 'ok') : badge('Deactivated', 'muted'),
        ]),
        search.value.trim() ? `Nobody matches “${search.value.trim()}”.` : 'Nobody matches.',
      ),
      h(
        'div',
        { class: 'actions pager' },
        page > 0 ? button('Previous page', () => load(page - 1)) : null,
        list.results.length > 0 ? h('span', { class: 'muted' }, `People ${first} to ${first + list.results.length - 1}`) : null,
        list.next_cursor ? button('Next page', () => load(page + 1)) : null,
      ),
    );
  };
  const again = () => {
    cursors = [null];
    void load(0);
  };
  let typing: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(again, TYPING_PAUSE_MS);
  });
  for (const control of [area, status, consent, biometrics, sort]) control.addEventListener('change', again);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(typing);
    again();
  });
  await load(0);
  return section('Enrolled people', form, results);
}
