/**
 * The plan's sections about people: who works which schedule (assigned to everyone in an area,
 * or to people chosen one by one) and leave. People are found on the server as they are typed
 * (the person picker, the people chooser) and the lists name theirs by id (people-names.ts):
 * never a list of everyone loaded first, which stopped at the API's 1,000 and left the rest out.
 */

import { api, can, type Pager } from '../api';
import { areaSelect } from '../area-picker';
import { announce, field, h, input, section, select } from '../dom';
import { FieldError } from '../form-errors';
import { count, localDay, words } from '../format';
import type { PeopleChooser } from '../people-chooser';
import type { PeopleNames } from '../people-names';
import { personPicker } from '../person-picker';
import { type Assignment, type Leave, pagedTable, remove, type Schedule, submitter } from './plan-parts';

/** What these sections are drawn with: the schedules, the names of the people listed, the chooser kept across redraws, and the redraw. */
export interface PlanPeople {
  schedules: Schedule[];
  names: PeopleNames;
  chooser: PeopleChooser;
  draw: () => Promise<void>;
}

const scheduleName = (plan: PlanPeople, id: string) => plan.schedules.find((s) => s.id === id)?.name ?? id;

/** The form that assigns a schedule to everyone in an area, or to chosen people at once. */
async function assignForm(plan: PlanPeople): Promise<HTMLFormElement> {
  const preset = new URLSearchParams(location.hash.split('?')[1] ?? '').get('area') ?? undefined;
  const schedule = select(plan.schedules.map((s): [string, string] => [s.id, s.name]));
  const target = select([
    ['area', 'Everyone in an area'],
    ['people', 'Chosen people'],
  ]);
  const area = await areaSelect({ selected: preset });
  const areaField = field('Area', area);
  const chosen = plan.chooser;
  chosen.element.hidden = true;
  target.addEventListener('change', () => {
    areaField.hidden = target.value !== 'area';
    chosen.element.hidden = target.value !== 'people';
  });
  const from = input({ type: 'date', required: true });
  const to = input({ type: 'date' });
  return submitter(
    h(
      'form',
      { class: 'inline-form' },
      field('Schedule', schedule),
      field('Assign to', target),
      areaField,
      chosen.element,
      field('From', from),
      field('To', to, 'Empty: open-ended.'),
      h('button', { type: 'submit', class: 'primary' }, 'Assign'),
    ),
    async () => {
      const dates = { from: from.value, ...(to.value ? { to: to.value } : {}) };
      const name = scheduleName(plan, schedule.value);
      if (target.value === 'area') {
        const made = await api.post<{ people_with_own_schedule: number | null }>('shift-assignments/', {
          schedule: schedule.value,
          area: area.value,
          ...dates,
        });
        const own = made.people_with_own_schedule ?? 0;
        // Their own schedule goes first: said, or the owner is left wondering why nothing changed for them.
        const notReached =
          own > 0
            ? ` ${count(own, 'person', 'people')} of ${area.value} ${own === 1 ? 'has a schedule' : 'have schedules'} of their own on these dates, which ${own === 1 ? 'goes' : 'go'} first: this one does not apply to ${own === 1 ? 'them' : 'those people'} (assign it to them by name to change that).`
            : '';
        announce(`${name} assigned to everyone in ${area.value}.${notReached}`);
      } else {
        const people = await chosen.people();
        if (people.length === 0) throw new FieldError('enrollees', 'Choose at least one person.');
        await api.post('shift-assignments/batch/', { schedule: schedule.value, enrollees: people.map((p) => p.id), ...dates });
        announce(`${name} assigned to ${people.length === 1 ? people[0]!.display_name : `${people.length} people`}.`);
      }
      // Sent: the form starts afresh, the people chosen too (they are kept across other redraws).
      chosen.clear();
      await plan.draw();
    },
    { schedule, area, enrollees: chosen.control, from, to },
  );
}

export async function assignmentsSection(assignments: Pager<Assignment>, plan: PlanPeople): Promise<HTMLElement> {
  return section(
    'Who works which schedule',
    ...pagedTable(assignments, {
      headers: ['Schedule', 'Who', 'From', 'To', ''],
      row: (a) => {
        const who = a.enrollee ? (plan.names.get(a.enrollee)?.display_name ?? a.enrollee) : `Everyone in ${a.area ?? ''}`;
        // Named in full: a screen reader's list of buttons says which row each Delete is in.
        const what = `the ${scheduleName(plan, a.schedule)} shift of ${who}, starting ${localDay(a.from)}`;
        return [
          scheduleName(plan, a.schedule),
          who,
          localDay(a.from),
          a.to ? localDay(a.to) : 'Open-ended',
          remove(`shift-assignments/${encodeURIComponent(a.id)}/`, what, plan.draw, 'DELETE shift-assignments/{id}/'),
        ];
      },
      empty: 'Nobody is assigned a schedule in these dates.',
      noun: ['assignment', 'assignments'],
      before: (page) => plan.names.load(page.map((a) => a.enrollee)),
    }),
    !can('POST shift-assignments/')
      ? null
      : plan.schedules.length > 0
        ? await assignForm(plan)
        : h('p', { class: 'muted' }, 'Add a work schedule below first.'),
  );
}

export function leavesSection(leaves: Pager<Leave>, plan: PlanPeople): HTMLElement {
  // Active people, as before: found by name or employee id as typed.
  const who = personPicker({ label: 'Person', field: 'enrollee', activeOnly: true, required: true });
  const from = input({ type: 'date', required: true });
  const to = input({ type: 'date', required: true });
  // Any word, as payroll names its kinds; those already used here (and the usual ones) to pick from.
  const kinds = [...new Set(['vacation', 'sick', 'parental', 'unpaid', 'training', ...leaves.rows.map((l) => l.kind)])];
  const kind = input({ required: true, value: 'vacation', autocomplete: 'off', list: 'leave-kinds' });
  const form = submitter(
    h(
      'form',
      { class: 'inline-form' },
      who.element,
      field('From', from),
      field('To', to),
      field('Kind', kind, 'Pick one or type your own.'),
      h('datalist', { id: 'leave-kinds' }, ...kinds.map((k) => h('option', { value: k }))),
      h('button', { type: 'submit' }, 'Add leave'),
    ),
    async () => {
      const person = await who.person();
      await api.post('leaves/', { enrollee: person?.id ?? '', from: from.value, to: to.value, kind: kind.value.trim() });
      await plan.draw();
      announce('Leave added.');
    },
    { enrollee: who.control, from, to, kind },
  );
  return section(
    'Leave',
    ...pagedTable(leaves, {
      headers: ['Who', 'From', 'To', 'Kind', ''],
      row: (l) => {
        const who = plan.names.get(l.enrollee)?.display_name ?? l.employee;
        const what = `the leave of ${who}, ${localDay(l.from)} – ${localDay(l.to)}`;
        return [who, localDay(l.from), localDay(l.to), words(l.kind), remove(`leaves/${encodeURIComponent(l.id)}/`, what, plan.draw, 'DELETE leaves/{id}/')];
      },
      empty: 'No leave recorded in these dates.',
      noun: ['leave', 'leaves'],
      before: (page) => plan.names.load(page.map((l) => l.enrollee)),
    }),
    can('POST leaves/') ? form : null,
  );
}
