/**
 * What attendance days are judged by: work schedules and who follows them, holidays, leave, and
 * pay periods (locking one freezes its days).
 */
import { api, can, type List } from '../api';
import { announce, badge, button, confirmAction, field, h, input, replace, section, select, table } from '../dom';
import { dateTime, words } from '../format';
import type { Enrollee } from '../types';

interface Schedule {
  id: string;
  name: string;
  start: string;
  end: string;
  weekdays?: number[];
}
interface Assignment {
  id: string;
  schedule: string;
  enrollee?: string | null;
  area?: string | null;
  from: string;
  to?: string | null;
}
interface Holiday {
  id: string;
  date: string;
  name: string;
  recurring?: boolean;
}
interface Leave {
  id: string;
  enrollee: string;
  from: string;
  to: string;
  kind: string;
}
interface PayPeriod {
  id: string;
  from: string;
  to: string;
  locked: boolean;
  locked_at?: string | null;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** Loads a whole list (these lists are short: schedules, holidays, periods). */
async function all<T>(path: string): Promise<T[]> {
  return (await api.get<List<T>>(path)).results;
}

function submitter(form: HTMLFormElement, work: () => Promise<void>): HTMLFormElement {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void work();
  });
  return form;
}

export async function planSections(enrollees: Enrollee[]): Promise<HTMLElement[]> {
  const holder = h('div', { class: 'plan' });
  const draw = async () => {
    const [schedules, assignments, holidays, leaves, periods] = await Promise.all([
      all<Schedule>('work-schedules/?limit=1000'),
      all<Assignment>('shift-assignments/?limit=1000'),
      all<Holiday>('holidays/?limit=1000'),
      all<Leave>('leaves/?limit=1000'),
      all<PayPeriod>('pay-periods/?limit=1000'),
    ]);
    const nameOf = (id: string | null | undefined) => enrollees.find((e) => e.id === id)?.display_name ?? id ?? '';
    const scheduleName = (id: string) => schedules.find((s) => s.id === id)?.name ?? id;
    const people = enrollees.filter((e) => e.status === 'active').map((e): [string, string] => [e.id, e.display_name]);
    replace(
      holder,
      payPeriods(periods, draw),
      schedulesSection(schedules, draw),
      assignmentsSection(assignments, schedules, people, nameOf, scheduleName, draw),
      holidaysSection(holidays, draw),
      leavesSection(leaves, people, nameOf, draw),
    );
  };
  await draw();
  return [holder];
}

/** A delete button, for a role that may delete it (`action`, a policy row); else nothing. */
function remove(path: string, what: string, draw: () => Promise<void>, action: string): HTMLButtonElement | string {
  if (!can(action)) return '';
  return button('Delete', async () => {
    if (!(await confirmAction(`Delete ${what}?`, { action: 'Delete' }))) return;
    await api.delete(path);
    await draw();
    announce(`${what} deleted.`);
  });
}

function payPeriods(periods: PayPeriod[], draw: () => Promise<void>): HTMLElement {
  const from = input({ type: 'date', required: true });
  const to = input({ type: 'date', required: true });
  const form = submitter(
    h('form', { class: 'inline-form' }, field('From', from), field('To', to), h('button', { type: 'submit' }, 'Add pay period')),
    async () => {
      await api.post('pay-periods/', { from: from.value, to: to.value });
      await draw();
      announce('Pay period added.');
    },
  );
  return section(
    'Pay periods',
    table(
      ['From', 'To', 'State', ''],
      periods.map((p) => [
        p.from,
        p.to,
        p.locked ? badge(`Locked ${p.locked_at ? dateTime(p.locked_at) : ''}`, 'muted') : badge('Open', 'ok'),
        p.locked || !can('POST pay-periods/{id}/lock/')
          ? ''
          : button('Lock', async () => {
              if (
                !(await confirmAction(`Lock ${p.from} to ${p.to}?`, { action: 'Lock', detail: 'Its days never change again; late punches are only flagged.' }))
              )
                return;
              await api.post(`pay-periods/${encodeURIComponent(p.id)}/lock/`);
              await draw();
              announce('Pay period locked.');
            }),
      ]),
      'No pay periods yet.',
    ),
    can('POST pay-periods/') && form,
  );
}

