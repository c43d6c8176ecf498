/**
 * Attendance: a period grid (one row per person, one column per day: present, late, absent,
 * leave, holiday…), a day's detail with its punches and corrections, the CSV export, and the
 * plan days are judged by (schedules, holidays, leave, pay periods: ./plan.ts).
 */

import type { AttendanceDayView, TodayBoardView } from '../../../attendance';
import type { PunchView } from '../../../punches';
import { API, api, can, type List, query } from '../api';
import { announce, askReason, badge, button, field, h, input, replace, section, table, tableWrap } from '../dom';
import { addDays, byName, dateTime, dayLabel, duration, isolated, localDate, weekdayOf, words } from '../format';
import { clippedName, peopleNames, toldApart } from '../people-names';
import type { Person } from '../person-picker';
import { manualPunchForm, notes } from './punches';

/** People a page of the grid shows: its days are asked for by them (`attendance-days/?enrollee=`). */
const PAGE = 50;
/** The days read for the people of the grid no longer active, at most (as the grid always read). */
const FORMER_DAYS_MAX = 20_000;

const CELL: Record<string, [string, string]> = {
  present: ['✓', 'present'],
  incomplete: ['!', 'incomplete'],
  absent: ['✗', 'absent'],
  non_working_day: ['·', 'off'],
  holiday: ['H', 'holiday'],
  on_leave: ['L', 'leave'],
};

function monthStart(date: string): string {
  return `${date.slice(0, 8)}01`;
}

export async function attendancePage(main: HTMLElement): Promise<undefined> {
  const today = localDate();
  const from = input({ type: 'date', value: monthStart(today), required: true });
  const to = input({ type: 'date', value: today, required: true });
  // Whose rows: a part of a name or an employee id (the server's search), else everyone by name.
  const who = input({ type: 'search', autocomplete: 'off', placeholder: 'Name or employee id' });
  const grid = h('div');
  const pager = h('div', { class: 'actions pager' });
  const detail = h('div', { id: 'day-detail' });
  const exportLink = h('a', { class: 'button', download: '' }, 'Download CSV');
  // Cursors of the pages of people seen so far: Previous goes back one.
  let cursors: (string | null)[] = [null];
  let page = 0;
  const load = async (at = page): Promise<void> => {
    const period = { from: from.value, to: to.value };
    // With the byte-order mark Excel on Windows needs to read UTF-8: people open this file (machines call the API without it).
    exportLink.setAttribute('href', `${API}/attendance-days/export.csv${query({ ...period, bom: 'true' })}`);
    const shown = await gridPage(period, who.value.trim(), cursors[at] ?? null);
    cursors = [...cursors.slice(0, at + 1), shown.next];
    page = at;
    replace(pager, ...pagerOf(at, shown.people.length, shown.next, load));
    if (shown.people.length === 0 && who.value.trim()) return replace(grid, h('p', { class: 'empty' }, `No one matches “${who.value.trim()}”.`));
    renderGrid(grid, detail, shown.people, shown.days, { ...period, stillIn: await stillInOf(shown.days) }, () => load());
  };
  const form = h(
    'form',
    { class: 'inline-form', role: 'search' },
    field('From', from),
    field('To', to),
    field('People', who, 'Leave empty for everyone.'),
    h('button', { type: 'submit' }, 'Show'),
    exportLink,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    cursors = [null];
    void load(0);
  });
  replace(
    main,
    h('h1', {}, 'Attendance'),
    section('Period', form, legend(), grid, pager),
    detail,
    h('p', {}, 'Schedules, holidays, leave and pay periods: ', h('a', { href: '#/shifts' }, 'Shifts and calendar'), '.'),
  );
  await load();
  return undefined;
}

function legend(): HTMLElement {
  return h(
    'p',
    { class: 'legend' },
    ...Object.entries(CELL).map(([status, [mark, cls]]) => h('span', { class: `cell ${cls}` }, `${mark} ${words(status)}`)),
    h('span', { class: 'cell late' }, 'Late (outlined)'),
    h('span', { class: 'cell open' }, '… Still in (no out yet)'),
    // Days without punches are stored by the nightly "Record absences" job: until then, blank.
    h('span', { class: 'cell none' }, 'Blank: nothing recorded yet (absences, leave and days off are filled in each night)'),
    h('span', {}, '* Worked leaves out a past day with a punch missing'),
  );
}

