/**
 * What the plan's sections share (pages/plan.ts, pages/plan-people.ts): the lists' shapes, how a
 * list is read, how a form is sent and how a row is deleted.
 */

import { api, can, type List } from '../api';
import { announce, button, confirmAction } from '../dom';
import { onSubmit } from '../form-errors';

export interface Schedule {
  id: string;
  name: string;
  start: string;
  end: string;
  break?: string;
  grace_in?: string;
  weekdays?: number[] | null;
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

/** Loads a whole list (these lists are short: schedules, holidays, periods). */
export async function all<T>(path: string): Promise<T[]> {
  return (await api.get<List<T>>(path)).results;
}

/** Every form here shows its errors beside the field (form-errors.ts); `fields` maps the API's names to the controls. */
export function submitter(form: HTMLFormElement, work: () => Promise<void>, fields: Record<string, HTMLElement> = {}): HTMLFormElement {
  return onSubmit(form, fields, work);
}

/** A delete button, for a role that may delete it (`action`, a policy row); else nothing. */
export function remove(path: string, what: string, draw: () => Promise<void>, action: string): HTMLButtonElement | string {
  if (!can(action)) return '';
  return button('Delete', async () => {
    if (!(await confirmAction(`Delete ${what}?`, { action: 'Delete' }))) return;
    await api.delete(path);
    await draw();
    announce(`${what} deleted.`);
  });
}
