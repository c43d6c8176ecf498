/**
 * Today: the board the console opens on. Everyone's status for today (or any date picked): the
 * counts by status and by area, each a click away from its list of people (name, area, expected
 * start, first in, late by, in now). Today's board follows the punch stream (no punch is missed
 * between the page's read and the socket's opening: ../live.ts) and is read again every minute,
 * since statuses change with the time (not in yet, then absent).
 */
import type { TodayBoardView } from '../../../attendance';
import { api, currentSession, everyRow, query } from '../api';
import { button, field, h, input, replace, section, select, tableWrap } from '../dom';
import { dayLabel, figure, hourMinute, localDate } from '../format';
import { followPunches, punchHead } from '../live';
import { BoardList } from './board-list';

type Board = TodayBoardView;
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
/** The table by area: everything the tiles count, so an area's row adds up (not due yet and came in included). */
const AREA_COLUMNS: CountKey[] = ['expected', 'scheduled', 'present', 'in_now', 'late', 'not_in_yet', 'absent', 'on_leave', 'holiday', 'off'];
const labelOf = (key: CountKey) => TILES.find((t) => t.key === key)?.label ?? key;

/** A punch is read this long after it arrives (the punches of one moment come in one read). */
const REFRESH_DELAY_MS = 400;
/**
 * Reads start at most this often while punches stream in: a morning rush neither holds the board
 * back (each punch used to postpone the read, so a steady stream kept it from ever coming) nor
 * has every open board read everyone's day several times a second.
 */
const REFRESH_MIN_GAP_MS = 2_000;
/** And at least once a minute (who is late now, with no punch to say so). */
const REFRESH_EVERY_MS = 60_000;
/** A read that has not answered by then no longer holds the next ones back (a lost connection). */
const READ_GIVE_UP_MS = 30_000;
/**
 * People a list asks for before "Show all": otherwise a company's whole day (10,000 people at M,
 * about 3 MB) is sent and redrawn at every live read, while a list of a few hundred is what a
 * person reads anyway. The server lists the chosen count's people (`count=`), the first by name.
 */
const LIST_FIRST = 200;

/** What the page shows: a date (empty: today, as the server counts it), an area (empty: all), a count. */
interface Choice {
  date: string;
  area: string;
  show: CountKey;
}

export async function todayPage(main: HTMLElement): Promise<() => void> {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  // Without a date the server says which date today is (in the attendance zone, by its clock).
  const state: Choice = {
    date: params.get('date') ?? '',
    area: params.get('area') ?? '',
    // An address with a count that does not exist shows the expected (the server would refuse it).
    show: TILES.find((t) => t.key === params.get('show'))?.key ?? 'expected',
  };
  const live = state.date === '';
  // The stream's position first, then the board: a punch in between is replayed, not missed.
  const head = live ? await punchHead() : 0;
  const areaNames = await everyRow<{ name: string }>('areas/')
    .then((l) => l.map((a) => a.name))
    .catch(() => [] as string[]);
  const board = await read(state, false);
  const today = live ? board.date : localDate();
  state.date = board.date;
  const page = new BoardPage(state, live, today, board, areaNames);
  replace(main, ...page.parts());
  page.draw();
  // Leaving the page stops its reads from drawing (or rewriting the address of the next page).
  if (!live) return () => page.dispose();
  const stop = followBoard(head, () => page.reload().then(() => undefined));
  return () => {
    page.dispose();
    stop();
  };
}

/**
 * Today's board follows the punches: read again shortly after a punch, never two reads at once
 * nor starts closer than REFRESH_MIN_GAP_MS, and every minute. A punch while a read is due joins
 * it; one while a read runs asks for one more after it.
 */
function followBoard(head: number, reload: () => Promise<void>): () => void {
  let pending: ReturnType<typeof setTimeout> | undefined;
  let lastStart = Number.NEGATIVE_INFINITY;
  let running = false;
  let again = false;
  let stopped = false;
  const read = async () => {
    pending = undefined;
    if (running) {
      again = true;
      return;
    }
    running = true;
    lastStart = performance.now();
    await Promise.race([reload().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, READ_GIVE_UP_MS))]);
    running = false;
    if (again) {
      again = false;
      soon();
    }
  };
  const soon = () => {
    if (stopped || pending !== undefined) return;
    pending = setTimeout(() => void read(), Math.max(REFRESH_DELAY_MS, lastStart + REFRESH_MIN_GAP_MS - performance.now()));
  };
  const every = setInterval(soon, REFRESH_EVERY_MS);
  const stop = followPunches(head, { onPunch: soon });
  return () => {
    stopped = true;
    stop();
    clearTimeout(pending);
    clearInterval(every);
  };
}

