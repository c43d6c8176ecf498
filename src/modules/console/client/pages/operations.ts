/** Operations: the periodic jobs (run one now), the audit log (who did what) and the event log. */

import type { AuditEntryView } from '../../../audit';
import type { DeviceView } from '../../../devices';
import type { EventView } from '../../../events';
import type { JobView } from '../../../jobs';
import { api, can, everyRow, type List, query } from '../api';
import { type Names, summarize } from '../detail-words';
import { announce, badge, button, field, h, input, replace, section, select, table } from '../dom';
import { actionWords, eventWords, NAMED_ACTIONS } from '../event-words';
import { FieldError, onSubmit } from '../form-errors';
import { addDays, dateTime, isolated, localDate, localDay, words } from '../format';
import { type PeopleNames, peopleNames } from '../people-names';
import { sessionReason } from '../session-words';

/** The periodic jobs in the words of the people who run attendance (the server's text names settings). */
const JOBS: Record<string, [string, string]> = {
  'check-devices': ['Check terminals', 'Marks terminals that have not been heard from for a while as offline.'],
  'expire-pending-devices': ['Forget unapproved terminals', 'Forgets terminals that announced themselves but were never approved.'],
  'expire-commands': ['Expire old commands', 'Gives up on commands a terminal never fetched in time.'],
  'retry-commands': ['Resend unanswered commands', 'Sends again the commands a terminal took but never answered.'],
  'expire-sessions': ['End stale enrollments', 'Ends enrollment sessions nobody finished in time.'],
  'reconcile-devices': ['Bring terminals in line', 'Sends each terminal again the people and fingerprints it should have but failed to take.'],
  'follow-area-moves': [
    'Moved people leave old terminals',
    'Takes people moved to another area off the terminals of the area they left, once the move takes effect (the day after it was made).',
  ],
  'sync-device-clocks': ['Daylight saving time', 'Tells terminals their clock offset when their time zone changes between summer and winter time.'],
  'generate-absences': [
    'Record absences',
    'Writes yesterday each night (or the dates chosen here) for everyone without a punch: absent, day off, holiday or leave.',
  ],
  'purge-retention': ['Delete old data', 'Deletes what is past its retention period (old punches, logs, fingerprints of people who left).'],
  'deliver-webhooks': ['Deliver webhooks', 'Sends events to the payroll and HR systems that subscribed to them.'],
  'rotate-keys': ['Re-encrypt with the newest key', 'Re-encrypts stored fingerprints and secrets with the newest encryption key; can be stopped and resumed.'],
  'check-completeness': ['Check punch completeness', 'Compares what each terminal holds with the punches stored from it; asks for any missing.'],
  'rotate-proof-key': [
    'New proof-signing key',
    'Makes a new key for signing deletion proofs and destroys the old one; proofs signed before still verify with the old public key.',
  ],
};
export const jobTitle = (name: string) => JOBS[name]?.[0] ?? words(name);
const jobText = (j: JobView) => JOBS[j.name]?.[1] ?? j.description;

/** What a job's result says, in words: `absent=0 non_working_day=0` becomes “nothing to record”. */
function outcomeWords(name: string, status: string, result: Record<string, unknown>): string {
  const head = `${jobTitle(name)}: ${status === 'succeeded' ? 'done' : words(status).toLowerCase()}`;
  const parts = Object.entries(result)
    .filter(([, v]) => typeof v === 'number' && v > 0)
    .map(([k, v]) => `${v} ${words(k).toLowerCase()}`);
  const text = Object.entries(result)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'boolean')
    .map(([k, v]) => `${words(k).toLowerCase()} ${typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? localDay(v) : String(v)}`);
  const said = [...parts, ...text];
  return `${head}${said.length > 0 ? `: ${said.join(', ')}` : ', nothing to do'}.`;
}

function target(e: AuditEntryView, names: Names): string {
  const id = e.target_id ?? '';
  if (e.target_type === 'enrollee') return names.person(id) ?? 'A person no longer listed';
  if (e.target_type === 'device') return names.terminal(id) ?? `Terminal ${id}`;
  if (e.target_type === 'punch' && typeof e.details.enrollee === 'string') return `A punch of ${names.person(e.details.enrollee) ?? 'a person'}`;
  return `${words(e.target_type)}${/^[0-9a-f-]{36}$/.test(id) ? '' : ` ${id}`}`;
}

