/**
 * One person: consent (record with the consent text's version and how it was given, withdraw),
 * their biometrics with where each is, enrollment on a terminal or at a desktop agent, areas,
 * card, deactivation and deletion, and the proof of deletion once consent is withdrawn.
 */

import type { AuditEntryView } from '../../../audit';
import type { TemplateView } from '../../../biometrics';
import type { DeviceView } from '../../../devices';
import type { EnrolleeView } from '../../../enrollees';
import type { AgentView, SessionView } from '../../../enrollment';
import { ApiError, api, can, type List, query } from '../api';
import { areasPicker } from '../area-picker';
import { announce, badge, button, confirmAction, definitionList, field, h, input, replace, section, select, table } from '../dom';
import { onSubmit } from '../form-errors';
import { count, dateTime, FINGERS, fingerName, words } from '../format';
import { deletedPersonPage, loadProof, proofSection } from './deletion-proof';

const syncTone = (status: string) => (status === 'present' ? 'ok' : status === 'pending' ? 'info' : 'bad');
const ACTIVE_SESSION = new Set(['open', 'in_progress']);
let refreshTimer: ReturnType<typeof setTimeout> | undefined;

export async function personPage(main: HTMLElement, params: string[]): Promise<(() => void) | undefined> {
  const id = params[0] ?? '';
  const base = `enrollees/${encodeURIComponent(id)}/`;
  const redraw = () => personPage(main, params).then(() => undefined);
  const person = await api.get<EnrolleeView>(base).catch(async (error: unknown) => {
    // A deleted person: their proof of deletion, if there is one.
    if (error instanceof ApiError && error.status === 404 && (await deletedPersonPage(main, id))) return null;
    throw error;
  });
  if (!person) return undefined;
  // Only what the role may read is asked for (a manager sees no terminals, agents or sessions).
  const none = <T>(): Promise<List<T>> => Promise.resolve({ results: [], next_cursor: null });
  const [templates, devices, agents, sessions, proof, withdrawals] = await Promise.all([
    api.get<List<TemplateView>>(`${base}templates/`),
    can('GET devices/') ? api.get<List<DeviceView>>('devices/?status=approved&limit=1000') : none<DeviceView>(),
    can('GET enrollment-agents/') ? api.get<List<AgentView>>('enrollment-agents/?limit=1000') : none<AgentView>(),
    can('GET enrollment-sessions/') ? api.get<List<SessionView>>(`enrollment-sessions/?enrollee=${encodeURIComponent(id)}&limit=50`) : none<SessionView>(),
    loadProof(id),
    // The last withdrawal of consent, to say when it was and what it destroyed.
    can('GET audit-log/')
      ? api
          .get<List<AuditEntryView>>(`audit-log/${query({ target: id, action: 'consent.withdrawn', limit: 1 })}`)
          .catch(() => ({ results: [], next_cursor: null }) as List<AuditEntryView>)
      : none<AuditEntryView>(),
  ]);
  const mine = sessions.results.filter((s) => s.enrollee.id === person.id);
  const deviceName = (serial: string) => devices.results.find((d) => d.serial_number === serial)?.name ?? serial;

  const actions = h(
    'div',
    { class: 'actions' },
    !can('PATCH enrollees/{id}/')
      ? null
      : person.status === 'active'
        ? button('Deactivate', async () => {
            if (
              !(await confirmAction(`Deactivate ${person.display_name}?`, {
                action: 'Deactivate',
                detail: 'They are removed from every terminal; their fingerprints are destroyed after the retention period.',
              }))
            )
              return;
            await api.patch(base, { active: false });
            await redraw();
            announce(`${person.display_name} deactivated.`);
          })
        : button('Reactivate', async () => {
            await api.patch(base, { active: true });
            await redraw();
            announce(`${person.display_name} is active again and is being sent to their terminals.`);
          }),
    can('DELETE enrollees/{id}/') &&
      button('Delete', async () => {
        if (
          !(await confirmAction(`Delete ${person.display_name}?`, {
            action: 'Delete',
            typed: person.employee,
            detail: 'Their fingerprints are destroyed and they are removed from every terminal. Their punches stay.',
          }))
        )
          return;
        await api.delete(base);
        announce(`${person.display_name} deleted. Their proof of deletion is on this page.`);
        await redraw();
      }),
  );

  replace(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/people' }, 'People'), ' › ', person.display_name),
    h('h1', {}, person.display_name, ' ', person.status === 'active' ? badge('Active', 'ok') : badge('Deactivated', 'muted')),
    actions,
    h(
      'div',
      { class: 'columns' },
      section(
        'About',
        definitionList([
          ['Employee ID', person.employee],
          ['PIN on the terminals', person.device_pin],
          ['Areas', person.areas.join(', ')],
          ['Card', person.card ?? 'None'],
        ]),
        can('PATCH enrollees/{id}/') && (await detailsForm(person, base, redraw)),
      ),
      consentSection(person, base, redraw, withdrawals.results[0] ?? null),
    ),
    proof ? proofSection(proof) : null,
    section(
      'Biometrics',
      table(
        ['What', 'Version', 'Where it is'],
        templates.results.map((t) => [
          t.type && t.type !== 'fingerprint' ? `${words(t.type)} ${t.index ?? ''}` : fingerName(t.finger_index ?? t.index ?? -1),
          `Version ${t.version}, algorithm ${t.algorithm_version}`,
          t.sync.length > 0
            ? h('ul', { class: 'plain' }, ...t.sync.map((s) => h('li', {}, `${deviceName(s.device)}: `, badge(words(s.status), syncTone(s.status)))))
            : 'On no terminal yet',
        ]),
        'No fingerprints stored.',
      ),
    ),
    (can('POST enrollees/{id}/remote-enrollment/') || can('POST enrollment-sessions/')) &&
      enrollSection(
        person,
        base,
        can('POST enrollees/{id}/remote-enrollment/') ? devices.results : [],
        can('POST enrollment-sessions/') ? agents.results.filter((a) => a.status === 'active') : [],
        redraw,
      ),
    can('GET enrollment-sessions/') &&
      section(
        'Enrollment sessions',
        table(
          ['Started', 'Where', 'Fingers', 'Status'],
          mine.map((s) => [
            dateTime(s.created_at),
            s.device ? `Terminal ${deviceName(s.device)}` : `Agent ${agents.results.find((a) => a.id === s.agent)?.name ?? ''}`,
            `${s.fingers_captured.length} of ${s.fingers_requested.length}: ${s.fingers_requested.map(fingerName).join(', ')}`,
            h(
              'span',
              {},
              badge(words(s.status), s.status === 'completed' ? 'ok' : ACTIVE_SESSION.has(s.status) ? 'info' : 'bad'),
              s.reason ? ` ${s.reason}` : '',
            ),
          ]),
          'None yet.',
        ),
      ),
  );
  // While a session is under way, keep the page current so the person at the terminal sees it finish.
  // One timer at a time (a redraw starts the next), and never drawing over another page.
  clearTimeout(refreshTimer);
  if (mine.some((s) => ACTIVE_SESSION.has(s.status))) {
    const here = location.hash;
    refreshTimer = setTimeout(() => {
      // Not while someone is typing or choosing: a redraw would take their focus away.
      if (location.hash === here && (document.activeElement === document.body || document.activeElement === null)) void redraw();
    }, 3000);
    return () => clearTimeout(refreshTimer);
  }
  return undefined;
}

