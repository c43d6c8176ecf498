/**
 * The details of an event or an audit entry (Operations) as words a reader of the log acts on:
 * ids become names, codes words, instants local times, fingers their names, an
 * attendance day its person, date and status; what only the API's clients need (template
 * versions, row counts) is left to the API's answer.
 */
import { dateTime, fingerName, isolated, localDay, punchState, spokenDuration, wallTime, words } from './format';

/** Names for the ids the logs hold: people by their id, terminals by their serial. */
export interface Names {
  person(id: string): string | null;
  terminal(serial: string): string | null;
}

/**
 * Details no reader of the log acts on. An audit entry's bare `state` too (a manual punch's is 0
 * whatever it stands for: "in" would mislead); a punch's own state is said with the punch
 * (punchDetail), where it is known to be the terminal's.
 */
const TECHNICAL = new Set(['part', 'algorithm_version', 'version', 'template_version', 'rows', 'request_id', 'state']);

/** Keys named as the pages name them (a terminal's two addresses: which is which matters when confirming one). */
const KEY_WORDS: Record<string, string> = {
  ip: 'From address',
  pinned_ip: 'Trusted address',
  enrollee: 'Person',
  employee: 'Employee ID',
  device_pin: 'PIN',
  device: 'Terminal',
  sender: 'Terminal',
};
const label = (key: string) => KEY_WORDS[key] ?? words(key);

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
/** A local date (a schedule's from, a leave's to): in the one date format too. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Details as words, comma-separated. */
export function summarize(details: Record<string, unknown>, names?: Names): string {
  const biometric = typeof details.type === 'string' && details.type !== 'fingerprint';
  return Object.entries(details)
    .filter(([k, v]) => v !== null && v !== undefined && !TECHNICAL.has(k))
    .map(([k, v]) => detail(k, v, { names, biometric }))
    .filter((x): x is string => x !== null)
    .join(', ');
}

function detail(key: string, value: unknown, context: { names?: Names; biometric: boolean }): string | null {
  const { names } = context;
  if (typeof value === 'object') return objectDetail(key, value as Record<string, unknown>, names);
  if (typeof value === 'number') {
    if (key === 'index' && !context.biometric) return `Finger: ${fingerName(value)}`;
    if (key === 'drift_seconds') return `Clock ${value < 0 ? 'behind' : 'ahead'} by ${spokenDuration(Math.abs(value))}`;
    if (key === 'return_code') return value === 0 ? 'Answer: done' : `Answer: code ${value}`;
  }
  if (typeof value === 'string' && UUID.test(value)) return names?.person(value) ? `${label(key)}: ${names.person(value)}` : null;
  if (typeof value === 'string' && ISO_INSTANT.test(value)) return `${label(key)}: ${dateTime(value)}`;
  if (typeof value === 'string' && ISO_DATE.test(value)) return `${label(key)}: ${localDay(value)}`;
  if (typeof value === 'boolean') return value ? label(key) : null;
  // Codes (`approved`, `not_in_scope`) in words; names, addresses and keys as they are (a
  // right-to-left name kept apart from what follows it).
  return `${label(key)}: ${typeof value === 'string' && /^[a-z]+(_[a-z]+)*$/.test(value) ? words(value).toLowerCase() : isolated(String(value))}`;
}

/** A value a change went from or to: a list by its items (no area is every area), none as none. */
function changeValue(key: string, value: unknown): string {
  if (Array.isArray(value)) return value.length > 0 ? value.join(', ') : key === 'areas' ? 'every area' : 'none';
  return value === null || value === undefined || value === '' ? 'none' : isolated(String(value));
}

/**
 * A terminal by its serial, a person by their id, a punch or an attendance day by its person and
 * date, a change by what it was and what it is ("Role: from hr to admin"); else nothing.
 */
function objectDetail(key: string, ref: Record<string, unknown>, names?: Names): string | null {
  if ('from' in ref && 'to' in ref && Object.keys(ref).length === 2) return `${label(key)}: from ${changeValue(key, ref.from)} to ${changeValue(key, ref.to)}`;
  if (typeof ref.serial_number === 'string') return `${label(key)}: ${names?.terminal(ref.serial_number) ?? isolated(ref.serial_number)}`;
  if (typeof ref.punched_at === 'string') return punchDetail(ref, names);
  if (typeof ref.enrollee === 'string' && typeof ref.date === 'string') {
    const who = names?.person(ref.enrollee) ?? (typeof ref.employee === 'string' ? ref.employee : 'someone');
    return `${who}, ${localDay(ref.date)}${typeof ref.status === 'string' ? `: ${words(ref.status).toLowerCase()}` : ''}`;
  }
  if (typeof ref.id === 'string' && names?.person(ref.id)) return `${label(key)}: ${names.person(ref.id)}`;
  return null;
}

/**
 * A punch (`punch_received`, `punch_voided`): whose (by name, a namesake with their employee id;
 * a PIN nobody holds as such), its local time as it was kept, and its state in words. A manual or
 * imported punch is given state 0 when none is said, so its 0 is left out; another state was said.
 * A terminal's state that could not be read (flag `unknown_state`, stored as 0) is said as such.
 */
function punchDetail(punch: Record<string, unknown>, names?: Names): string {
  const person = typeof punch.enrollee === 'string' ? names?.person(punch.enrollee) : null;
  const who =
    person ??
    (typeof punch.employee === 'string' && punch.employee ? punch.employee : typeof punch.device_pin === 'string' ? `PIN ${punch.device_pin}` : 'someone');
  const when = typeof punch.local_time === 'string' ? wallTime(punch.local_time) : dateTime(String(punch.punched_at));
  const byHand = punch.source === 'manual' || punch.source === 'import';
  const unknown = Array.isArray(punch.flags) && punch.flags.includes('unknown_state');
  const state = unknown ? 'state unknown' : typeof punch.state === 'number' && !(byHand && punch.state === 0) ? punchState(punch.state) : null;
  return [who, when, state, punch.voided === true ? 'voided' : null].filter((x): x is string => x !== null).join(', ');
}
