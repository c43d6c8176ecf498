/**
 * Attendance: a period grid (one row per person, one column per day: present, late, absent,
 * leave, holiday…), a day's detail with its punches and corrections, the CSV export, and the
 * plan days are judged by (schedules, holidays, leave, pay periods: ./plan.ts).
 */

import type { AttendanceDayView, TodayBoardView } from '../../../attendance';
import type { EnrolleeView } from '../../../enrollees';
import type { PunchView } from '../../../punches';
import { API, api, can, type List, query } from '../api';
import { announce, askReason, badge, button, field, h, input, replace, section, table } from '../dom';
import { addDays, dateTime, dayLabel, duration, localDate, words } from '../format';
import { manualPunchForm, notes } from './punches';

const CELL: Record<string, [string, string]> = {
  present: ['✓', 'present'],
  incomplete: ['!', 'incomplete'],
  absent: ['✗', 'absent'],
  non_working_day: ['·', 'off'],
  holiday: ['H', 'holiday'],
  on_leave: ['L', 'leave'],
};

const weekdayShort = (date: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short' }).format(new Date(`${date}T12:00:00Z`)).slice(0, 2);

function monthStart(date: string): string {
  return `${date.slice(0, 8)}01`;
}

export async function attendancePage(main: HTMLElement): Promise<undefined> {
  const today = localDate();
  const from = input({ type: 'date', value: monthStart(today), required: true });
  const to = input({ type: 'date', value: today, required: true });
  const grid = h('div');
  const detail = h('div', { id: 'day-detail' });
  const exportLink = h('a', { class: 'button', download: '' }, 'Download CSV');
  const enrollees = await api.get<List<EnrolleeView>>('enrollees/?limit=1000&sort=name');

  const load = async () => {
    exportLink.setAttribute('href', `${API}/attendance-days/export.csv${query({ from: from.value, to: to.value })}`);
    const days: AttendanceDayView[] = [];
    let cursor: string | null = null;
    do {
      const page: List<AttendanceDayView> = await api.get<List<AttendanceDayView>>(
        `attendance-days/${query({ from: from.value, to: to.value, limit: 1000, cursor })}`,
      );
      days.push(...page.results);
      cursor = page.next_cursor;
    } while (cursor && days.length < 20000);
    const period = { from: from.value, to: to.value };
    renderGrid(grid, detail, gridPeople(enrollees, days), enrollees.results, days, { ...period, stillIn: await stillInOf(period) }, load);
  };
  const form = h('form', { class: 'inline-form', role: 'search' }, field('From', from), field('To', to), h('button', { type: 'submit' }, 'Show'), exportLink);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void load();
  });
  replace(
    main,
    h('h1', {}, 'Attendance'),
    section(
      'Period',
      form,
      h(
        'p',
        { class: 'legend' },
        ...Object.entries(CELL).map(([status, [mark, cls]]) => h('span', { class: `cell ${cls}` }, `${mark} ${words(status)}`)),
        h('span', { class: 'cell late' }, 'Late (outlined)'),
        h('span', { class: 'cell open' }, '… Still in (no out yet)'),
        // Days without punches are stored by the nightly "Record absences" job: until then, blank.
        h('span', { class: 'cell none' }, 'Blank: nothing recorded yet (absences, leave and days off are filled in each night)'),
        h('span', {}, '* Worked leaves out a past day with a punch missing'),
      ),
      grid,
    ),
    detail,
    h('p', {}, 'Schedules, holidays, leave and pay periods: ', h('a', { href: '#/shifts' }, 'Shifts and calendar'), '.'),
  );
  await load();
  return undefined;
}

/**
 * The open days of people in now, as `enrollee|date`: someone still in from last night's shift has
 * yesterday's day open, and it is not a missing punch while the Today board carries them. Asked
 * only when the period holds yesterday (today's open days are always someone still in).
 */
async function stillInOf(period: { from: string; to: string }): Promise<ReadonlySet<string>> {
  const yesterday = addDays(localDate(), -1);
  if (period.from > yesterday || period.to < yesterday) return new Set();
  const board = await api.get<TodayBoardView>('attendance/today/?count=in_now');
  return new Set(board.people.filter((p) => p.in_now_date !== null).map((p) => `${p.enrollee}|${p.in_now_date}`));
}