/** An event's details in words; an enrollment session's reason as the person's page says it (session-words.ts). */
function eventDetails(e: EventView, names: Names): string {
  if (e.type !== 'enrollment_session_closed' || typeof e.data.reason !== 'string') return summarize(e.data, names);
  const { reason, ...rest } = e.data;
  // The event names no terminal; a reason about one names its serial.
  const serial = /devices\/([^/]+)\/users/.exec(reason)?.[1] ?? null;
  const said = sessionReason(reason, { serial, terminal: serial ? names.terminal(serial) : null })
    .map((w) => (typeof w === 'string' ? w : w.text))
    .join('');
  return [summarize(rest, names), said].filter(Boolean).join(', ');
}

/**
 * An entry's details in words. A renamed area says from what to what: the entry names the area
 * by the name it had (`target_id`) and keeps only the new one (`details.name`), which alone read
 * as if the area were called that already.
 */
function auditDetails(e: AuditEntryView, names: Names): string {
  if (e.action === 'area.updated' && typeof e.details.name === 'string') {
    const { name, ...rest } = e.details;
    const renamed = name !== e.target_id ? `Name: from ${e.target_id} to ${name}` : null;
    return [renamed, summarize(rest, names)].filter(Boolean).join(', ');
  }
  return summarize(e.details, names);
}

/** Who did it: a terminal by its name ("device:SN" is how the log keeps it), anyone else with their kind. */
function actorOf(e: AuditEntryView, names: Names): string {
  if (e.actor_kind === 'terminal' && e.actor.startsWith('device:')) {
    const serial = e.actor.slice('device:'.length);
    return `Terminal ${names.terminal(serial) ?? serial}`;
  }
  return e.actor_kind ? `${isolated(e.actor)} (${ACTOR_KINDS[e.actor_kind] ?? words(e.actor_kind)})` : isolated(e.actor);
}

/** What kind of actor did it, as the audit log names it. */
const ACTOR_KINDS: Record<string, string> = {
  user: 'user',
  api_key: 'API key',
  token: 'token',
  host: 'host sign-in',
  operator: 'operator',
  terminal: 'terminal',
  job: 'job',
  agent: 'enrollment agent',
};

/** A page of `events/`. */
type EventPage = { results: EventView[]; last_sequence: number };

/** Reads of the log back from its newest a page asks for at most (each looks through up to 200,000 events). */
const READS_BACK_MAX = 5;

/**
 * The newest events the caller sees, newest first: the log read back from its end (`order=desc`,
 * one small read; the server applies the caller's areas). Read on back (`before`) only when a
 * caller limited to areas has fewer than `count` among the events one read looked through.
 */
async function newestEvents(count: number): Promise<EventView[]> {
  const kept: EventView[] = [];
  let before: number | null = null;
  for (let read = 0; read < READS_BACK_MAX && kept.length < count; read++) {
    const page: EventPage = await api.get<EventPage>(`events/${query({ order: 'desc', limit: count - kept.length, before })}`);
    kept.push(...page.results);
    // 0: nothing is left before it.
    if (page.last_sequence === 0) break;
    before = page.last_sequence;
  }
  return kept;
}

export async function operationsPage(main: HTMLElement): Promise<undefined> {
  const redraw = () => operationsPage(main).then(() => undefined);
  // Each section for the roles that may read it: jobs and the audit log for unlimited owners
  // and admins, the event log for hr and viewers too (filtered to their areas by the server).
  const nothing = <T>(): List<T> => ({ results: [], next_cursor: null });
  const [jobs, recentEvents, terminals] = await Promise.all([
    can('GET jobs/') ? api.get<List<JobView>>('jobs/') : nothing<JobView>(),
    can('GET events/') ? newestEvents(50) : [],
    can('GET devices/') ? everyRow<DeviceView>('devices/').catch((): DeviceView[] => []) : [],
  ]);
  // People are named by id as the logs show them (never everyone's list first).
  const people = peopleNames();
  const names = namesOf(people, terminals);
  if (can('GET enrollees/')) await people.load(recentEvents.flatMap((e) => idsIn(e.data))).catch(() => undefined);
  const audit = auditLog(names, people);
  replace(
    main,
    h('h1', {}, 'Operations'),
    can('GET jobs/') && jobsSection(jobs.results, redraw),
    can('GET audit-log/') && section('Audit log', audit.form, audit.rows),
    can('GET events/') &&
      section(
        'Recent events',
        table(
          ['When', 'Event', 'Details'],
          recentEvents.map((e) => [dateTime(e.at), eventWords(e.type), eventDetails(e, names)]),
          'No events yet.',
        ),
      ),
  );
  await audit.load();
  return undefined;
}