async function detailsForm(person: EnrolleeView, base: string, redraw: () => Promise<void>): Promise<HTMLElement> {
  const areas = await areasPicker('Areas', person.areas, 'They are sent to the terminals of these areas.');
  const card = input({ value: person.card ?? '', autocomplete: 'off', inputmode: 'numeric' });
  const form = h(
    'form',
    { class: 'inline-form' },
    areas.element,
    field('Card number', card, 'The number printed on the badge; empty for none.'),
    h('button', { type: 'submit' }, 'Save'),
  );
  return onSubmit(form, { areas: areas.control, card }, async () => {
    await api.patch(base, { areas: areas.value(), card: card.value.trim() || null });
    await redraw();
    announce('Saved.');
  });
}

function consentSection(person: EnrolleeView, base: string, redraw: () => Promise<void>, withdrawal: AuditEntryView | null): HTMLElement {
  if (person.consent) {
    const c = person.consent;
    return section(
      'Consent',
      h('p', {}, badge('Given', 'ok')),
      definitionList([
        ['Consent text version', c.version],
        ['How', c.method],
        ['Recorded by', c.given_by],
        ['When', dateTime(c.given_at)],
      ]),
      can('DELETE enrollees/{id}/consent/') &&
        button('Withdraw consent', async () => {
          if (
            !(await confirmAction('Withdraw consent?', {
              action: 'Withdraw',
              detail: 'Every fingerprint of this person is destroyed here and deleted from every terminal.',
            }))
          )
            return;
          const r = await api.delete<{ templates_destroyed: number }>(`${base}consent/`);
          announce(`Consent withdrawn; ${count(r.templates_destroyed, 'fingerprint', 'fingerprints')} destroyed and deleted from the terminals.`);
          await redraw();
        }),
    );
  }
  if (!can('POST enrollees/{id}/consent/')) return section('Consent', h('p', {}, badge('Not recorded', 'warn')));
  const version = input({ required: true, autocomplete: 'off', placeholder: 'e.g. 2026-01' });
  const method = input({ required: true, autocomplete: 'off', value: 'signed form' });
  const form = h(
    'form',
    { class: 'inline-form' },
    field('Consent text version', version, 'The version of the text the person agreed to.'),
    field('How it was given', method),
    h('button', { type: 'submit', class: 'primary' }, withdrawal ? 'Record consent again' : 'Record consent'),
  );
  onSubmit(form, { version, method }, async () => {
    await api.post(`${base}consent/`, { version: version.value.trim(), method: method.value.trim() });
    await redraw();
    announce('Consent recorded.');
  });
  if (withdrawal) {
    const destroyed = Number(withdrawal.details.templates_destroyed ?? 0);
    return section(
      'Consent',
      h('p', {}, badge('Withdrawn', 'bad')),
      definitionList([
        ['Withdrawn', dateTime(withdrawal.at)],
        ['By', withdrawal.actor],
        [
          'What was deleted',
          `${count(destroyed, 'fingerprint', 'fingerprints')} destroyed on the server; a delete was sent to every terminal that held them (see Biometrics below).`,
        ],
      ]),
      h('p', { class: 'muted' }, 'No fingerprint is taken until consent is recorded again.'),
      form,
    );
  }
  return section('Consent', h('p', {}, badge('Not recorded', 'warn'), ' Fingerprints can be enrolled only once consent is recorded.'), form);
}

