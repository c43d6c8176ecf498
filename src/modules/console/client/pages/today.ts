/**
 * Today: the board the console opens on. Everyone's status for today (or any date picked): the
 * counts by status and by area, each a click away from its list of people (name, area, expected
 * start, first in, late by, in now). Today's board follows the punch stream (no punch is missed
 * between the page's read and the socket's opening: ../live.ts) and is read again every minute,
 * since statuses change with the time (not in yet, then absent).
 */
import type { TodayBoardView } from '../../../attendance';
import { api, type List, query } from '../api';
import { badge, field, h, input, replace, section, select, table } from '../dom';
import { dayLabel, duration, localDate, time } from '../format';
import { followPunches, punchHead } from '../live';

type Board = TodayBoardView;
type Person = Board['people'][number];
type CountKey = keyof Board['counts'];

const TILES: { key: CountKey; label: string; tone: 'ok' | 'warn' | 'bad' | 'muted' | 'info' }[] = [
  { key: 'expected', label: 'Expected', tone: 'info' },
  { key: 'in_now', label: 'In now', tone: 'ok' },
  { key: 'late', label: 'Late', tone: 'warn' },
  { key: 'not_in_yet', label: 'Not in yet', tone: 'warn' },
  { key: 'absent', label: 'Absent', tone: 'bad' },
  { key: 'on_leave', label: 'On leave', tone: 'muted' },
  { key: 'holiday', label: 'Holiday', tone: 'muted' },
  { key: 'off', label: 'Day off', tone: 'muted' },
  { key: 'present', label: 'Came in', tone: 'ok' },
  { key: 'out', label: 'Left', tone: 'muted' },
  { key: 'scheduled', label: 'Not due yet', tone: 'muted' },
];
const AREA_COLUMNS: CountKey[] = ['expected', 'in_now', 'late', 'not_in_yet', 'absent', 'on_leave', 'holiday', 'off'];
const labelOf = (key: CountKey) => TILES.find((t) => t.key === key)?.label ?? key;

const STATUS_WORDS: Record<Person['status'], [string, 'ok' | 'warn' | 'bad' | 'muted' | 'info']> = {
  present: ['Came in', 'ok'],
  late: ['Late', 'warn'],
  scheduled: ['Not due yet', 'muted'],
  not_in_yet: ['Not in yet', 'warn'],
  absent: ['Absent', 'bad'],
  on_leave: ['On leave', 'info'],
  holiday: ['Holiday', 'muted'],
  off: ['Day off', 'muted'],
};

/** Who a count is made of. */
function inCount(p: Person, key: CountKey): boolean {
  const came = p.status === 'present' || p.status === 'late';
  switch (key) {
    case 'expected':
      return p.expected;
    case 'in_now':
      return p.in_now;
    case 'present':
      return came;
    case 'out':
      return came && !p.in_now;
    default:
      return p.status === key;
  }
}

/** Refresh at most this often while punches stream in, and at least once a minute. */
const REFRESH_DELAY_MS = 400;
const REFRESH_EVERY_MS = 60_000;

/**
 * Longer than 60 lines on purpose: the page's parts (tiles, list, table by area, the live
 * stream) share one state (the board read last, the date, area and count chosen) through
 * closures; split apart they would pass it all around.
 */
