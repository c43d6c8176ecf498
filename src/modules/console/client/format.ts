/** Plain words and local times: what the console shows instead of codes and UTC instants. */

// The one module of the server the browser runs as well: it imports nothing (test/architecture/wire-shapes.test.ts).
import { compareKeys, nameKey } from '../../../platform/name-key';
import type { CommandKind } from '../../commands';
import { currentSession } from './api';

const WORDS: Record<string, string> = {
  // terminals
  pending_approval: 'Waiting for approval',
  approved: 'Approved',
  disabled: 'Disabled',
  // commands
  pending: 'Waiting to be sent',
  sent: 'Sent, waiting for the answer',
  succeeded: 'Done',
  failed: 'Failed',
  expired: 'Expired',
  cancelled: 'Cancelled',
  // template sync
  present: 'Present',
  incompatible: 'Cannot use it',
  // attendance days
  incomplete: 'Missing punch',
  absent: 'Absent',
  non_working_day: 'Day off',
  holiday: 'Holiday',
  on_leave: 'On leave',
  late: 'Late',
  early_leave: 'Left early',
  overtime: 'Overtime',
  manual: 'Corrected by hand',
  unconfirmed_terminal: 'Punch from an unconfirmed terminal address',
  clock_ahead: 'Dated after it arrived (terminal clock ahead)',
  worked_on_holiday: 'Worked on a holiday',
  worked_on_off_day: 'Worked on a day off',
  // sessions
  open: 'Waiting for the agent',
  in_progress: 'In progress',
  completed: 'Completed',
  // agents, webhooks
  active: 'Active',
  revoked: 'Revoked',
  delivered: 'Delivered',
  dead: 'Gave up',
  held: 'Held (endpoint disabled)',
  // punch flags
  unknown_pin: 'Terminal’s own user',
  dst_overlap: 'Clock change (repeated hour)',
  dst_gap: 'Clock change (skipped hour)',
  future_time: 'Time in the future',
  clock_reset: 'Terminal clock was reset',
  stale_offset: 'Read with the terminal’s old offset',
  after_lock: 'Arrived after the pay period was locked',
  usb_file: 'From the terminal’s USB file',
  unknown_state: 'State not readable',
  unknown_verify: 'Verify mode not readable',
  voided: 'Voided',
};