/** Previous and next page of people, and which of them are shown. */
function pagerOf(page: number, shown: number, next: string | null, load: (page: number) => Promise<void>): (HTMLElement | null)[] {
  if (page === 0 && next === null) return [];
  const first = page * PAGE + 1;
  return [
    page > 0 ? button('Previous people', () => load(page - 1)) : null,
    h('span', { class: 'muted' }, next === null ? `People from ${first}` : `People ${first} to ${first + shown - 1}`),
    next !== null ? button('Next people', () => load(page + 1)) : null,
  ];
}

/** Every day of the period the query asks for (`attendance-days/` pages of 1,000), up to `max`. */
async function allDays(params: Record<string, string>, max = Number.POSITIVE_INFINITY): Promise<AttendanceDayView[]> {
  const days: AttendanceDayView[] = [];
  let cursor: string | null = null;
  do {
    const got: List<AttendanceDayView> = await api.get<List<AttendanceDayView>>(`attendance-days/${query({ ...params, limit: 1000, cursor })}`);
    days.push(...got.results);
    cursor = got.next_cursor;
  } while (cursor && days.length < max);
  return days;
}

/**
 * A page of the grid: the next active people by name (the caller's areas: the server's list) and
 * their days; after the last of them, anyone else with days in the period (deactivated, or
 * deleted since: their days still count in the reports and the export, so the grid's totals
 * agree with them). People searched for: those the search finds, deactivated ones too (a
 * deleted person has no name left to find). Requests stay bounded: one for the people, their
 * days (50 people × 62 dates at most, 4 pages), and on the last page the others' days and names.
 */
async function gridPage(
  period: { from: string; to: string },
  search: string,
  cursor: string | null,
): Promise<{ people: GridPerson[]; days: AttendanceDayView[]; next: string | null }> {
  const list = await api.get<List<Person & { status: string }>>(
    `enrollees/${query({ search, status: search ? undefined : 'active', sort: 'name', limit: PAGE, cursor })}`,
  );
  const people = list.results.map(
    ({ status, ...p }): GridPerson =>
      status === 'active' ? { ...p, state: 'active' } : { ...p, display_name: `${isolated(p.display_name)} (deactivated)`, state: 'deactivated' },
  );
  const days = people.length > 0 ? await allDays({ ...period, enrollee: people.map((p) => p.id).join(',') }) : [];
  if (list.next_cursor !== null || search) return { people: toldApart(people), days, next: list.next_cursor };
  const former = await allDays({ ...period, inactive: 'true' }, FORMER_DAYS_MAX);
  return { people: toldApart([...people, ...(await formerPeople(former))]), days: [...days, ...former], next: null };
}

/** A row of the grid: an active person; or one deactivated, or deleted since, whose days are in the period. */
type GridPerson = Person & { state: 'active' | 'deactivated' | 'deleted' };

/**
 * The people of these days, none active now: those still listed (deactivated) by name, then
 * the deleted by employee id (“E-17 (deleted)”). Deleted only when the server lists nobody by
 * that id: asked for by id, never guessed from a partial list.
 */
async function formerPeople(days: AttendanceDayView[]): Promise<GridPerson[]> {
  const names = peopleNames();
  await names.load(days.map((d) => d.enrollee));
  const listed = new Map<string, Person>();
  const gone = new Map<string, GridPerson>();
  for (const d of days) {
    const p = names.get(d.enrollee);
    if (p) listed.set(p.id, p);
    else gone.set(d.enrollee, { id: d.enrollee, employee: d.employee, display_name: `${d.employee} (deleted)`, state: 'deleted' });
  }
  // By name as the server orders the active people above them (ignoring case and accents).
  const deactivated = [...listed.values()]
    .sort(byName)
    .map((p): GridPerson => ({ ...p, display_name: `${isolated(p.display_name)} (deactivated)`, state: 'deactivated' }));
  return [...deactivated, ...[...gone.values()].sort((a, b) => a.employee.localeCompare(b.employee))];
}

