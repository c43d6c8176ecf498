/**
 * Shifts and the calendar: who works when (a week of an area), assigning a schedule to an area or
 * to many people at once, work schedules (days and breaks), holidays, leave and pay periods.
 * People are found as they are typed, never loaded all first (pages/plan-people.ts).
 */

import { h, replace } from '../dom';
import { planSections } from './plan';

export async function shiftsPage(main: HTMLElement): Promise<undefined> {
  replace(main, h('h1', {}, 'Shifts and calendar'), ...(await planSections()));
  return undefined;
}