/**
 * The board on screen: its parts (tiles, list, table by area) share one state, the board read
 * last and the date, area and count chosen.
 */
class BoardPage {
  private readonly dateInput: HTMLInputElement;
  private readonly areaSelect: HTMLSelectElement;
  private readonly form: HTMLElement;
  private readonly heading = h('h1', {});
  /** When the board was read: shown, not announced (it changes every minute, the board maybe not). */
  private readonly asOf = h('p', { class: 'muted as-of' });
  /** What changed since the board was last drawn for the same date and area: announced. */
  private readonly changes = h('p', { class: 'visually-hidden board-changes', role: 'status' });
  private counted: { key: string; counts: Board['counts'] } | null = null;
  private readonly tileValues = new Map<CountKey, HTMLElement>();
  private readonly tiles: HTMLElement;
  private readonly byArea = h('div', { class: 'by-area' });
  /** The chosen count's people: its heading, the list (drawn in place at each read: board-list.ts), and "Show all". */
  private readonly listHeading = h('h2', { id: 'board-list-heading', tabindex: -1 });
  private readonly people = new BoardList();
  private readonly more = h('div');
  private readonly list = h(
    'div',
    { id: 'board-list' },
    h('section', { class: 'card', 'aria-labelledby': 'board-list-heading' }, this.listHeading, this.people.element, this.more),
  );
  /** The whole list asked for ("Show all"), until another count, area or date is chosen. */
  private showAll = false;
  /** Reads started, so that only the latest one is drawn. */
  private reads = 0;
  /** The page was left: reads that answer now draw nothing. */
  private disposed = false;

  constructor(
    private readonly state: Choice,
    private readonly live: boolean,
    private readonly today: string,
    private board: Board,
    areaNames: string[],
  ) {
    this.dateInput = input({ type: 'date', value: state.date, required: true });
    this.areaSelect = select([['', 'All areas'], ...areaNames.map((a): [string, string] => [a, a])], {}, state.area);
    this.form = h(
      'form',
      { class: 'inline-form board-controls', role: 'search' },
      field('Date', this.dateInput),
      field('Area', this.areaSelect),
      h('button', { type: 'submit' }, 'Show'),
    );
    this.tiles = countTiles(this.tileValues, (key) => this.choose(key));
    this.form.addEventListener('submit', (event) => this.submit(event));
  }

  parts(): HTMLElement[] {
    return [this.heading, this.asOf, this.changes, this.form, this.tiles, this.list, this.byArea];
  }

  dispose(): void {
    this.disposed = true;
  }

  /** Reads the board as chosen and draws it; false when a later read (or leaving the page) made it moot. */
  async reload(): Promise<boolean> {
    // A later read (another count chosen, a punch) wins over one that answers after it.
    const ticket = ++this.reads;
    const board = await read({ ...this.state, date: this.live ? '' : this.state.date }, this.showAll);
    if (this.disposed || ticket !== this.reads) return false;
    this.board = board;
    this.state.date = this.board.date;
    this.remember();
    this.draw();
    return true;
  }

  draw(): void {
    const { state, board, today } = this;
    this.heading.textContent = state.date === today ? `Today, ${dayLabel(state.date)}` : dayLabel(state.date);
    // Which zone the times are in, said: an officer in another zone (or a phone set to another) would read them as their own.
    // Areas with zones of their own: each person is on their own today (their row's date), their times where they work.
    const zones = new Set(board.people.map((p) => p.time_zone ?? currentSession().time_zone));
    const zone =
      zones.size > 1
        ? `Each person’s times where they work (${[...zones].sort().join(', ')}), on their own today.`
        : `Times in ${[...zones][0] ?? currentSession().time_zone}.`;
    this.asOf.textContent = this.live ? `As of ${hourMinute(board.as_of)}; updates as people punch. ${zone}` : `As of ${hourMinute(board.as_of)}. ${zone}`;
    for (const [key, el] of this.tileValues) el.textContent = figure(board.counts[key]);
    this.sayChanges();
    const dateShown = state.date === today ? '' : state.date;
    replace(
      this.byArea,
      board.areas.length === 0
        ? null
        : section(
            'By area',
            areaTable(board, dateShown, (c, area) => this.choose(c, area)),
          ),
    );
    this.drawList();
  }

  /** Announces the counts that changed ("Late 3, In now 5"); nothing when only the time did. */
  private sayChanges(): void {
    const key = `${this.state.date}|${this.state.area}`;
    const before = this.counted?.key === key ? this.counted.counts : null;
    const changed = before ? TILES.filter((t) => before[t.key] !== this.board.counts[t.key]) : [];
    if (changed.length > 0) this.changes.textContent = `Changed: ${changed.map((t) => `${t.label} ${figure(this.board.counts[t.key])}`).join(', ')}.`;
    this.counted = { key, counts: { ...this.board.counts } };
  }