/** A code in plain words (unknown codes are de-snaked, never shown raw). */
export function words(code: string | null | undefined): string {
  if (!code) return '—';
  const known = WORDS[code];
  if (known) return known;
  const text = code.replace(/[_.]/g, ' ').toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Each kind of command as the console names it (the API's kinds, commands/tables.ts). */
const COMMAND_KINDS: Readonly<Record<CommandKind, string>> = {
  add_user: 'Add person',
  delete_user: 'Remove person',
  update_template: 'Send fingerprint',
  delete_template: 'Delete fingerprint',
  ENROLL_FP: 'Enroll a finger',
  ENROLL_BIO: 'Enroll a biometric',
  check: 'Check in (refresh settings)',
  query_templates: 'List a person’s fingerprints',
  reboot: 'Restart',
  set_time: 'Set the clock',
  info: 'Read terminal information',
  query_users: 'List its users',
  reupload_logs: 'Send punches again',
  clear_logs: 'Delete its punches',
  clear_data: 'Delete all its data',
  raw: 'Raw command',
};

const commandNames: Readonly<Record<string, string | undefined>> = COMMAND_KINDS;
/** A command's kind in words (one the console does not know, from a newer server: its own name in words). */
export const commandKind = (kind: string) => commandNames[kind] ?? words(kind);

export const FINGERS = [
  'Left little',
  'Left ring',
  'Left middle',
  'Left index',
  'Left thumb',
  'Right thumb',
  'Right index',
  'Right middle',
  'Right ring',
  'Right little',
];
export const fingerName = (index: number) => FINGERS[index] ?? `Finger ${index}`;

/** What each kind of biometric is called (one, many), in the order the pages list them. */
const KINDS: Record<string, readonly [string, string]> = {
  fingerprint: ['fingerprint', 'fingerprints'],
  visible_face: ['face', 'faces'],
  face: ['near-infrared face', 'near-infrared faces'],
  palm: ['palm', 'palms'],
  finger_vein: ['finger vein', 'finger veins'],
};
const kindOrder = (kind: string) => {
  const i = Object.keys(KINDS).indexOf(kind);
  return i < 0 ? Number.MAX_SAFE_INTEGER : i;
};

/** Kinds in the order the pages list them: fingerprints first, kinds the console does not know last. */
export function byKind<T>(entries: [string, T][]): [string, T][] {
  return [...entries].sort(([a], [b]) => kindOrder(a) - kindOrder(b) || a.localeCompare(b));
}

/** Counts by kind in words: `2 fingerprints, 1 face, 1 palm` (a palm of five templates is one palm); `None`. */
export function biometricCounts(counts: Record<string, number>): string {
  const said = byKind(Object.entries(counts).filter(([, n]) => n > 0)).map(([kind, n]) => {
    const name = KINDS[kind];
    return name ? count(n, name[0], name[1]) : `${words(kind)}: ${n}`;
  });
  return said.length > 0 ? said.join(', ') : 'None';
}

/** One body part of a kind: `Right index`, `Face`, `Left palm`, `Finger vein, right index`. */
export function biometricPart(kind: string, index: number): string {
  if (kind === 'fingerprint') return fingerName(index);
  if (kind === 'visible_face') return 'Face';
  if (kind === 'face') return 'Face (near-infrared)';
  if (kind === 'palm') return index === 0 ? 'Left palm' : index === 1 ? 'Right palm' : `Palm ${index}`;
  if (kind === 'finger_vein') return `Finger vein, ${fingerName(index).toLowerCase()}`;
  return `${words(kind)} ${index}`;
}

const zone = () => currentSession().time_zone;

/**
 * One date format everywhere: the browser's language (Intl with no locale given), so a date
 * reads the way the person reading it writes dates. Formatters are made once per zone.
 */
const LOCALE: string | undefined = undefined;
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(key: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(LOCALE, options);
    formatters.set(key, f);
  }
  return f;
}
const DAY: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short', year: 'numeric' };
/**
 * The hour as the language writes it: two digits on a 24-hour clock (`09:02`, `17:15`), as it
 * comes on a 12-hour one (`9:02 AM`, `5:15 PM`, `오후 5:15`), never `05:15 PM`.
 */
const HOUR: Intl.DateTimeFormatOptions['hour'] = ['h23', 'h24'].includes(new Intl.DateTimeFormat(LOCALE, { hour: 'numeric' }).resolvedOptions().hourCycle ?? '')
  ? '2-digit'
  : 'numeric';

/** An instant as local date and time in the attendance zone, e.g. `24 Nov 2026, 09:02`. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const z = zone();
  return formatter(`dt:${z}`, { timeZone: z, ...DAY, hour: HOUR, minute: '2-digit' }).format(new Date(iso));
}

export function time(iso: string | null | undefined): string {
  if (!iso) return '—';
  const z = zone();
  return formatter(`t:${z}`, { timeZone: z, hour: HOUR, minute: '2-digit', second: '2-digit' }).format(new Date(iso));
}

/**
 * The hour and minute of an instant in the attendance zone (or `timeZone`: a person's own, on the
 * Today board), as the browser's language writes a time of day: `09:02`, `17:15` (en-GB), `5:15 PM` (en-US), `오후 5:15` (ko-KR). Never cut out of a longer
 * format: the first five characters of `5:15:00 PM` or `오후 5:15:00` lose the AM/PM or the minutes.
 */
export function hourMinute(iso: string | null | undefined, timeZone?: string): string {
  if (!iso) return '—';
  const z = timeZone ?? zone();
  return formatter(`hm:${z}`, { timeZone: z, hour: HOUR, minute: '2-digit' }).format(new Date(iso));
}

/** A local date `YYYY-MM-DD` in the same format as every other date, e.g. `24 Nov 2026`. */
export function localDay(date: string | null | undefined): string {
  if (!date) return '—';
  return formatter('d', { timeZone: 'UTC', ...DAY }).format(new Date(`${date}T12:00:00Z`));
}

/**
 * Two local dates `YYYY-MM-DD` as one span in the browser's language, as Intl writes a range:
 * `30 Oct – 29 Nov 2026` (en-GB), `Oct 30 – Nov 29, 2026` (en-US); the date alone when they are one.
 */
export function dateSpan(from: string, to: string): string {
  if (from === to) return localDay(from);
  return formatter('d', { timeZone: 'UTC', ...DAY }).formatRange(new Date(`${from}T12:00:00Z`), new Date(`${to}T12:00:00Z`));
}

/** The weekday of a local date `YYYY-MM-DD` in the browser's language (short: `Mon`, `Mo`, `월`). */
export const weekdayOf = (date: string, width: 'short' | 'long' = 'short'): string => weekdayName(new Date(`${date}T12:00:00Z`).getUTCDay(), width);

/**
 * A wall time as a terminal (or the attendance zone) kept it, `2026-03-02 08:00:00`, in the same
 * format as every other date and time (`2 Mar 2026, 08:00`): it is read as it stands, never moved
 * into another zone.
 */
export function wallTime(local: string): string {
  const [date, clock = '00:00'] = local.trim().split(/[ T]/);
  const instant = new Date(`${date}T${clock}Z`);
  if (Number.isNaN(instant.getTime())) return local;
  return formatter('wt', { timeZone: 'UTC', ...DAY, hour: HOUR, minute: '2-digit' }).format(instant);
}

/**
 * A punch's state as terminals send it, in words (ADMS: 0 check-in, 1 check-out, 2 break out,
 * 3 break in, 4 overtime in, 5 overtime out; the keys are configurable on a terminal, so another
 * number is said as it is).
 */
const PUNCH_STATES = ['check-in', 'check-out', 'break out', 'break in', 'overtime in', 'overtime out'];
export const punchState = (state: number): string => PUNCH_STATES[state] ?? `state ${state}`;

/** Letters written right to left: Hebrew, Arabic, Syriac, Thaana, N'Ko and the like, and their presentation forms. */
const RIGHT_TO_LEFT = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

/**
 * User text (a person's or a terminal's name, a username) set apart from the words, ids and
 * times around it when it holds right-to-left letters: in the console's left-to-right lines
 * `سارة محمد (1001)` took its id into the name's run and read `(1001) سارة محمد`, and an event's
 * `سارة محمد, 3 Mar 2031` its date. The Unicode isolates (FSI … PDI) do what `<bdi>` does, in a
 * string (a field's value, a table cell, a heading); text with no such letter is left as it is.
 */
export function isolated(text: string): string {
  return RIGHT_TO_LEFT.test(text) ? `\u2068${text}\u2069` : text;
}

/** People in the server's order by name: their keys (platform/name-key.ts, the same code) as the database compares them, then their ids. */
export function byName(a: { id: string; display_name: string }, b: { id: string; display_name: string }): number {
  return compareKeys(nameKey(a.display_name), nameKey(b.display_name)) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** A file size as people read it: `1 MB`, `10 MB`, `12.4 MB` (MB of 1,048,576 bytes, as file managers count), `300 KB`. */
export function fileSize(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb >= 1) return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

const numbers = new Intl.NumberFormat(LOCALE);
/** A number grouped as the browser's language groups it, as dates are written: `12,400` (en), `12.400` (de), `12 400` (fr). */
export const figure = (n: number): string => numbers.format(n);

/** A count with its noun: `1 terminal`, `3 terminals` (never `terminal(s)`). */
export function count(n: number, one: string, many: string): string {
  return `${figure(n)} ${n === 1 ? one : many}`;
}

/** Weekday names in the browser's language, 0 = Sunday (short: `Mon`). */
export function weekdayName(day: number, width: 'short' | 'long' = 'short'): string {
  // 2026-03-01 is a Sunday.
  return formatter(`w:${width}`, { timeZone: 'UTC', weekday: width }).format(new Date(Date.UTC(2026, 2, 1 + day, 12)));
}

/** `YYYY-MM-DD` of an instant in the attendance zone. */
export function localDate(instant: Date = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: zone(), year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(instant);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** A local date `YYYY-MM-DD` as `Mon 24 Nov` (for the columns of a grid). */
export function dayLabel(date: string): string {
  return formatter('dl', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short' }).format(new Date(`${date}T12:00:00Z`));
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Worked, late or early time as `H:MM` (whole minutes, rounded down): as the reports and the payroll export write it. */
export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  const minutes = Math.floor(seconds / 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}

/** A short span in words (`10 minutes`, `1 hour 5 minutes`, `40 seconds`): a clock's drift, where `0:10` would not say which unit. */
export function spokenDuration(seconds: number): string {
  if (seconds < 60) return count(Math.round(seconds), 'second', 'seconds');
  // A clock started over (2000-01-01) or set to a wrong year: days or years, not thousands of hours.
  if (seconds >= 2 * 365.25 * 86_400) return `about ${count(Math.round(seconds / (365.25 * 86_400)), 'year', 'years')}`;
  if (seconds >= 2 * 86_400) return count(Math.round(seconds / 86_400), 'day', 'days');
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return count(minutes, 'minute', 'minutes');
  return rest === 0 ? count(hours, 'hour', 'hours') : `${count(hours, 'hour', 'hours')} ${count(rest, 'minute', 'minutes')}`;
}

/** How long ago, in words: `3 minutes ago`. */
export function ago(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${count(Math.round(s / 86400), 'day', 'days')} ago`;
}