/**
 * The open days of people in now, as `enrollee|date`: someone still in from last night's shift has
 * yesterday's day open, and it is not a missing punch while the Today board carries them. Only the
 * people of the page whose day of yesterday is open are asked about (`enrollee=`, 100 a request):
 * none, most often, and then nothing is asked. Before, the whole "in now" board was read at each
 * page (3 MB at 10,000 people). Today's open days are always someone still in.
 */
async function stillInOf(days: readonly AttendanceDayView[]): Promise<ReadonlySet<string>> {
  const yesterday = addDays(localDate(), -1);
  const open = [...new Set(days.filter((d) => d.date === yesterday && d.status === 'incomplete').map((d) => d.enrollee))];
  const stillIn = new Set<string>();
  for (let i = 0; i < open.length; i += 100) {
    const board = await api.get<TodayBoardView>(`attendance/today/${query({ count: 'in_now', enrollee: open.slice(i, i + 100).join(',') })}`);
    for (const p of board.people) if (p.in_now_date !== null) stillIn.add(`${p.enrollee}|${p.in_now_date}`);
  }
  return stillIn;
}

function renderGrid(
  grid: HTMLElement,
  detail: HTMLElement,
  people: GridPerson[],
  days: AttendanceDayView[],
  period: { from: string; to: string; stillIn: ReadonlySet<string> },
  reload: () => Promise<void>,
): void {
  const dates: string[] = [];
  for (let d = period.from; d <= period.to && dates.length < 62; d = addDays(d, 1)) dates.push(d);
  const byKey = new Map(days.map((d) => [`${d.enrollee}|${d.date}`, d]));
  if (people.length === 0) {
    replace(grid, h('p', { class: 'empty' }, 'Nobody is enrolled yet.'));
    return;
  }
  const head = gridHead(dates);
  const rows = people.map((person) =>
    gridRow(person, { dates, stillIn: period.stillIn }, byKey, (date, day) => void showDay(detail, person, date, day, reload)),
  );
  const wrap = tableWrap(h('table', { id: 'attendance-grid' }, h('thead', {}, head), h('tbody', {}, ...rows)), { class: 'grid', label: 'Attendance grid' });
  replace(grid, skipPastGrid(), wrap, h('span', { id: 'after-grid', tabindex: -1, class: 'after-grid' }));
  // The latest days matter most: a period wider than the screen opens scrolled to its end (the
  // names stay in view: their column is sticky).
  wrap.scrollLeft = wrap.scrollWidth;
}

function gridHead(dates: string[]): HTMLElement {
  return h(
    'tr',
    {},
    h('th', { scope: 'col', class: 'who-head' }, 'Person'),
    ...dates.map((d) => h('th', { scope: 'col', class: 'date' }, h('abbr', { title: dayLabel(d) }, weekdayOf(d)), h('br'), String(Number(d.slice(8))))),
    h('th', { scope: 'col' }, 'Worked'),
  );
}

/** A person's row: one cell per date (a button that opens the day), then the time worked in the period. */
function gridRow(
  person: GridPerson,
  { dates, stillIn: inNow }: { dates: string[]; stillIn: ReadonlySet<string> },
  byKey: Map<string, AttendanceDayView>,
  open: (date: string, day: AttendanceDayView | null) => void,
): HTMLElement {
  let worked = 0;
  let missing = 0;
  const today = localDate();
  const cells = dates.map((date) => {
    const day = byKey.get(`${person.id}|${date}`);
    if (day) worked += day.worked_seconds;
    // Today's day without its out yet is someone still in, not a missing punch (not yet); so is
    // last night's while its shift can still close it.
    const stillIn = day?.status === 'incomplete' && (date === today || inNow.has(`${person.id}|${date}`));
    if (day?.status === 'incomplete' && !stillIn) missing++;
    const [mark, cls] = stillIn ? ['…', 'open'] : day ? (CELL[day.status] ?? ['?', 'muted']) : ['', 'none'];
    const late = day?.flags.includes('late') ? ' late' : '';
    const said = stillIn ? 'still in (no out yet)' : day ? words(day.status) : 'nothing recorded';
    const label = `${person.display_name}, ${dayLabel(date)}: ${said}${late ? ', late' : ''}`;
    return h(
      'td',
      { class: 'cell-td' },
      h('button', { type: 'button', class: `cell ${cls}${late}`, 'aria-label': label, title: label, onclick: () => open(date, day ?? null) }, mark),
    );
  });
  return h(
    'tr',
    {},
    h('th', { scope: 'row', class: 'who' }, clippedName(person.display_name, person.state === 'deleted' ? null : `#/people/${person.id}`)),
    ...cells,
    // A day missing a punch counts nothing until it is corrected: say so beside the total.
    missing > 0
      ? h('td', { class: 'total', title: `${missing === 1 ? 'A day is' : `${missing} days are`} missing a punch and not counted` }, `${duration(worked)} *`)
      : h('td', { class: 'total' }, duration(worked)),
  );
}

