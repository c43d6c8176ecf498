/**
 * The details of an event or an audit entry (Operations) as words a reader of the log acts on:
 * ids become names, codes words, instants local times, punch states and fingers their names, an
 * attendance day its person, date and status; what only the API's clients need (template
 * versions, row counts) is left to the API's answer.
 */
import { dateTime, duration, fingerName, localDay, words } from './format';

/** Names for the ids the logs hold: people by their id, terminals by their serial. */
export interface Names {
  person(id: string): string | null;
  terminal(serial: string): string | null;
}

/** Details no reader of the log acts on. */
const TECHNICAL = new Set(['part', 'algorithm_version', 'version', 'template_version', 'rows', 'request_id']);

/** Keys whose words are not their own (a terminal's addresses: which one is which matters when confirming one). */
const KEY_WORDS: Record<string, string> = { ip: 'From address', pinned_ip: 'Trusted address' };

/** The terminals' punch states (ZKTeco `STATUS`). */
const PUNCH_STATES: Record<number, string> = { 0: 'in', 1: 'out', 2: 'break out', 3: 'break in', 4: 'overtime in', 5: 'overtime out' };

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

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
  if (typeof value === 'string' && key in KEY_WORDS) return `${KEY_WORDS[key]}: ${value}`;
  if (typeof value === 'object') return objectDetail(key, value as Record<string, unknown>, names);
  if (typeof value === 'number') {
    if (key === 'state') return `Punch: ${PUNCH_STATES[value] ?? `state ${value}`}`;
    if (key === 'index' && !context.biometric) return `Finger: ${fingerName(value)}`;
    if (key === 'drift_seconds') return `Clock ${value < 0 ? 'behind' : 'ahead'} by ${duration(Math.abs(value))}`;
    if (key === 'return_code') return value === 0 ? 'Answer: done' : `Answer: code ${value}`;
  }
  if (typeof value === 'string' && UUID.test(value)) return names?.person(value) ? `${words(key)}: ${names.person(value)}` : null;
  if (typeof value === 'string' && ISO_INSTANT.test(value)) return `${words(key)}: ${dateTime(value)}`;
  if (typeof value === 'boolean') return value ? words(key) : null;
  // Codes (`approved`, `not_in_scope`) in words; names, addresses and keys as they are.
  return `${words(key)}: ${typeof value === 'string' && /^[a-z]+(_[a-z]+)*$/.test(value) ? words(value).toLowerCase() : String(value)}`;
}

/** A terminal by its serial, a person by their id, an attendance day by its person and date; else nothing. */
function objectDetail(key: string, ref: Record<string, unknown>, names?: Names): string | null {
  if (typeof ref.serial_number === 'string') return `${words(key)}: ${names?.terminal(ref.serial_number) ?? ref.serial_number}`;
  if (typeof ref.enrollee === 'string' && typeof ref.date === 'string') {
    const who = names?.person(ref.enrollee) ?? (typeof ref.employee === 'string' ? ref.employee : 'someone');
    return `${who}, ${localDay(ref.date)}${typeof ref.status === 'string' ? `: ${words(ref.status).toLowerCase()}` : ''}`;
  }
  if (typeof ref.id === 'string' && names?.person(ref.id)) return `${words(key)}: ${names.person(ref.id)}`;
  return null;
}
