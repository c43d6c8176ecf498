/**
 * What attendance days are judged by: work schedules and who follows them, holidays, leave, and
 * pay periods (locking one freezes its days). The sections about people (who works which
 * schedule, leave) are in plan-people.ts, what they share in plan-parts.ts.
 */

import { ApiError, api, can, everyRow, whollyMine } from '../api';
import { areasPicker, noneChosen } from '../area-picker';
import { announce, badge, button, confirmAction, field, h, input, replace, section, table } from '../dom';
import { plainMessage } from '../form-errors';
import { dateTime, localDay, weekdayName } from '../format';
import { typedKeeper } from '../keep-typed';
import { peopleChooser } from '../people-chooser';
import { type PeopleNames, peopleNames } from '../people-names';
import { type Holiday, type PayPeriod, remove, type Schedule, submitter, WEEK } from './plan-parts';
import { assignmentsSection, leavesSection } from './plan-people';
import { planWindow } from './plan-window';
import { rosterSection } from './roster';

const BATCH_PEOPLE = 1000;

/** Checkboxes of the weekdays, Monday first. */
function weekdayPicker(chosen: readonly number[]): {
  element: HTMLElement;
  value: () => number[];
  set: (days: readonly number[]) => void;
  touched: () => boolean;
} {
  const boxes = WEEK.map((day) => {
    const box = h('input', { type: 'checkbox', value: day, id: `weekday-${day}-${Math.random().toString(36).slice(2, 7)}`, checked: chosen.includes(day) });
    return { box, element: h('span', { class: 'check' }, box, h('label', { for: box.id }, weekdayName(day))) };
  });
  let touched = false;
  for (const b of boxes) b.box.addEventListener('change', () => (touched = true));
  return {
    element: h('fieldset', { class: 'weekdays' }, h('legend', {}, 'Days'), ...boxes.map((b) => b.element)),
    value: () => boxes.filter((b) => b.box.checked).map((b) => Number(b.box.value)),
    set: (days: readonly number[]) => {
      for (const b of boxes) b.box.checked = days.includes(Number(b.box.value));
      touched = false;
    },
    /** Whether a box was changed since the days were last set. */
    touched: () => touched,
  };
}

export async function planSections(): Promise<HTMLElement[]> {
  const holder = h('div', { class: 'plan' });
  // Every change redraws every section: what is typed in the other forms stays.
  const typing = typedKeeper(holder);
  // Kept across the redraws (their own state): the names asked for by id, and the people being
  // chosen for a schedule (a redraw for another change does not lose them).
  const names = peopleNames();
  // The batch endpoint's limit (shift-assignments/batch/, 1,000 people): said before it is reached.
  const chooser = peopleChooser({ legend: 'People', field: 'enrollees', activeOnly: true, max: BATCH_PEOPLE });
  const shown = planWindow(() => draw());
  const draw = async () => {
    const typed = typing.snapshot();
    // The short lists whole, page after page; assignments and leave those of the window chosen, a page at a time.
    const [schedules, holidays, periods, { assignments, leaves }] = await Promise.all([
      everyRow<Schedule>('work-schedules/'),
      everyRow<Holiday>('holidays/'),
      everyRow<PayPeriod>('pay-periods/'),
      shown.load(),
    ]);
    await names.load([...assignments.rows.map((a) => a.enrollee), ...leaves.rows.map((l) => l.enrollee), ...holidays.map((x) => x.enrollee)]);
    const plan = { schedules, names, chooser, draw };
    replace(
      holder,
      await rosterSection(),
      shown.element,
      await assignmentsSection(assignments, plan),
      schedulesSection(schedules, draw),
      await holidaysSection(holidays, names, draw),
      leavesSection(leaves, plan),
      payPeriods(periods, draw),
    );
    typing.restore(typed);
  };
  await draw();
  return [holder];
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
    { from, to },
  );
  return section(
    'Pay periods',
    table(
      ['From', 'To', 'State', ''],
      periods.map((p) => [
        localDay(p.from),
        localDay(p.to),
        p.locked ? badge(`Locked ${p.locked_at ? dateTime(p.locked_at) : ''}`, 'muted') : badge('Open', 'ok'),
        // An open period can be deleted (one added with a wrong date); a locked one cannot: the lock is final.
        p.locked
          ? ''
          : h(
              'div',
              { class: 'actions' },
              lockButton(p, draw),
              remove(`pay-periods/${encodeURIComponent(p.id)}/`, `pay period ${localDay(p.from)} to ${localDay(p.to)}`, draw, 'DELETE pay-periods/{id}/'),
            ),
      ]),
      'No pay periods yet.',
    ),
    can('POST pay-periods/') && form,
  );
}

