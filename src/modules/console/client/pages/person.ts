/**
 * One person: consent (record with the consent text's version and how it was given, withdraw)
 * and the history of their consents, their biometrics with where each is, enrollment on a terminal or at a desktop agent, areas,
 * card, deactivation and deletion, and the proof of deletion once consent is withdrawn.
 */

import type { DeviceView } from '../../../devices';
import type { EnrolleeView } from '../../../enrollees';
import type { AgentView, ConsentRecordView, SessionView, TemplateView } from '../../../enrollment';
import { ApiError, api, can, everyRow, type List, outsideMine } from '../api';
import { areasPicker } from '../area-picker';
import { announce, badge, button, confirmAction, definitionList, field, h, headingWithStatus, input, replace, section, table } from '../dom';
import { onSubmit } from '../form-errors';
import { biometricPart, dateTime, words } from '../format';
import { sessionReason, sessionStatus } from '../session-words';
import { deletedPersonPage, loadProof, proofSection } from './deletion-proof';
import { deactivateEntry, directoryEntryOf } from './people-directory';
import { consentHistorySection, consentSection } from './person-consent';
import { enrollSection } from './person-enrollment';
import { manualPunchForm } from './punches';

/** A biometric's state on one terminal (not "Present": that is an attendance status). */
const SYNC_WORDS: Record<string, string> = {
  pending: 'Being sent',
  present: 'On the terminal',
  incompatible: 'Terminal cannot use it',
  failed: 'Sending failed',
};
const syncTone = (status: string) => (status === 'present' ? 'ok' : status === 'pending' ? 'info' : 'bad');
const ACTIVE_SESSION = new Set(['open', 'in_progress']);
let refreshTimer: ReturnType<typeof setTimeout> | undefined;

type Redraw = () => Promise<void>;

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
  const [templates, devices, agents, sessions, proof, consents] = await loadRecords(person, base);
  const mine = sessions.results.filter((s) => s.enrollee.id === person.id);
  const deviceName = (serial: string) => devices.find((d) => d.serial_number === serial)?.name ?? serial;

  replace(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/people' }, 'People'), ' › ', person.display_name),
    headingWithStatus(person.display_name, person.status === 'active' ? badge('Active', 'ok') : badge('Deactivated', 'muted')),
    personActions(person, base, redraw),
    h('div', { class: 'columns' }, await aboutSection(person, base, redraw), consentSection(person, base, redraw)),
    // A punch they missed, added here (a manager comes from the Today board's row, often on a phone), as Punches offers.
    can('POST punches/manual/') && person.status === 'active' && manualPunchForm(async () => {}, { person }),
    can('GET enrollees/{id}/consents/') && consentHistorySection(consents),
    proof ? proofSection(proof) : null,
    biometricsSection(templates.results, deviceName),
    (can('POST enrollees/{id}/remote-enrollment/') || can('POST enrollment-sessions/')) &&
      enrollSection(
        person,
        base,
        can('POST enrollees/{id}/remote-enrollment/') ? devices : [],
        // The agents that may enroll this person: live, of every area or of one of theirs.
        can('POST enrollment-sessions/')
          ? agents.filter((a) => a.status === 'active' && (a.areas.length === 0 || a.areas.some((area) => person.areas.includes(area))))
          : [],
        redraw,
      ),
    can('GET enrollment-sessions/') && sessionsSection(mine, agents, deviceName),
  );
  return refreshWhileEnrolling(mine, redraw);
}

function loadRecords(person: EnrolleeView, base: string) {
  const id = person.id;
  // Only what the role may read is asked for (a manager sees no terminals, agents or sessions),
  // and a proof of deletion only of someone who has one (else it is a 404 at every visit).
  const none = <T>(): Promise<List<T>> => Promise.resolve({ results: [], next_cursor: null });
  return Promise.all([
    api.get<List<TemplateView>>(`${base}templates/`),
    can('GET devices/') ? everyRow<DeviceView>('devices/', { status: 'approved' }) : [],
    can('GET enrollment-agents/') ? everyRow<AgentView>('enrollment-agents/') : [],
    can('GET enrollment-sessions/') ? api.get<List<SessionView>>(`enrollment-sessions/?enrollee=${encodeURIComponent(id)}&limit=50`) : none<SessionView>(),
    person.has_deletion_proof ? loadProof(id) : null,
    can('GET enrollees/{id}/consents/') ? everyRow<ConsentRecordView>(`${base}consents/`) : ([] as ConsentRecordView[]),
  ]);
}