export async function todayPage(main: HTMLElement): Promise<() => void> {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  // Without a date the server says which date today is (in the attendance zone, by its clock).
  const state = {
    date: params.get('date') ?? '',
    area: params.get('area') ?? '',
    show: (params.get('show') as CountKey | null) ?? 'expected',
  };
  const live = state.date === '';
  // The stream's position first, then the board: a punch in between is replayed, not missed.
  const head = live ? await punchHead() : 0;
  const areaNames = await api
    .get<List<{ name: string }>>('areas/')
    .then((l) => l.results.map((a) => a.name))
    .catch(() => [] as string[]);
  let board = await read(state);
  const today = live ? board.date : localDate();
  state.date = board.date;

  const dateInput = input({ type: 'date', value: state.date, required: true });
  const areaSelect = select([['', 'All areas'], ...areaNames.map((a): [string, string] => [a, a])], {}, state.area);
  const form = h('form', { class: 'inline-form board-controls' }, field('Date', dateInput), field('Area', areaSelect), h('button', { type: 'submit' }, 'Show'));
  const heading = h('h1', {});
  const asOf = h('p', { class: 'muted', role: 'status' });
  const tileValues = new Map<CountKey, HTMLElement>();
  const tiles = h(
    'div',
    { class: 'tiles board-tiles', role: 'group', 'aria-label': 'Counts' },
    ...TILES.map(({ key, label, tone }) => {
      const value = h('span', { class: 'value' });
      tileValues.set(key, value);
      const tile = h('button', { type: 'button', class: `tile ${tone}`, 'data-count': key }, value, h('span', { class: 'label' }, label));
      tile.addEventListener('click', () => choose(key));
      return tile;
    }),
  );
  const byArea = h('div', { class: 'by-area' });
  const list = h('div', { id: 'board-list' });

  const choose = (key: CountKey, area?: string) => {
    state.show = key;
    if (area !== undefined && area !== state.area) {
      state.area = area;
      areaSelect.value = area;
      void reload().then(() => focusList());
      return;
    }
    remember();
    drawList();
    focusList();
  };
  const focusList = () => (list.querySelector('h2') as HTMLElement | null)?.focus();
  const remember = () => history.replaceState(null, '', `#/${query({ date: state.date === today ? '' : state.date, area: state.area, show: state.show })}`);
  const reload = async () => {
    board = await read({ date: live ? '' : state.date, area: state.area });
    state.date = board.date;
    remember();
    draw();
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const date = dateInput.value || today;
    if ((date === today) !== live) {
      // Live or not: the page follows the stream only for today.
      location.hash = `#/${query({ date: date === today ? '' : date, area: areaSelect.value, show: state.show })}`;
      return;
    }
    state.date = date;
    state.area = areaSelect.value;
    void reload();
  });

  const drawList = () => {
    for (const tile of Array.from(tiles.querySelectorAll<HTMLElement>('[data-count]')))
      tile.setAttribute('aria-pressed', String(tile.dataset.count === state.show));
    const people = board.people.filter((p) => inCount(p, state.show));
    const title = `${labelOf(state.show)}${state.area ? ` in ${state.area}` : ''}: ${people.length}`;
    replace(
      list,
      section(
        title,
        table(
          ['Name', 'Area', 'Status', 'Expected start', 'First in', 'Late by', 'In now'],
          people.map((p) => [
            h('a', { href: `#/people/${p.enrollee}` }, p.display_name),
            p.areas.join(', '),
            badge(...STATUS_WORDS[p.status]),
            p.expected_start ? shortTime(p.expected_start) : '—',
            p.first_in ? shortTime(p.first_in) : '—',
            p.late_seconds > 0 ? duration(p.late_seconds) : '—',
            p.in_now ? badge('In', 'ok') : p.last_out ? `Left ${shortTime(p.last_out)}` : '—',
          ]),
          'Nobody.',
        ),
      ),
    );
    list.querySelector('h2')?.setAttribute('tabindex', '-1');
  };

  const draw = () => {
    heading.textContent = state.date === today ? `Today, ${dayLabel(state.date)}` : dayLabel(state.date);
    asOf.textContent = live ? `As of ${shortTime(board.as_of)}; updates as people punch.` : `As of ${shortTime(board.as_of)}.`;
    for (const [key, el] of tileValues) el.textContent = String(board.counts[key]);
    replace(
      byArea,
      board.areas.length === 0
        ? null
        : section(
            'By area',
            h(
              'div',
              { class: 'table-wrap' },
              h(
                'table',
                {},
                h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Area'), ...AREA_COLUMNS.map((c) => h('th', { scope: 'col' }, labelOf(c))))),
                h(
                  'tbody',
                  {},
                  ...board.areas.map((a) =>
                    h(
                      'tr',
                      {},
                      h('th', { scope: 'row' }, a.area),
                      ...AREA_COLUMNS.map((c) =>
                        h(
                          'td',
                          {},
                          a.counts[c] > 0
                            ? h(
                                'a',
                                {
                                  href: `#/${query({ date: state.date === today ? '' : state.date, area: a.area, show: c })}`,
                                  'aria-label': `${labelOf(c)} in ${a.area}: ${a.counts[c]}`,
                                  onclick: (event: Event) => {
                                    event.preventDefault();
                                    choose(c, a.area);
                                  },
                                },
                                String(a.counts[c]),
                              )
                            : h('span', { class: 'muted' }, '0'),
                        ),
                      ),
                    ),
                  ),
                ),
              ),
            ),
          ),
    );
    drawList();
  };

  replace(main, heading, asOf, form, tiles, list, byArea);
  draw();
  if (!live) return () => undefined;

  let pending: ReturnType<typeof setTimeout> | undefined;
  const soon = () => {
    clearTimeout(pending);
    pending = setTimeout(() => void reload().catch(() => undefined), REFRESH_DELAY_MS);
  };
  const every = setInterval(soon, REFRESH_EVERY_MS);
  const stop = followPunches(head, { onPunch: soon });
  return () => {
    stop();
    clearTimeout(pending);
    clearInterval(every);
  };
}

function read(state: { date: string; area: string }): Promise<Board> {
  return api.get<Board>(`attendance/today/${query({ date: state.date, area: state.area })}`);
}

/** `09:02`: a time of day in the attendance zone. */
const shortTime = (iso: string) => time(iso).slice(0, 5);