function schedulesSection(schedules: Schedule[], draw: () => Promise<void>): HTMLElement {
  const name = input({ required: true, autocomplete: 'off', placeholder: 'Day shift' });
  const start = input({ type: 'time', required: true, value: '09:00' });
  const end = input({ type: 'time', required: true, value: '17:00' });
  const grace = input({ value: '10m', autocomplete: 'off' });
  const form = submitter(
    h(
      'form',
      { class: 'inline-form' },
      field('Name', name),
      field('Starts', start),
      field('Ends', end, 'Before the start: overnight.'),
      field('Grace', grace, 'e.g. 10m'),
      h('button', { type: 'submit' }, 'Add schedule'),
    ),
    async () => {
      await api.post('work-schedules/', { name: name.value.trim(), start: start.value, end: end.value, grace_in: grace.value.trim() || undefined });
      await draw();
      announce('Schedule added.');
    },
  );
  return section(
    'Work schedules',
    table(
      ['Name', 'Hours', 'Days', ''],
      schedules.map((s) => [
        s.name,
        `${s.start}–${s.end}`,
        (s.weekdays ?? [1, 2, 3, 4, 5]).map((d) => WEEKDAYS[d]).join(' '),
        remove(`work-schedules/${encodeURIComponent(s.id)}/`, `schedule ${s.name}`, draw, 'DELETE work-schedules/{id}/'),
      ]),
      'No schedules: DEFAULT_SCHEDULE applies.',
    ),
    can('POST work-schedules/') && form,
  );
}

function assignmentsSection(
  assignments: Assignment[],
  schedules: Schedule[],
  people: [string, string][],
  nameOf: (id: string | null | undefined) => string,
  scheduleName: (id: string) => string,
  draw: () => Promise<void>,
): HTMLElement {
  const schedule = select(schedules.map((s): [string, string] => [s.id, s.name]));
  const who = select(people);
  const from = input({ type: 'date', required: true });
  const form = submitter(
    h('form', { class: 'inline-form' }, field('Schedule', schedule), field('Person', who), field('From', from), h('button', { type: 'submit' }, 'Assign')),
    async () => {
      await api.post('shift-assignments/', { schedule: schedule.value, enrollee: who.value, from: from.value });
      await draw();
      announce('Schedule assigned.');
    },
  );
  return section(
    'Who works which schedule',
    table(
      ['Schedule', 'Who', 'From', 'To', ''],
      assignments.map((a) => [
        scheduleName(a.schedule),
        a.enrollee ? nameOf(a.enrollee) : `Area ${a.area ?? ''}`,
        a.from,
        a.to ?? 'open-ended',
        remove(`shift-assignments/${encodeURIComponent(a.id)}/`, 'this assignment', draw, 'DELETE shift-assignments/{id}/'),
      ]),
      'Nobody is assigned a schedule.',
    ),
    schedules.length > 0 && people.length > 0 && can('POST shift-assignments/') ? form : null,
  );
}

function holidaysSection(holidays: Holiday[], draw: () => Promise<void>): HTMLElement {
  const date = input({ type: 'date', required: true });
  const name = input({ required: true, autocomplete: 'off' });
  const form = submitter(
    h('form', { class: 'inline-form' }, field('Date', date), field('Name', name), h('button', { type: 'submit' }, 'Add holiday')),
    async () => {
      await api.post('holidays/', { date: date.value, name: name.value.trim() });
      await draw();
      announce('Holiday added.');
    },
  );
  return section(
    'Holidays',
    table(
      ['Date', 'Name', ''],
      holidays.map((x) => [
        x.date,
        `${x.name}${x.recurring ? ' (every year)' : ''}`,
        remove(`holidays/${encodeURIComponent(x.id)}/`, `holiday ${x.name}`, draw, 'DELETE holidays/{id}/'),
      ]),
      'No holidays.',
    ),
    can('POST holidays/') && form,
  );
}

function leavesSection(leaves: Leave[], people: [string, string][], nameOf: (id: string) => string, draw: () => Promise<void>): HTMLElement {
  const who = select(people);
  const from = input({ type: 'date', required: true });
  const to = input({ type: 'date', required: true });
  const kind = input({ required: true, value: 'vacation', autocomplete: 'off' });
  const form = submitter(
    h(
      'form',
      { class: 'inline-form' },
      field('Person', who),
      field('From', from),
      field('To', to),
      field('Kind', kind),
      h('button', { type: 'submit' }, 'Add leave'),
    ),
    async () => {
      await api.post('leaves/', { enrollee: who.value, from: from.value, to: to.value, kind: kind.value.trim() });
      await draw();
      announce('Leave added.');
    },
  );
  return section(
    'Leave',
    table(
      ['Who', 'From', 'To', 'Kind', ''],
      leaves.map((l) => [
        nameOf(l.enrollee),
        l.from,
        l.to,
        words(l.kind),
        remove(`leaves/${encodeURIComponent(l.id)}/`, 'this leave', draw, 'DELETE leaves/{id}/'),
      ]),
      'No leave recorded.',
    ),
    people.length > 0 && can('POST leaves/') ? form : null,
  );
}