/** A row of the grid: a person listed, or one deleted since whose days are in the period. */
type GridPerson = Pick<EnrolleeView, 'id' | 'employee' | 'display_name'> & { deleted?: true };

/**
 * Who has a row: the active people, anyone else with days in the period, and, after them, the
 * days of people no longer listed (deleted since: their days still count in the reports and the
 * export, so the grid's totals agree with them), named by employee id.
 */
function gridPeople(enrollees: List<EnrolleeView>, days: AttendanceDayView[]): GridPerson[] {
  const withDays = new Set(days.map((d) => d.enrollee));
  const listed = enrollees.results.filter((e) => e.status === 'active' || withDays.has(e.id));
  const known = new Set(enrollees.results.map((e) => e.id));
  // Only a whole list tells who was deleted; past its first 1,000 someone may just not be listed.
  const whole = enrollees.next_cursor === null;
  const gone = new Map<string, GridPerson>();
  for (const d of days) {
    if (known.has(d.enrollee) || gone.has(d.enrollee)) continue;
    gone.set(d.enrollee, { id: d.enrollee, employee: d.employee, display_name: whole ? `${d.employee} (deleted)` : d.employee, deleted: true });
  }
  return [...listed, ...[...gone.values()].sort((a, b) => a.employee.localeCompare(b.employee))];
}

function renderGrid(
  grid: HTMLElement,
  detail: HTMLElement,
  people: GridPerson[],
  enrollees: EnrolleeView[],
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
    gridRow(person, { dates, stillIn: period.stillIn }, byKey, (date, day) => void showDay(detail, person, date, day, enrollees, reload)),
  );
  const wrap = h('div', { class: 'table-wrap grid' }, h('table', { id: 'attendance-grid' }, h('thead', {}, head), h('tbody', {}, ...rows)));
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
    ...dates.map((d) => h('th', { scope: 'col', class: 'date' }, h('abbr', { title: dayLabel(d) }, weekdayShort(d)), h('br'), String(Number(d.slice(8))))),
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
    h('th', { scope: 'row', class: 'who' }, person.deleted ? person.display_name : h('a', { href: `#/people/${person.id}` }, person.display_name)),
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

async function showDay(
  detail: HTMLElement,
  person: GridPerson,
  date: string,
  day: AttendanceDayView | null,
  enrollees: EnrolleeView[],
  reload: () => Promise<void>,
): Promise<void> {
  const punches = await api.get<List<PunchView>>(`punches/${query({ employee: person.employee, from: date, to: date, limit: 200 })}`);
  const refresh = async () => {
    await reload();
    const fresh = await api.get<List<AttendanceDayView>>(`attendance-days/${query({ enrollee: person.id, from: date, to: date })}`);
    await showDay(detail, person, date, fresh.results[0] ?? null, enrollees, reload);
  };
  replace(
    detail,
    section(`${person.display_name}, ${dayLabel(date)}`, ...daySummary(day), dayPunches(punches.results, refresh)),
    can('POST punches/manual/') && !person.deleted && manualPunchForm(enrollees, refresh, { enrollee: person.id, date }),
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

/** The day's punches, each voidable (with a reason) where the role allows. */
function dayPunches(punches: PunchView[], refresh: () => Promise<void>): HTMLElement {
  return table(
    ['Time', 'Terminal', 'Source', 'Notes', ''],
    punches.map((p) => [
      dateTime(p.punched_at),
      p.device ?? '—',
      words(p.source ?? 'device'),
      notes(p),
      p.voided || !can('POST punches/{id}/void/')
        ? ''
        : button('Void', async () => {
            const reason = await askReason('Void this punch?', { action: 'Void', detail: 'It will no longer count for attendance.' });
            if (!reason) return;
            await api.post(`punches/${encodeURIComponent(p.id)}/void/`, { reason });
            await refresh();
            announce('Punch voided.');
          }),
    ]),
    'No punches that day.',
  );
}
