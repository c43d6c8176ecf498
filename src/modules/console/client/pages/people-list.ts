/**
 * The People page's list: search (a part of a name, an employee id, a PIN, a card), filters
 * (area, status, consent, fingerprints), a sort and pages of 50, all answered by `enrollees/`.
 * Typing searches as you type (after a short pause); every change starts again at page 1.
 */

import type { EnrolleeView } from '../../../enrollees';
import { api, everyRow, type List, query } from '../api';
import { badge, button, field, h, input, replace, section, select, table } from '../dom';
import { biometricPart, byKind, count, dateTime } from '../format';

const PAGE = 50;
const TYPING_PAUSE_MS = 250;

export async function peopleList(): Promise<HTMLElement> {
  const areas = await everyRow<{ name: string }>('areas/')
    .then((l) => l.map((a) => a.name))
    .catch(() => [] as string[]);
  const filters = filterControls(areas);
  // Not a live region: each redraw of the table and its pager was read out whole. A short status
  // beside it says what was found, as the person picker does.
  const results = h('div', { id: 'people-results' });
  const found = h('p', { class: 'visually-hidden', role: 'status', id: 'people-found' });
  const form = filterForm(filters);
  // Cursors of the pages seen so far: Previous goes back one.
  let cursors: (string | null)[] = [null];
  let serial = 0;
  const load = async (page: number) => {
    const mine = ++serial;
    const list = await api.get<List<EnrolleeView>>(peopleQuery(filters, cursors[page]));
    // An answer to an older search arriving late is dropped.
    if (mine !== serial) return;
    cursors = cursors.slice(0, page + 1);
    cursors.push(list.next_cursor);
    const narrowed = [filters.area, filters.status, filters.consent, filters.biometrics].some((f) => f.value !== '');
    replace(results, resultsTable(list.results, filters.search.value.trim(), narrowed), pager(page, list, load));
    found.textContent = foundSaid(page, list);
  };
  const again = () => {
    cursors = [null];
    void load(0);
  };
  searchOnChange(filters, form, again);
  await load(0);
  return section('People', form, found, results);
}

function filterControls(areas: string[]) {
  return {
    search: input({ type: 'search', autocomplete: 'off', placeholder: 'Name, employee ID, PIN or card', 'aria-controls': 'people-results' }),
    area: select([['', 'All areas'], ...areas.map((a): [string, string] => [a, a])]),
    status: select([
      ['', 'Active and deactivated'],
      ['active', 'Active'],
      ['deactivated', 'Deactivated'],
    ]),
    consent: select([
      ['', 'Any'],
      ['given', 'Given'],
      ['missing', 'None (never given, or withdrawn)'],
    ]),
    biometrics: select([
      ['', 'Any'],
      ['some', 'Enrolled'],
      ['none', 'None yet'],
    ]),
    sort: select([
      ['name', 'Name'],
      ['employee', 'Employee ID'],
      ['pin', 'PIN'],
      ['-created_at', 'Newest first'],
    ]),
  };
}

type Filters = ReturnType<typeof filterControls>;

function filterForm(f: Filters): HTMLElement {
  return h(
    'form',
    { class: 'inline-form', role: 'search', 'aria-label': 'Find people' },
    field('Search', f.search),
    field('Area', f.area),
    field('Status', f.status),
    field('Consent', f.consent),
    field('Biometrics', f.biometrics),
    field('Sort by', f.sort),
  );
}

/** Typing searches after a short pause, any other change at once, and so does submitting the form. */
function searchOnChange(f: Filters, form: HTMLElement, again: () => void): void {
  let typing: ReturnType<typeof setTimeout> | undefined;
  f.search.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(again, TYPING_PAUSE_MS);
  });
  for (const control of [f.area, f.status, f.consent, f.biometrics, f.sort]) control.addEventListener('change', again);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(typing);
    again();
  });
}

function peopleQuery(f: Filters, cursor: string | null | undefined): string {
  return `enrollees/${query({
    search: f.search.value.trim(),
    area: f.area.value,
    status: f.status.value,
    consent: f.consent.value,
    biometrics: f.biometrics.value,
    sort: f.sort.value,
    limit: PAGE,
    cursor,
  })}`;
}

/** Every body part stored, of every kind (what the Biometrics filter looks at): `Right index, Face, Right palm`. */
function enrolled(e: EnrolleeView): string {
  const parts = byKind(Object.entries(e.biometrics)).flatMap(([kind, indexes]) => indexes.map((i) => biometricPart(kind, i)));
  return parts.length > 0 ? parts.join(', ') : 'None';
}

/**
 * Consent as the person's page says it: given (its version), withdrawn (when, by whom and what was
 * destroyed on hover, and for a screen reader), or never recorded. A withdrawal read "Not
 * recorded", as if the person had never been asked.
 */
function consentCell(e: EnrolleeView): HTMLElement {
  if (e.consent) return badge(`Given (${e.consent.version})`, 'ok');
  const withdrawal = e.consent_withdrawn;
  if (!withdrawal) return badge('Not recorded', 'warn');
  const destroyed =
    withdrawal.templates_destroyed === null ? '' : `; ${count(withdrawal.templates_destroyed, 'biometric template', 'biometric templates')} destroyed`;
  const said = `Withdrawn on ${dateTime(withdrawal.withdrawn_at)} by ${withdrawal.withdrawn_by}${destroyed}`;
  const shown = badge('Withdrawn', 'bad');
  shown.title = said;
  return h('span', {}, shown, h('span', { class: 'visually-hidden' }, ` ${said}`));
}

/** `narrowed`: a filter is set (so an empty list says nobody matches, not that there is nobody yet). */
function resultsTable(people: EnrolleeView[], searched: string, narrowed: boolean): HTMLElement {
  return table(
    ['Name', 'Employee ID', 'PIN', 'Card', 'Areas', 'Consent', 'Biometrics', 'Status'],
    people.map((e) => [
      h('a', { href: `#/people/${e.id}` }, e.display_name),
      e.employee,
      e.device_pin,
      e.card ?? '—',
      e.areas.join(', '),
      consentCell(e),
      enrolled(e),
      e.status === 'active' ? badge('Active', 'ok') : badge('Deactivated', 'muted'),
    ]),
    searched
      ? `Nobody matches “${searched}”.`
      : narrowed
        ? 'Nobody matches these filters.'
        : 'No one yet: add a person above, or import a file (People › Import).',
  );
}

/** What the status says of a page of results: `3 people found.`, `No one found.`, `People 51 to 100 shown, of more.` */
function foundSaid(page: number, list: List<EnrolleeView>): string {
  const n = list.results.length;
  if (page === 0 && !list.next_cursor) return n === 0 ? 'No one found.' : `${count(n, 'person', 'people')} found.`;
  const first = page * PAGE + 1;
  return `People ${first} to ${first + n - 1} shown${list.next_cursor ? ', of more' : ''}.`;
}

function pager(page: number, list: List<EnrolleeView>, load: (page: number) => Promise<void>): HTMLElement {
  const first = page * PAGE + 1;
  return h(
    'div',
    { class: 'actions pager' },
    page > 0 ? button('Previous page', () => load(page - 1)) : null,
    // "People 1 to 1" said of one person reads oddly: a single page says how many it shows.
    list.results.length > 0
      ? h(
          'span',
          { class: 'muted' },
          page === 0 && !list.next_cursor ? count(list.results.length, 'person', 'people') : `People ${first} to ${first + list.results.length - 1}`,
        )
      : null,
    list.next_cursor ? button('Next page', () => load(page + 1)) : null,
  );
}