  private choose(key: CountKey, area?: string): void {
    const before = { show: this.state.show, area: this.state.area, all: this.showAll };
    this.state.show = key;
    this.showAll = false;
    if (area !== undefined) {
      this.state.area = area;
      this.areaSelect.value = area;
    }
    // The list is the server's (one count's people): the tile shows as chosen at once, its people once read.
    this.markChosen();
    void this.reload().then(
      (drawn) => {
        if (drawn) this.focusList();
      },
      (error: unknown) => {
        // Not read: the page still shows the count it showed (the shell announces the error).
        Object.assign(this.state, { show: before.show, area: before.area });
        this.showAll = before.all;
        this.areaSelect.value = before.area;
        this.markChosen();
        throw error;
      },
    );
  }

  private submit(event: Event): void {
    event.preventDefault();
    const { state, today, live } = this;
    const date = this.dateInput.value || today;
    if ((date === today) !== live) {
      // Live or not: the page follows the stream only for today.
      location.hash = `#/${query({ date: date === today ? '' : date, area: this.areaSelect.value, show: state.show })}`;
      return;
    }
    // Another area or date starts short again, as another count does.
    if (state.area !== this.areaSelect.value || state.date !== date) this.showAll = false;
    state.date = date;
    state.area = this.areaSelect.value;
    void this.reload();
  }

  private focusList(): void {
    this.listHeading.focus();
  }

  private remember(): void {
    const { date, area, show } = this.state;
    history.replaceState(null, '', `#/${query({ date: date === this.today ? '' : date, area, show })}`);
  }

  private markChosen(): void {
    for (const tile of Array.from(this.tiles.querySelectorAll<HTMLElement>('[data-count]')))
      tile.setAttribute('aria-pressed', String(tile.dataset.count === this.state.show));
  }

  private drawList(): void {
    const { state, board } = this;
    this.markChosen();
    const shown = board.people;
    this.listHeading.textContent = `${labelOf(state.show)}${state.area ? ` in ${state.area}` : ''}: ${figure(board.people_total)}`;
    // Show all, pressed, is gone once all are shown: focus goes to the list's heading.
    if (this.more.contains(document.activeElement) && shown.length >= board.people_total) this.listHeading.focus();
    replace(
      this.more,
      shown.length < board.people_total
        ? h(
            'p',
            { class: 'list-more' },
            `The first ${figure(shown.length)} by name. `,
            button(`Show all ${figure(board.people_total)}`, async () => {
              this.showAll = true;
              await this.reload();
            }),
          )
        : null,
    );
    // Drawn in place: the rows of people whose line changed, a long list a few hundred rows at a time.
    void this.people.show(shown);
  }
}

/** One tile per count, a button that shows its people; `values` gets the element each count is written in. */
function countTiles(values: Map<CountKey, HTMLElement>, choose: (key: CountKey) => void): HTMLElement {
  return h(
    'div',
    { class: 'tiles board-tiles', role: 'group', 'aria-label': 'Counts' },
    ...TILES.map(({ key, label, tone }) => {
      const value = h('span', { class: 'value' });
      values.set(key, value);
      const tile = h('button', { type: 'button', class: `tile ${tone}`, 'data-count': key }, value, h('span', { class: 'label' }, label));
      tile.addEventListener('click', () => choose(key));
      return tile;
    }),
  );
}

/** The counts by area, each (when not zero) a link to its people; `date` is the date in the link ('' for today). */
function areaTable(board: Board, date: string, choose: (key: CountKey, area: string) => void): HTMLElement {
  const cell = (a: Board['areas'][number], c: CountKey) =>
    a.counts[c] > 0
      ? h(
          'a',
          {
            href: `#/${query({ date, area: a.area, show: c })}`,
            'aria-label': `${labelOf(c)} in ${a.area}: ${figure(a.counts[c])}`,
            onclick: (event: Event) => {
              event.preventDefault();
              choose(c, a.area);
            },
          },
          figure(a.counts[c]),
        )
      : h('span', { class: 'muted' }, '0');
  return tableWrap(
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Area'), ...AREA_COLUMNS.map((c) => h('th', { scope: 'col' }, labelOf(c))))),
      h('tbody', {}, ...board.areas.map((a) => h('tr', {}, h('th', { scope: 'row' }, a.area), ...AREA_COLUMNS.map((c) => h('td', {}, cell(a, c)))))),
    ),
  );
}

/** The board of a date and area: every count, and the people of the one shown (its first LIST_FIRST, or all). */
function read(state: Choice, all: boolean): Promise<Board> {
  return api.get<Board>(`attendance/today/${query({ date: state.date, area: state.area, count: state.show, limit: all ? undefined : LIST_FIRST })}`);
}
