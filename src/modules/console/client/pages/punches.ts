/**
 * Punches: a live view over the punch stream (the WebSocket authenticates with the session
 * cookie: a browser cannot set headers on a WebSocket), the list with filters, and corrections:
 * a manual punch (a forgotten clock-out) and voiding a punch, each with a reason.
 */

import type { DeviceView } from '../../../devices';
import type { PunchView } from '../../../punches';
import { api, can, currentSession, everyRow, type List, query } from '../api';
import { loadAreas } from '../area-picker';
import { announce, askReason, badge, button, field, h, input, replace, section, select, table, tableWrap } from '../dom';
import { onSubmit } from '../form-errors';
import { dateTime, localDate, localDay, time, words } from '../format';
import { followPunches, punchHead } from '../live';
import { type PeopleNames, peopleNames } from '../people-names';
import { type Person, personPicker } from '../person-picker';

const LIVE_MAX = 50;

export async function punchesPage(main: HTMLElement): Promise<() => void> {
  // First the stream's position, then the data: a punch arriving before the socket opens is replayed.
  const head = await punchHead();
  const devices = can('GET devices/') ? await everyRow<DeviceView>('devices/').catch((): DeviceView[] => []) : [];
  // People are named as their punches are shown (asked for by id), never loaded all first.
  const labels = punchLabels(peopleNames(), devices);
  const live = liveFeed(labels);
  const stale = staleNotice();
  const list = punchList(devices, labels, stale);

  replace(
    main,
    h('h1', {}, 'Punches'),
    can('POST punches/import/') &&
      h('p', {}, 'Many punches at once, from another system or a sheet: ', h('a', { href: '#/punches/import' }, 'import a CSV file'), '.'),
    section('Live', live.state, live.table),
    can('POST punches/manual/') && manualPunchForm(list.load),
    section('Find punches', list.filters, stale.element, list.results),
  );
  await list.load();
  return followPunches(head, {
    onState: live.showState,
    onPunch: (p) => {
      live.add(p);
      stale.show(list.load);
    },
  });
}

/** Who punched and where, in words. */
interface PunchLabels {
  /** Asks for the names of these punches' people (before they are shown). */
  load(punches: PunchView[]): Promise<void>;
  nameOf(p: PunchView): string;
  terminalOf(p: PunchView): string;
}

function punchLabels(names: PeopleNames, devices: DeviceView[]): PunchLabels {
  return {
    load: (punches) => names.load(punches.map((p) => p.enrollee)),
    // Terminals by name, not serial number (a manual or imported punch has none).
    terminalOf: (p) => (p.device ? (devices.find((d) => d.serial_number === p.device)?.name ?? p.device) : words(p.source ?? 'manual')),
    nameOf: (p) => names.get(p.enrollee)?.display_name ?? (p.employee ? p.employee : `Terminal user, PIN ${p.device_pin}`),
  };
}

/** The newest punches as they arrive (at most LIVE_MAX), and the stream's state. */
function liveFeed(labels: PunchLabels) {
  // Until the first punch arrives, the table says so (an empty table reads as broken).
  const none = h('tr', {}, h('td', { colspan: 4, class: 'muted' }, 'No punch has arrived since this page opened.'));
  const body = h('tbody', {}, none);
  const state = h('p', { class: 'muted', role: 'status' }, 'Connecting…');
  const table = tableWrap(
    h(
      'table',
      { id: 'live-punches' },
      h('caption', {}, 'Punches as they arrive'),
      h('thead', {}, h('tr', {}, ...['Time', 'Person', 'Terminal', 'Notes'].map((x) => h('th', { scope: 'col' }, x)))),
      body,
    ),
  );
  return {
    state,
    table,
    showState: (live: 'live' | 'reconnecting') => {
      state.textContent = live === 'live' ? 'Live: new punches appear here as terminals send them.' : 'Disconnected; reconnecting…';
    },
    add: (p: PunchView) => {
      const who = h('td', {}, labels.nameOf(p));
      // Shown at once (in arrival order); the name follows when it is someone not named yet.
      void labels
        .load([p])
        .then(() => {
          who.textContent = labels.nameOf(p);
        })
        .catch(() => undefined);
      const row = h(
        'tr',
        { class: 'fresh' },
        // A punch of another day (a correction, a terminal's late upload) says which day.
        h('td', {}, localDate(new Date(p.punched_at)) === localDate() ? time(p.punched_at) : dateTime(p.punched_at)),
        who,
        h('td', {}, labels.terminalOf(p)),
        h('td', {}, p.flags.map(words).join(', ')),
      );
      none.remove();
      body.prepend(row);
      while (body.children.length > LIVE_MAX) body.lastElementChild?.remove();
    },
  };
}

/** The list below is what was asked for when it was shown: say when punches arrive after it. */
function staleNotice() {
  let arrivedSinceShown = 0;
  const element = h('p', { class: 'muted', role: 'status', hidden: true });
  return {
    element,
    show: (reload: () => Promise<void>) => {
      arrivedSinceShown++;
      replace(
        element,
        `${arrivedSinceShown === 1 ? 'A new punch has' : `${arrivedSinceShown} new punches have`} arrived since this list was shown. `,
        button('Show again', () => reload()),
      );
      element.hidden = false;
    },
    clear: () => {
      arrivedSinceShown = 0;
      element.hidden = true;
    },
  };
}