/** The ids (UUIDs) a log entry's details hold, at any depth: the people it may name. */
function idsIn(value: unknown): string[] {
  if (typeof value === 'string') return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(idsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(idsIn);
  return [];
}

function namesOf(people: PeopleNames, terminals: DeviceView[]): Names {
  return {
    person: (id) => people.label(id) ?? null,
    terminal: (serial) => {
      const d = terminals.find((t) => t.serial_number === serial);
      return d ? isolated(d.name ?? d.serial_number) : null;
    },
  };
}

/** The audit log, filtered by who and what: its form, its rows, and what (re)loads them. */
function auditLog(names: Names, people: PeopleNames): { form: HTMLElement; rows: HTMLElement; load: () => Promise<void> } {
  const actor = input({ autocomplete: 'off', placeholder: 'anyone' });
  // Chosen by its words; the filter sends its code.
  const action = select([
    ['', 'Any action'],
    ...NAMED_ACTIONS.map((code): [string, string] => [code, actionWords(code)]).sort((a, b) => a[1].localeCompare(b[1])),
  ]);
  const rows = h('div');
  const load = async () => {
    if (!can('GET audit-log/')) return;
    const list = await api.get<List<AuditEntryView>>(`audit-log/${query({ actor: actor.value.trim(), action: action.value, limit: 100 })}`);
    if (can('GET enrollees/'))
      await people.load(list.results.flatMap((e) => [...(e.target_type === 'enrollee' ? [e.target_id] : []), ...idsIn(e.details)])).catch(() => undefined);
    replace(
      rows,
      table(
        ['When', 'Who', 'Did', 'To', 'Details'],
        list.results.map((e) => [
          dateTime(e.at),
          actorOf(e, names),
          // In the words of the events; the code (what the API's filter takes) on hover.
          h('span', { title: e.action }, actionWords(e.action)),
          target(e, names),
          auditDetails(e, names),
        ]),
        'Nothing recorded.',
        'Audit log',
      ),
    );
  };
  const form = h('form', { class: 'inline-form', role: 'search' }, field('Who', actor), field('Action', action), h('button', { type: 'submit' }, 'Filter'));
  onSubmit(form, { actor, action }, load);
  return { form, rows, load };
}

function jobsSection(jobs: JobView[], redraw: () => Promise<void>): HTMLElement {
  return section(
    'Jobs',
    table(
      ['Job', 'What it does', 'Last run', 'Result', 'Next run', ''],
      jobs.map((j) => [
        jobTitle(j.name),
        jobText(j),
        dateTime(j.last_finished_at),
        j.running ? badge('Running', 'info') : j.last_status ? badge(words(j.last_status), j.last_status === 'succeeded' ? 'ok' : 'bad') : 'Not run yet',
        dateTime(j.next_run_at),
        can('POST jobs/{name}/run/') &&
          (j.name === 'generate-absences' ? absencesForm(j.name, redraw) : button('Run now', () => runJob(j.name, null, redraw), runNow(j.name))),
      ]),
    ),
  );
}

/** The name of a Run now button: its visible words first (WCAG 2.5.3), then the job it runs. */
const runNow = (name: string) => ({ 'aria-label': `Run now: ${jobTitle(name)}` });

async function runJob(name: string, params: Record<string, string> | null, redraw: () => Promise<void>): Promise<void> {
  const path = `jobs/${encodeURIComponent(name)}/run/`;
  type Outcome = { status: string; result: Record<string, unknown> };
  const outcome = params ? await api.post<Outcome>(path, { params }) : await api.post<Outcome>(path);
  await redraw();
  announce(outcomeWords(name, outcome.status, outcome.result ?? {}), outcome.status === 'failed' ? 'bad' : 'ok');
}

/**
 * Record absences for the dates chosen (yesterday unless others are): the job takes a range
 * (`params.from`, `params.to`) as its description says; a date not over yet is said beside the field.
 */
function absencesForm(name: string, redraw: () => Promise<void>): HTMLElement {
  const yesterday = addDays(localDate(), -1);
  const from = input({ type: 'date', value: yesterday, required: true });
  const to = input({ type: 'date', value: yesterday, required: true });
  const form = h('form', { class: 'inline-form' }, field('From', from), field('To', to), h('button', { type: 'submit', ...runNow(name) }, 'Run now'));
  return onSubmit(form, { from, to }, async () => {
    if (to.value >= localDate()) throw new FieldError('to', `Only dates that are over: ${localDay(yesterday)} or earlier.`);
    if (from.value > to.value) throw new FieldError('from', 'The first date must not be after the last.');
    await runJob(name, { from: from.value, to: to.value }, redraw);
  });
}
