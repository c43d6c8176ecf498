/**
 * The Today board's list of people (name, area, status, expected start, first in, late by, in
 * now), drawn so that a whole company's list stays light: at 10,000 people ("Show all 10,000")
 * a live read every 2 seconds used to rebuild the table whole, a 1.9 s freeze of the tab each
 * time, and its first drawing froze it 3 s.
 *
 * - A read updates the list in place: the rows of people whose line changed are drawn again,
 *   those who left the count are taken out and those who joined it put in at their place (by
 *   name, as the server lists them); every other row stays as it is, focus included.
 * - A long list is built a few hundred rows at a time, each step its own task, so the page
 *   answers between them; the first rows show at once.
 * - Its rows are laid out in groups of CHUNK (one `tbody` each) whose rendering the browser skips
 *   while they are out of view (CSS `content-visibility: auto`): a table laid out as a table
 *   lays out every row again for any change. The rows stay in the page (find in page, screen
 *   readers), as a table: the roles say so, since it is not laid out as one.
 */
import type { TodayBoardView } from '../../../attendance';
import { badge, h, replace, tableWrap } from '../dom';
import { duration, hourMinute } from '../format';
import { focusHeadingOf } from '../keep-focus';
import { toldApart } from '../people-names';

type Person = TodayBoardView['people'][number];
type Tone = 'ok' | 'warn' | 'bad' | 'muted' | 'info';

const STATUS_WORDS: Record<Person['status'], [string, Tone]> = {
  present: ['On time', 'ok'],
  late: ['Late', 'warn'],
  scheduled: ['Not due yet', 'muted'],
  not_in_yet: ['Not in yet', 'warn'],
  absent: ['Absent', 'bad'],
  on_leave: ['On leave', 'info'],
  holiday: ['Holiday', 'muted'],
  off: ['Day off', 'muted'],
};

/**
 * A row's status: "On time" only against a shift's start; without a shift, who came in simply
 * came in, and who has not is not due yet, as the tile that counts them says.
 */
function statusWords(p: Person): [string, Tone] {
  if (p.status === 'present' && p.expected_start === null) return ['Came in (no shift)', 'ok'];
  if (p.status === 'scheduled' && p.expected_start === null) return ['Not due yet (no shift)', 'muted'];
  return STATUS_WORDS[p.status];
}

const HEADERS = ['Name', 'Area', 'Status', 'Expected start', 'First in', 'Late by', 'In now'];
/** Rows per group whose rendering is skipped while out of view. */
const CHUNK = 100;
/** Rows built or compared per task: a step takes a few tens of milliseconds at most. */
const STEP = 250;
/** A row's height, about: the room a group not drawn yet keeps in the page (then its real one). */
const ROW_PX = 38;

/** What a row shows of a person: a row is drawn again only when this changed. */
function lineOf(p: Person): string {
  return JSON.stringify([p.display_name, p.areas, p.status, p.expected_start, p.first_in, p.late_seconds, p.in_now, p.last_out, p.time_zone]);
}

function rowOf(p: Person): HTMLTableRowElement {
  const cell = (child: Node | string) => h('td', { role: 'cell' }, child);
  return h(
    'tr',
    { role: 'row' },
    cell(h('a', { href: `#/people/${p.enrollee}` }, p.display_name)),
    cell(p.areas.join(', ')),
    cell(badge(...statusWords(p))),
    // A person of an area with a zone of its own: their times where they work (README "Time zones").
    cell(p.expected_start ? hourMinute(p.expected_start, p.time_zone) : '—'),
    cell(p.first_in ? hourMinute(p.first_in, p.time_zone) : '—'),
    cell(p.late_seconds > 0 ? duration(p.late_seconds) : '—'),
    cell(p.in_now ? badge('In', 'ok') : p.last_out ? `Left ${hourMinute(p.last_out, p.time_zone)}` : '—'),
  );
}

/** A turn of the event loop: the browser draws, and answers clicks and keys, before the next step. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

interface Shown {
  row: HTMLTableRowElement;
  line: string;
}

/** The list of one count's people, kept up to date by `show`. */
export class BoardList {
  /** Where the list is: its table, or "Nobody." */
  readonly element = h('div', { class: 'board-people' });
  private table: HTMLTableElement | null = null;
  private readonly shown = new Map<string, Shown>();
  /** Calls of `show`: a step of an earlier one stops when a later one has begun. */
  private calls = 0;