/** Lock an open period, for a role that may; refused (its last date not over, locked meanwhile) in words. */
function lockButton(p: PayPeriod, draw: () => Promise<void>): HTMLButtonElement | null {
  return !can('POST pay-periods/{id}/lock/')
    ? null
    : button(
        'Lock',
        async () => {
          if (
            !(await confirmAction(`Lock ${localDay(p.from)} to ${localDay(p.to)}?`, {
              action: 'Lock',
              detail: 'Its days never change again; late punches are only flagged.',
            }))
          )
            return;
          try {
            await api.post(`pay-periods/${encodeURIComponent(p.id)}/lock/`);
          } catch (error) {
            // Refused (a period whose last date is not over yet, or locked meanwhile): said in words.
            if (!(error instanceof ApiError) || error.status === 401) throw error;
            announce(plainMessage(error), 'bad');
            return;
          }
          await draw();
          announce('Pay period locked.');
        },
        { 'aria-label': `Lock pay period ${localDay(p.from)} to ${localDay(p.to)}` },
      );
}

function schedulesSection(schedules: Schedule[], draw: () => Promise<void>): HTMLElement {
  const editor = scheduleForm(draw);
  const mayChange = can('PATCH work-schedules/{id}/');
  return section(
    'Work schedules',
    table(
      ['Name', 'Hours', 'Break', 'Late after', 'Days', ''],
      schedules.map((s) => [
        s.name,
        `${s.start}–${s.end}`,
        s.break && s.break !== '0s' ? s.break : 'None',
        // What makes 08:02 on time: the grace in, shown as it was typed.
        s.grace_in && s.grace_in !== '0s' ? `${s.grace_in} past the start` : 'The start',
        s.weekdays
          ? WEEK.filter((d) => s.weekdays?.includes(d))
              .map((d) => weekdayName(d))
              .join(' ')
          : 'Every day but the weekend',
        // One also worked outside the caller's areas is changed by a caller whose areas cover it (403).
        s.used_elsewhere
          ? h('span', { class: 'muted' }, 'Also worked outside your areas: changed by an administrator of every area that works it.')
          : h(
              'span',
              { class: 'actions' },
              mayChange && button('Change', () => editor.fill(s), { 'aria-label': `Change ${s.name}` }),
              remove(`work-schedules/${encodeURIComponent(s.id)}/`, `schedule ${s.name}`, draw, 'DELETE work-schedules/{id}/'),
            ),
      ]),
      'No schedules yet: until one is assigned, attendance uses the installer’s default hours, if any.',
    ),
    (can('POST work-schedules/') || mayChange) && editor.form,
  );
}

/**
 * The form that adds a schedule, or changes one (`fill`): a schedule in use cannot be deleted
 * (its assignments hold it), so changing it in place is the ordinary way; the server recomputes
 * the days of everyone assigned it (locked pay periods stay as they are).
 */