/** The punches found by person, terminal and dates: the filters, the results, and what (re)loads them. */
function punchList(devices: DeviceView[], labels: PunchLabels, stale: { clear(): void }) {
  const who = personPicker({ label: 'Person', field: 'employee', hint: 'Leave empty for everyone.' });
  const device = select([['', 'Any terminal'], ...devices.map((d): [string, string] => [d.serial_number, d.name ?? d.serial_number])]);
  const from = input({ type: 'date', value: localDate() });
  const to = input({ type: 'date', value: localDate() });
  const results = h('div');
  const load = async () => {
    const employee = (await who.person())?.employee;
    const list = await api.get<List<PunchView>>(`punches/${query({ employee, device: device.value, from: from.value, to: to.value, limit: 200 })}`);
    await labels.load(list.results);
    stale.clear();
    replace(results, punchTable(list.results, labels, load));
  };
  const filters = h(
    'form',
    { class: 'inline-form', role: 'search' },
    who.element,
    field('Terminal', device),
    field('From', from),
    field('To', to),
    h('button', { type: 'submit' }, 'Show'),
  );
  onSubmit(filters, { employee: who.control, device, from, to }, load);
  return { filters, results, load };
}

function punchTable(punches: PunchView[], { nameOf, terminalOf }: PunchLabels, load: () => Promise<void>): HTMLElement {
  return table(
    ['When', 'Person', 'Terminal', 'Source', 'Notes', ''],
    // In time order, newest first: a punch entered by hand later is listed at its own time.
    [...punches]
      .sort((a, b) => b.punched_at.localeCompare(a.punched_at) || b.sequence - a.sequence)
      .map((p) => [
        dateTime(p.punched_at),
        nameOf(p),
        terminalOf(p),
        words(p.source ?? 'device'),
        notes(p),
        p.voided || !can('POST punches/{id}/void/')
          ? ''
          : button('Void', () => voidPunch(p, load), { 'aria-label': `Void the punch of ${nameOf(p)} at ${dateTime(p.punched_at)}` }),
      ]),
    'No punches match.',
  );
}

/** A punch's notes: voided or its flags, the reason it was entered by hand with, and why it was voided. */
export function notes(p: PunchView): HTMLElement {
  const reasons = [p.correction_reason ? `Reason: ${p.correction_reason}` : null, p.void_reason ? `Voided because: ${p.void_reason}` : null].filter(
    (r): r is string => r !== null,
  );
  return h(
    'span',
    {},
    p.voided ? badge('Voided', 'muted') : p.flags.map(words).join(', '),
    reasons.length > 0 ? h('span', { class: 'reason' }, `${p.voided || p.flags.length > 0 ? ' · ' : ''}${reasons.join(' · ')}`) : null,
  );
}

async function voidPunch(p: PunchView, reload: () => Promise<void>): Promise<void> {
  const reason = await askReason('Void this punch?', {
    action: 'Void',
    detail: `${dateTime(p.punched_at)} at ${p.device}. It will no longer count for attendance.`,
  });
  if (!reason) return;
  await api.post(`punches/${encodeURIComponent(p.id)}/void/`, { reason });
  await reload();
  announce('Punch voided.');
}

/**
 * The Time field's hint, once areas are known: when one has a time zone of its own, a time typed
 * for one of its people is read in it (README "Time zones"), and the hint says so.
 */
function zonedHint(el: HTMLElement): HTMLElement {
  if (!can('GET areas/')) return el;
  void loadAreas()
    .then((areas) => {
      const hint = el.querySelector('small.hint');
      if (hint && areas.some((a) => a.time_zone !== null))
        hint.textContent = `In the person’s time zone: their area’s, else the attendance time zone, ${currentSession().time_zone}.`;
    })
    .catch(() => undefined);
  return el;
}

/** A manual punch: the local date and time in the person's zone become an instant on the server’s terms. */
export function manualPunchForm(after: () => Promise<void>, preset?: { person?: Person; date?: string }): HTMLElement {
  const who = personPicker({ label: 'Person', field: 'enrollee', activeOnly: true, required: true, preset: preset?.person });
  const date = input({ type: 'date', value: preset?.date ?? localDate(), required: true });
  // Empty: a time filled in for them would be added as it stands (a forgotten 08:00 in entered as 17:00).
  const at = input({ type: 'time', required: true });
  const reason = input({ required: true, autocomplete: 'off', placeholder: 'e.g. forgot to clock out' });
  const form = h(
    'form',
    { class: 'inline-form' },
    who.element,
    field('Date', date),
    zonedHint(field('Time', at, `In the attendance time zone, ${currentSession().time_zone}.`)),
    field('Reason', reason),
    h('button', { type: 'submit', class: 'primary' }, 'Add punch'),
  );
  const outcome = h('div', { class: 'outcome', role: 'status' });
  onSubmit(form, { enrollee: who.control, at, reason }, async () => {
    replace(outcome);
    const person = await who.person();
    const punch = await api.post<PunchView>('punches/manual/', {
      enrollee: person?.id ?? '',
      // The wall time as typed: the server reads it in the attendance zone by its one DST rule
      // (the earlier of a repeated hour, the offset before a skipped one) and flags it.
      at: `${date.value} ${at.value}`,
      reason: reason.value.trim(),
    });
    reason.value = '';
    await after();
    if (punch.flags.includes('after_lock')) {
      // Stored, but its day is in a locked pay period: the day does not change. Say so, plainly:
      // a warning, not an error (nothing failed, and it is not to be typed again).
      const message = `Punch kept, not applied: ${localDay(date.value)} is in a locked pay period, so the day does not change. It is in the list, marked “${words('after_lock')}”.`;
      replace(outcome, h('p', { class: 'form-warn' }, message));
      return;
    }
    replace(outcome, h('p', { class: 'form-ok' }, `Punch added at ${dateTime(punch.punched_at)}.`));
    announce('Manual punch added.');
  });
  return section('Add a missing punch', form, outcome);
}
