/**
 * Which assignments and leave the Shifts page lists: those covering a date from a chosen one on
 * (a month back unless another is chosen), for everyone or one person (the person picker), read
 * a page at a time ("Show more"), never every leave ever taken. A company of 10,000 has more
 * assignments than one page of the API and, after a year, thousands of leaves: reading one page
 * of 1,000 showed the oldest and silently left the rest out.
 */

import { type Pager, pager, type QueryParams } from '../api';
import { field, h, input, section } from '../dom';
import { onSubmit } from '../form-errors';
import { addDays, localDate } from '../format';
import { personPicker } from '../person-picker';
import type { Assignment, Leave } from './plan-parts';

/** Rows read at a time: a page a browser draws at once. */
const PLAN_PAGE = 100;
/** The window starts this many days back unless another date is chosen: what matters now. */
const DAYS_BACK = 30;

export interface PlanWindow {
  /** The form choosing from which date, and whose (kept across the page's redraws). */
  element: HTMLElement;
  /** The lists read afresh with the window's filters, as many rows as were shown before (at least a page). */
  load(): Promise<{ assignments: Pager<Assignment>; leaves: Pager<Leave> }>;
}

export function planWindow(redraw: () => Promise<void>): PlanWindow {
  const from = input({ type: 'date', required: true, value: addDays(localDate(), -DAYS_BACK) });
  const who = personPicker({ label: 'Person', field: 'enrollee', hint: 'Empty: everyone.' });
  let filters: QueryParams = { from: from.value };
  let last: { assignments: Pager<Assignment>; leaves: Pager<Leave> } | null = null;
  const form = onSubmit(
    h(
      'form',
      { class: 'inline-form', role: 'search', 'aria-label': 'Dates and person shown' },
      field('Covering from', from, `Those that end on this date or later (${DAYS_BACK} days back to begin with).`),
      who.element,
      h('button', { type: 'submit' }, 'Show'),
    ),
    { from, enrollee: who.control },
    async () => {
      const person = await who.person();
      filters = { from: from.value, enrollee: person?.id };
      // Other filters: the lists start again at their first page.
      last = null;
      await redraw();
    },
  );
  return {
    element: section('Dates and person shown', form),
    async load() {
      // A redraw after a change keeps as many rows as were shown, so "Show more" is not undone.
      const shown = { assignments: Math.max(PLAN_PAGE, last?.assignments.rows.length ?? 0), leaves: Math.max(PLAN_PAGE, last?.leaves.rows.length ?? 0) };
      const assignments = pager<Assignment>('shift-assignments/', filters, PLAN_PAGE);
      const leaves = pager<Leave>('leaves/', filters, PLAN_PAGE);
      await Promise.all([assignments.until(shown.assignments), leaves.until(shown.leaves)]);
      last = { assignments, leaves };
      return last;
    },
  };
}
