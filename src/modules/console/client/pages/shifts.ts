/**
 * Shifts and the calendar: who works when (a week of an area), assigning a schedule to an area or
 * to many people at once, work schedules (days and breaks), holidays, leave and pay periods.
 */

import type { EnrolleeView } from '../../../enrollees';
import { api, type List } from '../api';
import { h, replace } from '../dom';
import { planSections } from './plan';

export async function shiftsPage(main: HTMLElement): Promise<undefined> {
  const enrollees = await api.get<List<EnrolleeView>>('enrollees/?limit=1000&sort=name');
  replace(main, h('h1', {}, 'Shifts and calendar'), ...(await planSections(enrollees.results)));
  return undefined;
}