  /**
   * Shows these people (by name, as the server lists them), namesakes each with their employee id;
   * resolves once all are drawn, or a later call took over.
   */
  async show(listed: readonly Person[]): Promise<void> {
    const call = ++this.calls;
    const people = toldApart(listed);
    if (people.length === 0) {
      this.clear();
      replace(this.element, h('p', { class: 'empty' }, 'Nobody.'));
      return;
    }
    const next = new Set(people.map((p) => p.enrollee));
    const kept = [...this.shown.keys()].filter((id) => next.has(id)).length;
    // Another list (another count chosen) is drawn afresh; the same one again, in place.
    if (this.table === null || kept < this.shown.size / 2) this.start();
    for (const [id, { row }] of this.shown) {
      if (next.has(id)) continue;
      // Focus in a row taken out goes to the list's heading, as after a redraw.
      if (row.contains(document.activeElement)) focusHeadingOf(row);
      row.remove();
      this.shown.delete(id);
    }
    let previous: HTMLTableRowElement | null = null;
    for (let i = 0; i < people.length; i++) {
      if (i > 0 && i % STEP === 0) {
        await nextTask();
        if (call !== this.calls) return;
      }
      previous = this.place(people[i]!, previous);
    }
    this.tidyGroups();
  }

  /** The person's row after `previous` (the first when null): kept, drawn again, put in or moved there. Returns it. */
  private place(p: Person, previous: HTMLTableRowElement | null): HTMLTableRowElement {
    const line = lineOf(p);
    const shown = this.shown.get(p.enrollee);
    let row: HTMLTableRowElement;
    if (shown && shown.line === line) row = shown.row;
    else {
      row = rowOf(p);
      if (shown) {
        const hadFocus = shown.row.contains(document.activeElement);
        shown.row.replaceWith(row);
        if (hadFocus) row.querySelector('a')?.focus({ preventScroll: true });
      }
      this.shown.set(p.enrollee, { row, line });
    }
    if (this.rowAfter(previous) !== row) this.insertAfter(previous, row);
    return row;
  }

  /** The row that follows `row` in the list (the first row when null), across groups. */
  private rowAfter(row: HTMLTableRowElement | null): Element | null {
    if (row?.nextElementSibling) return row.nextElementSibling;
    let group: Element | null = row ? row.parentElement!.nextElementSibling : (this.table?.tBodies[0] ?? null);
    while (group && !group.firstElementChild) group = group.nextElementSibling;
    return group?.firstElementChild ?? null;
  }

  /** Puts `row` after `previous` (first in the list when null); a row past the last group starts a new one. */
  private insertAfter(previous: HTMLTableRowElement | null, row: HTMLTableRowElement): void {
    if (previous) {
      const group = previous.parentElement as HTMLTableSectionElement;
      if (previous.nextElementSibling || group.rows.length < CHUNK || group.nextElementSibling) previous.after(row);
      else this.newGroup().append(row);
      return;
    }
    (this.table!.tBodies[0] ?? this.newGroup()).prepend(row);
  }

  private newGroup(): HTMLTableSectionElement {
    const group = h('tbody', { role: 'rowgroup', class: 'chunk' });
    // Out of view it keeps about the room of its rows until drawn (then the room it took); a
    // group that is not filled is given the room of its rows at the end of `show`.
    group.style.containIntrinsicSize = `auto ${CHUNK * ROW_PX}px`;
    this.table!.append(group);
    return group;
  }

  /**
   * Drops the groups left empty and keeps, for each group not drawn yet, the room of the rows it
   * has: a list of 5 kept a whole group's room (3,800 px) until it was scrolled to, which on a
   * phone (the list under the tiles, out of view) made the page five screens long and blank.
   */
  private tidyGroups(): void {
    for (const group of Array.from(this.table?.tBodies ?? [])) {
      if (group.rows.length === 0) {
        group.remove();
        continue;
      }
      // Written only when it changes (a live read of a long list leaves most groups as they were).
      const room = `auto ${group.rows.length * ROW_PX}px`;
      if (group.style.containIntrinsicSize !== room) group.style.containIntrinsicSize = room;
    }
  }

  private start(): void {
    this.shown.clear();
    const head = h('thead', { role: 'rowgroup' }, h('tr', { role: 'row' }, ...HEADERS.map((x) => h('th', { scope: 'col', role: 'columnheader' }, x))));
    this.table = h('table', { role: 'table', class: 'long-list' }, head);
    replace(this.element, tableWrap(this.table));
  }

  private clear(): void {
    this.table = null;
    this.shown.clear();
  }
}