function scheduleForm(draw: () => Promise<void>): { form: HTMLFormElement; fill: (schedule: Schedule | null) => void } {
  const name = input({ required: true, autocomplete: 'off', placeholder: 'Day shift' });
  const start = input({ type: 'time', required: true, value: '09:00' });
  const end = input({ type: 'time', required: true, value: '17:00' });
  const pause = input({ value: '30m', autocomplete: 'off', size: 6 });
  const grace = input({ value: '10m', autocomplete: 'off', size: 6 });
  const days = weekdayPicker([1, 2, 3, 4, 5]);
  let editing: Schedule | null = null;
  const submit = h('button', { type: 'submit' }, 'Add schedule');
  const cancel = button('Cancel', () => fill(null), { hidden: true });
  const fill = (schedule: Schedule | null) => {
    editing = schedule;
    // A redraw does not keep a change under way (plan.ts keepTyped): it would come back as a new schedule.
    form.dataset.editing = String(schedule !== null);
    name.value = schedule?.name ?? '';
    start.value = schedule?.start ?? '09:00';
    end.value = schedule?.end ?? '17:00';
    pause.value = schedule ? shownDuration(schedule.break) : '30m';
    grace.value = schedule ? shownDuration(schedule.grace_in) : '10m';
    days.set(schedule?.weekdays ?? [1, 2, 3, 4, 5]);
    submit.textContent = schedule ? `Save ${schedule.name}` : 'Add schedule';
    cancel.hidden = schedule === null;
    if (schedule) name.focus();
  };
  const fields = [
    field('Name', name),
    field('Starts', start),
    field('Ends', end, 'Before the start: overnight.'),
    field('Break', pause, 'Unpaid, e.g. 30m or 1h.'),
    field('Late after', grace, 'How long past the start, e.g. 10m.'),
  ];
  const form = submitter(
    h('form', { class: 'inline-form' }, ...fields, days.element, submit, cancel),
    async () => {
      const weekdays = days.value();
      if (weekdays.length === 0) throw new Error('Choose at least one day of the week.');
      // Emptied while changing: no break, no grace (left out, the server would keep the old ones).
      const none = editing ? '0m' : undefined;
      const body = {
        name: name.value.trim(),
        start: start.value,
        end: end.value,
        break: pause.value.trim() || none,
        grace_in: grace.value.trim() || none,
        // Without weekdays a schedule follows its people's areas' weekends (the boxes show
        // Mon–Fri for it): it keeps doing so unless a box was changed.
        weekdays: editing && !editing.weekdays && !days.touched() ? undefined : weekdays,
      };
      const changed = editing;
      if (changed) await api.patch(`work-schedules/${encodeURIComponent(changed.id)}/`, body);
      else await api.post('work-schedules/', body);
      await draw();
      announce(changed ? `${body.name} saved; the days of the people who work it follow.` : 'Schedule added.');
    },
    { name, start, end, break: pause, grace_in: grace, weekdays: days.element },
  );
  return { form, fill };
}

/** Whom a holiday is for: one person (by name), some areas, or everyone. */
function holidayWhere(x: Holiday, names: PeopleNames): string {
  if (x.enrollee) return `Only ${names.get(x.enrollee)?.display_name ?? 'one person'}`;
  return x.areas && x.areas.length > 0 ? x.areas.join(', ') : 'Everyone';
}

/** A stored duration as the form takes it back ('0s' and none read as empty: no break, no grace). */
function shownDuration(value: string | undefined): string {
  return value && value !== '0s' ? value : '';
}

async function holidaysSection(holidays: Holiday[], names: PeopleNames, draw: () => Promise<void>): Promise<HTMLElement> {
  const date = input({ type: 'date', required: true });
  const name = input({ required: true, autocomplete: 'off' });
  const areas = await areasPicker('Only in these areas', [], `None chosen: ${noneChosen('a holiday for everyone')}.`);
  const form = submitter(
    h('form', { class: 'inline-form' }, field('Date', date), field('Name', name), areas.element, h('button', { type: 'submit' }, 'Add holiday')),
    async () => {
      const only = areas.value();
      await api.post('holidays/', { date: date.value, name: name.value.trim(), ...(only.length > 0 ? { areas: only } : {}) });
      await draw();
      announce('Holiday added.');
    },
    { date, name, areas: areas.control },
  );
  return section(
    'Holidays',
    table(
      ['Date', 'Name', 'Where', ''],
      holidays.map((x) => [
        localDay(x.date),
        `${x.name}${x.recurring ? ' (every year)' : ''}`,
        holidayWhere(x, names),
        // A holiday of everyone, or one reaching another area, is not a limited caller's to delete (403).
        x.enrollee || whollyMine(x.areas ?? []) ? remove(`holidays/${encodeURIComponent(x.id)}/`, `holiday ${x.name}`, draw, 'DELETE holidays/{id}/') : '',
      ]),
      'No holidays.',
    ),
    can('POST holidays/') && form,
  );
}
