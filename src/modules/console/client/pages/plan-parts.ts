/**
 * What the plan's sections share (pages/plan.ts, pages/plan-people.ts): the lists' shapes, how a
 * list is shown a page at a time, how a form is sent and how a row is deleted.
 */

import { api, can, type Pager } from '../api';
import { announce, button, type Child, confirmAction, h, table } from '../dom';
import { onSubmit } from '../form-errors';
import { figure } from '../format';

export interface Schedule {
  id: string;
  name: string;
  start: string;
  end: string;
  break?: string;
  grace_in?: string;
  weekdays?: number[] | null;
  /** Someone outside the caller's areas works it: not the caller's to change or delete (403). */
  used_elsewhere?: boolean;
}
export interface Assignment {
  id: string;
  schedule: string;
  enrollee?: string | null;
  area?: string | null;
  from: string;
  to?: string | null;
}
export interface Holiday {
  id: string;
  date: string;
  name: string;
  recurring?: boolean;
  areas?: string[];
  /** One person's holiday (their id): theirs to change for whoever sees them. */
  enrollee?: string | null;
}
export interface Leave {
  id: string;
  enrollee: string;
  /** Their employee id: named by it when the person is not listed any more. */
  employee: string;
  from: string;
  to: string;
  kind: string;
}
export interface PayPeriod {
  id: string;
  from: string;
  to: string;
  locked: boolean;
  locked_at?: string | null;
}

/** Weekdays from Monday, as people read a week. */
export const WEEK = [1, 2, 3, 4, 5, 6, 0];

/**
 * A list read a page at a time as a table: the rows read so far, then how many (every one read)
 * or that there are more, with "Show more", which reads the next page (`before` first, e.g. the
 * names of its people) and adds its rows under the others. Never one page silently taken for all.
 */
export function pagedTable<T>(
  rows: Pager<T>,
  shape: { headers: string[]; row: (item: T) => Child[]; empty: string; noun: [string, string]; before?: (items: readonly T[]) => Promise<void> },
): HTMLElement[] {
  const list = table(shape.headers, rows.rows.map(shape.row), shape.empty);
  const said = h('p', { class: 'muted', role: 'status' });
  const tell = () => {
    const n = rows.rows.length;
    const [one, many] = shape.noun;
    said.textContent = rows.more ? `${figure(n)} shown; there are more.` : n > 0 ? `${figure(n)} ${n === 1 ? one : many}` : '';
  };
  const more = button(`Show more ${shape.noun[1]}`, async () => {
    const page = await rows.next();
    await shape.before?.(page);
    const body = list.querySelector('tbody');
    body?.append(...page.map((item) => h('tr', {}, ...shape.row(item).map((c) => h('td', {}, c)))));
    tell();
    more.hidden = !rows.more;
  });
  more.hidden = !rows.more;
  tell();
  return [list, said, more];
}

/** Every form here shows its errors beside the field (form-errors.ts); `fields` maps the API's names to the controls. */
export function submitter(form: HTMLFormElement, work: () => Promise<void>, fields: Record<string, HTMLElement> = {}): HTMLFormElement {
  return onSubmit(form, fields, work);
}

/**
 * A delete button, for a role that may delete it (`action`, a policy row); else nothing. Its
 * accessible name says what it deletes ("Delete schedule Day"): a table has many.
 */
export function remove(path: string, what: string, draw: () => Promise<void>, action: string): HTMLButtonElement | string {
  if (!can(action)) return '';
  return button(
    'Delete',
    async () => {
      if (!(await confirmAction(`Delete ${what}?`, { action: 'Delete' }))) return;
      await api.delete(path);
      await draw();
      announce(`${what.charAt(0).toUpperCase()}${what.slice(1)} deleted.`);
    },
    { 'aria-label': `Delete ${what}` },
  );
}