function fingerPicker(): { element: HTMLElement; chosen: () => number[] } {
  const boxes = FINGERS.map((label, index) => {
    const box = h('input', { type: 'checkbox', value: index, id: `finger-${index}`, checked: index === 6 });
    return { box, element: h('div', { class: 'check' }, box, h('label', { for: box.id }, label)) };
  });
  return {
    element: h('fieldset', { class: 'fingers' }, h('legend', {}, 'Fingers'), ...boxes.map((b) => b.element)),
    chosen: () => boxes.filter((b) => b.box.checked).map((b) => Number(b.box.value)),
  };
}

function enrollSection(person: EnrolleeView, base: string, devices: DeviceView[], agents: AgentView[], redraw: () => Promise<void>): HTMLElement {
  if (person.status !== 'active') return section('Enroll fingerprints', h('p', {}, 'Reactivate this person first.'));
  // Only terminals that may take this person's fingerprints: those of their areas, and enrollment stations.
  const inScope = devices.filter((d) => d.enrollment_station || d.areas.some((a) => person.areas.includes(a)));
  const fingers = fingerPicker();
  // Terminals that declare them also enroll faces, palms and finger veins (ENROLL_BIO); agents only fingerprints.
  const what = select([
    ['fingerprint', 'Fingerprints'],
    ['face', 'Face'],
    ['palm', 'Both palms'],
    ['finger_vein', 'Finger veins'],
  ]);
  const where = select([
    ...inScope.map((d): [string, string] => [
      `device:${d.serial_number}`,
      `At terminal ${d.name ?? d.serial_number}${d.enrollment_station ? ' (enrollment station)' : ''}`,
    ]),
    ...agents.map((a): [string, string] => [`agent:${a.id}`, `At desktop agent ${a.name}`]),
  ]);
  const form = h(
    'form',
    { class: 'stack' },
    person.consent ? null : h('p', { class: 'error' }, 'Record consent first: without it the fingerprints are refused.'),
    field('Where', where, 'A terminal asks the person to place each finger; a desktop agent uses its USB reader.'),
    field('What', what),
    fingers.element,
    h('button', { type: 'submit', class: 'primary' }, 'Start enrollment'),
  );
  what.addEventListener('change', () => {
    fingers.element.hidden = what.value === 'face' || what.value === 'palm';
  });
  onSubmit(form, { device: where, agent: where, fingers: fingers.element, type: what }, async () => {
    const type = what.value;
    const chosen = type === 'face' ? [0] : type === 'palm' ? [0, 1] : fingers.chosen();
    if (chosen.length === 0) throw new Error('Choose at least one finger.');
    const [kind, target] = where.value.split(/:(.*)/s);
    if (kind === 'device')
      await api.post(`${base}remote-enrollment/`, type === 'fingerprint' ? { device: target, fingers: chosen } : { device: target, type, fingers: chosen });
    else if (type !== 'fingerprint') throw new Error('A desktop agent enrolls fingerprints only: choose a terminal for faces, palms or veins.');
    else await api.post('enrollment-sessions/', { enrollee: person.id, agent: target, fingers: chosen });
    await redraw();
    announce(kind === 'device' ? 'Enrollment started: the terminal asks the person for each finger now.' : 'Session started: the agent shows it in its list.');
  });
  if (inScope.length === 0 && agents.length === 0) {
    return section(
      'Enroll fingerprints',
      h(
        'p',
        {},
        devices.length === 0
          ? 'Approve a terminal or create a desktop agent first.'
          : `No terminal of this person’s areas (${person.areas.join(', ')}) is approved. Add one of its areas to a terminal, make a terminal an enrollment station, or create a desktop agent.`,
      ),
    );
  }
  return section('Enroll fingerprints', form);
}