/** One tab stop per cell: a link past the grid to the forms below it (keyboard users). */
function skipPastGrid(): HTMLElement {
  const skip = h('a', { class: 'skip-grid', href: '#after-grid' }, 'Skip past the grid');
  skip.addEventListener('click', (event) => {
    event.preventDefault();
    const after = document.getElementById('after-grid');
    after?.focus();
    after?.scrollIntoView({ block: 'start' });
  });
  return skip;
}

async function showDay(detail: HTMLElement, person: GridPerson, date: string, day: AttendanceDayView | null, reload: () => Promise<void>): Promise<void> {
  // The day's own punches: a night shift's morning punch is on the date it started (not the calendar date it fell on).
  const punches = await api.get<{ results: PunchView[] }>(`attendance-days/${encodeURIComponent(person.id)}/${date}/punches/`);
  const refresh = async () => {
    await reload();
    const fresh = await api.get<List<AttendanceDayView>>(`attendance-days/${query({ enrollee: person.id, from: date, to: date })}`);
    await showDay(detail, person, date, fresh.results[0] ?? null, reload);
  };
  replace(
    detail,
    section(`${isolated(person.display_name)}, ${dayLabel(date)}`, ...daySummary(day), dayPunches(person, punches.results, refresh)),
    // A punch is added for an active person only (as the Punches page offers).
    can('POST punches/manual/') && person.state === 'active' && manualPunchForm(refresh, { person, date }),
  );
  detail.querySelector('h2')?.setAttribute('tabindex', '-1');
  (detail.querySelector('h2') as HTMLElement | null)?.focus();
}

/** The day's status and flags, and (when recorded) its times. */
function daySummary(day: AttendanceDayView | null): (HTMLElement | null)[] {
  return [
    h(
      'p',
      {},
      day
        ? badge(words(day.status), day.status === 'present' ? 'ok' : day.status === 'absent' || day.status === 'incomplete' ? 'bad' : 'muted')
        : badge('Nothing recorded', 'muted'),
      ...(day?.flags ?? []).map((f) => h('span', {}, ' ', badge(words(f), 'info'))),
    ),
    day
      ? h(
          'p',
          {},
          `In ${dateTime(day.first_in)}, out ${dateTime(day.last_out)}, worked ${duration(day.worked_seconds)}`,
          day.schedule ? `, schedule ${day.schedule}` : '',
          day.late_seconds ? `, late by ${duration(day.late_seconds)}` : '',
          '.',
        )
      : null,
  ];
}

/**
 * The day's punches, each voidable (with a reason) where the role allows: each Void named by the
 * punch it voids, as on the Punches page ("Void the punch of Ada Lovelace at 3 Mar 2031, 07:55"),
 * not one "Void" per row.
 */
function dayPunches(person: GridPerson, punches: PunchView[], refresh: () => Promise<void>): HTMLElement {
  return table(
    ['Time', 'Terminal', 'Source', 'Notes', ''],
    punches.map((p) => [
      dateTime(p.punched_at),
      p.device ?? '—',
      words(p.source ?? 'device'),
      notes(p),
      p.voided || !can('POST punches/{id}/void/')
        ? ''
        : button(
            'Void',
            async () => {
              const reason = await askReason('Void this punch?', {
                action: 'Void',
                detail: `${dateTime(p.punched_at)}. It will no longer count for attendance.`,
              });
              if (!reason) return;
              await api.post(`punches/${encodeURIComponent(p.id)}/void/`, { reason });
              await refresh();
              announce('Punch voided.');
            },
            { 'aria-label': `Void the punch of ${person.display_name} at ${dateTime(p.punched_at)}` },
          ),
    ]),
    'No punches that day.',
  );
}