/**
 * While a session is under way, keep the page current so the person at the terminal sees it finish.
 * One timer at a time (a redraw starts the next), and never drawing over another page.
 */
function refreshWhileEnrolling(mine: SessionView[], redraw: Redraw): (() => void) | undefined {
  clearTimeout(refreshTimer);
  if (!mine.some((s) => ACTIVE_SESSION.has(s.status))) return undefined;
  const here = location.hash;
  refreshTimer = setTimeout(() => {
    // Not while someone is typing or choosing: a redraw would take their focus away.
    if (location.hash === here && (document.activeElement === document.body || document.activeElement === null)) void redraw();
  }, 3000);
  return () => clearTimeout(refreshTimer);
}

/** Deactivate (or reactivate) and delete, as the role allows; for one also in another area, who may. */
function personActions(person: EnrolleeView, base: string, redraw: Redraw): HTMLElement {
  const outside = outsideMine(person.areas);
  if (outside.length > 0 && (can('PATCH enrollees/{id}/') || can('DELETE enrollees/{id}/'))) {
    return h('p', { class: 'muted' }, `Also in ${outside.join(', ')}: deactivated or deleted by an administrator of those areas.`);
  }
  return h(
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
        // Their entry in the built-in employee directory goes inactive with them: nothing is left offering them for enrollment.
        const entry = await directoryEntryOf(person.employee);
        const directory = entry
          ? ` Their employee ID ${person.employee} is made inactive in the employee directory: no longer offered for enrollment (People › Inactive employees reactivates or erases it).`
          : '';
        if (
          !(await confirmAction(`Delete ${person.display_name}?`, {
            action: 'Delete',
            typed: person.employee,
            detail: `Their biometrics (fingerprints, faces, palms) are destroyed and they are removed from every terminal. Their punches stay.${directory}`,
          }))
        )
          return;
        await api.delete(base);
        const said = entry ? await deactivateEntry(entry) : '';
        announce(`${person.display_name} deleted.${said} Their proof of deletion is on this page.`);
        await redraw();
      }),
  );
}

async function aboutSection(person: EnrolleeView, base: string, redraw: Redraw): Promise<HTMLElement> {
  return section(
    'About',
    definitionList([
      ['Employee ID', person.employee],
      ['PIN on the terminals', person.device_pin],
      ['Areas', person.areas.join(', ')],
      ['Card', person.card ?? 'None'],
    ]),
    can('PATCH enrollees/{id}/') && (await detailsForm(person, base, redraw)),
  );
}

/** The least done state of a body part's templates on one terminal: it is there only once all of them are. */
const SYNC_ORDER = ['failed', 'incompatible', 'pending', 'earlier', 'present'];

type SyncState = { state: string; held: number | null };

/**
 * A template's state on one terminal: `present` only for the version stored now (`earlier`: an
 * earlier version is there, the current one was not sent there), and the earlier version it still
 * holds beside a current one that did not reach it.
 */
function syncState(s: TemplateView['sync'][number], version: number): SyncState {
  if (s.status === 'present') return { state: s.version === version ? 'present' : 'earlier', held: s.version === version ? null : s.version };
  return { state: s.status, held: s.held_version !== null && s.held_version !== version ? s.held_version : null };
}

function syncBadge({ state, held }: SyncState): HTMLElement {
  if (state === 'earlier') return badge(`Version ${held} on the terminal`, 'info');
  const text = SYNC_WORDS[state] ?? words(state);
  return badge(held === null ? text : `${text}; version ${held} still on it`, syncTone(state));
}

/**
 * One row per body part (a palm's five templates are one palm) and algorithm: its versions, and
 * on each terminal the least done state of its templates there.
 */
function bodyParts(templates: TemplateView[]): { what: string; versions: string; sync: Map<string, SyncState> }[] {
  const groups = new Map<string, TemplateView[]>();
  for (const t of templates) {
    const key = `${t.type}:${t.index}:${t.algorithm_version}`;
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  return [...groups.values()].map((parts) => {
    const [first] = parts as [TemplateView];
    const sync = new Map<string, SyncState>();
    for (const t of parts) {
      for (const s of t.sync) {
        const now = syncState(s, t.version);
        const was = sync.get(s.device);
        if (was === undefined || SYNC_ORDER.indexOf(now.state) < SYNC_ORDER.indexOf(was.state)) sync.set(s.device, now);
      }
    }
    const versions = [...new Set(parts.map((t) => t.version))].sort((a, b) => a - b).join(', ');
    const what = biometricPart(first.type, first.index);
    return {
      what: parts.length > 1 ? `${what} (${parts.length} templates)` : what,
      versions: `Version ${versions}, algorithm ${first.algorithm_version}`,
      sync,
    };
  });
}

function biometricsSection(templates: TemplateView[], deviceName: (serial: string) => string): HTMLElement {
  return section(
    'Biometrics',
    table(
      ['What', 'Version', 'Where it is'],
      bodyParts(templates).map((p) => [
        p.what,
        p.versions,
        p.sync.size > 0
          ? h('ul', { class: 'plain' }, ...[...p.sync].map(([device, state]) => h('li', {}, `${deviceName(device)}: `, syncBadge(state))))
          : 'On no terminal yet',
      ]),
      'No biometrics stored.',
    ),
  );
}

function sessionsSection(mine: SessionView[], agents: AgentView[], deviceName: (serial: string) => string): HTMLElement {
  return section(
    'Enrollment sessions',
    table(
      ['Started', 'Where', 'What', 'Status'],
      mine.map((s) => {
        // Its status and reason in words, with what to do next (session-words.ts), not the API's text.
        const place = { serial: s.device, terminal: s.device ? deviceName(s.device) : null };
        const reason = sessionReason(s.reason, place).map((w) => (typeof w === 'string' ? w : h('a', { href: w.href }, w.text)));
        return [
          dateTime(s.created_at),
          s.device ? `Terminal ${deviceName(s.device)}` : `Agent ${agents.find((a) => a.id === s.agent)?.name ?? ''}`,
          // Parts of its kind: a palm session's [0, 1] are the palms, not two fingers.
          `${s.fingers_captured.length} of ${s.fingers_requested.length}: ${s.fingers_requested.map((i) => biometricPart(s.biometric, i)).join(', ')}`,
          h(
            'span',
            {},
            badge(sessionStatus(s.status, place), s.status === 'completed' ? 'ok' : ACTIVE_SESSION.has(s.status) ? 'info' : 'bad'),
            reason.length > 0 ? ' ' : null,
            ...reason,
          ),
        ];
      }),
      'None yet.',
    ),
  );
}

async function detailsForm(person: EnrolleeView, base: string, redraw: Redraw): Promise<HTMLElement> {
  const areas = await areasPicker('Areas', person.areas, 'They are sent to the terminals of these areas.');
  const name = input({ value: person.display_name, required: true, maxlength: 200, autocomplete: 'off' });
  const card = input({ value: person.card ?? '', autocomplete: 'off', inputmode: 'numeric' });
  const form = h(
    'form',
    { class: 'inline-form' },
    field('Name', name, 'As the console, the reports and the terminals show it.'),
    areas.element,
    field('Card number', card, 'The number printed on the badge; empty for none.'),
    h('button', { type: 'submit' }, 'Save'),
  );
  return onSubmit(form, { display_name: name, areas: areas.control, card }, async () => {
    // The name only when it was changed: an unchanged one is no change to record.
    const renamed = name.value.trim() !== person.display_name ? { display_name: name.value.trim() } : {};
    await api.patch(base, { ...renamed, areas: areas.value(), card: card.value.trim() || null });
    await redraw();
    announce('Saved.');
  });
}
