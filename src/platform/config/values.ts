/**
 * Parsers for environment/config values. Each returns a result object and
 * never throws. Error messages describe the expected format but do not echo
 * the input (the caller knows the variable name and whether it is sensitive).
 */

import { isCalendarDate } from '../time/dates';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

function ok<T>(value: T): ParseResult<T> {
  return { ok: true, value };
}

function fail<T>(error: string): ParseResult<T> {
  return { ok: false, error };
}

const NOT_A_STRING = 'expected a string';

export interface IntBounds {
  min?: number;
  max?: number;
}

function boundsError(n: number, bounds: IntBounds | undefined): string | null {
  if (bounds?.min !== undefined && n < bounds.min) return `must be at least ${bounds.min}`;
  if (bounds?.max !== undefined && n > bounds.max) return `must be at most ${bounds.max}`;
  return null;
}

// ---------------------------------------------------------------- durations

const UNITS = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
  ['ms', 1],
] as const;
type Unit = (typeof UNITS)[number][0];
const UNIT_MS: Record<Unit, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };
const UNIT_RANK: Record<Unit, number> = { d: 0, h: 1, m: 2, s: 3, ms: 4 };

const DURATION_HELP = 'expected a duration such as 500ms, 90s, 15m, 2h, 7d, 1h30m, or a whole number of seconds';

/**
 * Parses a duration to milliseconds. Accepts a bare non-negative integer
 * (seconds) or one or more `<integer><unit>` parts with units d, h, m, s, ms
 * in decreasing order without repeats ("1h30m", "2m500ms"). No spaces,
 * fractions or signs inside the value; surrounding whitespace is ignored.
 */
export function parseDuration(text: string): ParseResult<number> {
  if (typeof text !== 'string') return fail(NOT_A_STRING);
  const t = text.trim();
  if (t === '') return fail(DURATION_HELP);
  if (/^\d+$/.test(t)) {
    const ms = Number(t) * 1000;
    return Number.isSafeInteger(ms) ? ok(ms) : fail('duration is too large');
  }
  const part = /(\d+)(ms|[dhms])/y;
  let pos = 0;
  let total = 0;
  let lastRank = -1;
  while (pos < t.length) {
    part.lastIndex = pos;
    const m = part.exec(t);
    if (m === null) return fail(DURATION_HELP);
    const unit = m[2] as Unit;
    const rank = UNIT_RANK[unit];
    if (rank <= lastRank) return fail('duration units must appear once each, largest first (e.g. 1h30m)');
    lastRank = rank;
    total += Number(m[1]) * UNIT_MS[unit];
    if (!Number.isSafeInteger(total)) return fail('duration is too large');
    pos = part.lastIndex;
  }
  return ok(total);
}

/**
 * Formats milliseconds in the canonical form accepted by parseDuration
 * ("1h30m", "500ms", "0s"). Rounds to whole milliseconds; negative values
 * get a leading "-" (which parseDuration does not accept).
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  let rest = Math.round(Math.abs(ms));
  if (rest === 0) return '0s';
  let out = ms < 0 ? '-' : '';
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}

// -------------------------------------------------------------------- rates

export interface Rate {
  limit: number;
  windowMs: number;
}

const RATE_HELP = 'expected a rate such as 10/s, 120/m, 1000/h or 5/10s';

/** Parses `<limit>/<unit>` or `<limit>/<duration>` ("120/m", "5/10s"). */
export function parseRate(text: string): ParseResult<Rate> {
  if (typeof text !== 'string') return fail(NOT_A_STRING);
  const parts = text.trim().split('/');
  if (parts.length !== 2) return fail(RATE_HELP);
  const limitText = (parts[0] ?? '').trim();
  const windowText = (parts[1] ?? '').trim();
  if (!/^\d+$/.test(limitText)) return fail(RATE_HELP);
  const limit = Number(limitText);
  if (!Number.isSafeInteger(limit) || limit < 1) return fail('rate limit must be a positive integer');
  let windowMs: number;
  if (windowText === 'ms' || windowText === 's' || windowText === 'm' || windowText === 'h' || windowText === 'd') {
    windowMs = UNIT_MS[windowText];
  } else {
    if (/^\d+$/.test(windowText)) return fail('rate window needs a unit (e.g. 5/10s)');
    const d = parseDuration(windowText);
    if (!d.ok) return fail(RATE_HELP);
    windowMs = d.value;
  }
  if (windowMs <= 0) return fail('rate window must be longer than zero');
  return ok({ limit, windowMs });
}

/** Formats a rate so that parseRate reads it back ("120/m", "5/10s"). */
export function formatRate(rate: Rate): string {
  const window = formatDuration(rate.windowMs);
  const single = /^1(ms|[dhms])$/.exec(window);
  return `${rate.limit}/${single?.[1] ?? window}`;
}

// -------------------------------------------------------------------- lists

/**
 * Comma-separated list; items trimmed, empty items dropped. Cannot fail, so
 * it returns the array itself rather than a ParseResult.
 */
export function parseList(text: string): string[] {
  if (typeof text !== 'string') return [];
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function listItems(text: string): ParseResult<string[]> {
  return typeof text === 'string' ? ok(parseList(text)) : fail(NOT_A_STRING);
}

/** Largest number of integers an integer list may expand to. */
const MAX_INT_LIST = 10_000;

/**
 * Non-negative integers and inclusive ranges: "0-9", "0,1,2", "0-3,6".
 * Result is sorted ascending without duplicates; "" gives [].
 */
export function parseIntList(text: string, bounds?: IntBounds): ParseResult<number[]> {
  const items = listItems(text);
  if (!items.ok) return items;
  const seen = new Set<number>();
  for (const item of items.value) {
    const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(item);
    if (m === null) return fail('expected comma-separated integers or ranges such as 0-3,6');
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) return fail('integer is too large');
    if (to < from) return fail('range end must not be smaller than its start');
    if (to - from >= MAX_INT_LIST) return fail(`list may contain at most ${MAX_INT_LIST} integers`);
    for (const n of [from, to]) {
      const e = boundsError(n, bounds);
      if (e !== null) return fail(`each integer ${e}`);
    }
    for (let n = from; n <= to; n++) {
      seen.add(n);
      if (seen.size > MAX_INT_LIST) return fail(`list may contain at most ${MAX_INT_LIST} integers`);
    }
  }
  return ok([...seen].sort((a, b) => a - b));
}

// ----------------------------------------------------------------- scalars

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

/** true/false, 1/0, yes/no, on/off (case-insensitive). */
export function parseBoolean(text: string): ParseResult<boolean> {
  if (typeof text !== 'string') return fail(NOT_A_STRING);
  const t = text.trim().toLowerCase();
  if (TRUE_WORDS.has(t)) return ok(true);
  if (FALSE_WORDS.has(t)) return ok(false);
  return fail('expected true/false, 1/0, yes/no or on/off');
}

/** A safe integer in decimal, optionally signed, optionally bounded. */
export function parseInteger(text: string, bounds?: IntBounds): ParseResult<number> {
  if (typeof text !== 'string') return fail(NOT_A_STRING);
  const t = text.trim();
  if (!/^[+-]?\d+$/.test(t)) return fail('expected an integer');
  const n = Number(t);
  if (!Number.isSafeInteger(n)) return fail('integer is too large');
  const e = boundsError(n, bounds);
  return e === null ? ok(n === 0 ? 0 : n) : fail(`integer ${e}`);
}

/** JSON object whose values are arrays of strings, e.g. {"hr":["a","b"]}. */
export function parseJsonMap(text: string): ParseResult<Record<string, string[]>> {
  if (typeof text !== 'string') return fail(NOT_A_STRING);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail('expected JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return fail('expected a JSON object mapping names to arrays of strings');
  }
  const out: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) {
      return fail(`value for key ${JSON.stringify(key.slice(0, 64))} must be an array of strings`);
    }
    // defineProperty so a "__proto__" key stays an ordinary own property.
    Object.defineProperty(out, key, { value: [...value], enumerable: true, writable: true, configurable: true });
  }
  return ok(out);
}

/** A JSON object of non-negative integers, e.g. `{"face":32768}`. */
export function parseJsonNumberMap(text: string): ParseResult<Record<string, number>> {
  if (typeof text !== 'string') return fail(NOT_A_STRING);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail('expected JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return fail('expected a JSON object mapping names to whole numbers');
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!Number.isSafeInteger(value) || (value as number) < 0) return fail(`value for key ${JSON.stringify(key.slice(0, 64))} must be a whole number`);
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return ok(out);
}

// ------------------------------------------------------------ calendar bits

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

function weekday(token: string): number | null {
  const t = token.toLowerCase();
  if (/^[0-6]$/.test(t)) return Number(t);
  const i = DAY_NAMES.findIndex((name) => t === name || t === name.slice(0, 3));
  return i === -1 ? null : i;
}

/**
 * Weekdays as numbers, 0 = Sunday: "sat,sun", "6,0", "mon-fri", "1-5".
 * Ranges may wrap ("fri-mon" = 5,6,0,1). Sorted, without duplicates.
 */
export function parseWeekdays(text: string): ParseResult<number[]> {
  const items = listItems(text);
  if (!items.ok) return items;
  const days = new Set<number>();
  for (const item of items.value) {
    const m = /^([a-z0-9]+)(?:\s*-\s*([a-z0-9]+))?$/i.exec(item);
    const from = m?.[1] === undefined ? null : weekday(m[1]);
    const to = m?.[2] === undefined ? from : weekday(m[2]);
    if (from === null || to === null) {
      return fail('expected weekdays as names (sun, monday, ...) or numbers 0-6 (0 = Sunday), e.g. sat,sun or 1-5');
    }
    for (let d = from; ; d = (d + 1) % 7) {
      days.add(d);
      if (d === to) break;
    }
  }
  return ok([...days].sort((a, b) => a - b));
}

/** Comma-separated YYYY-MM-DD dates; sorted, without duplicates. */
export function parseDateList(text: string): ParseResult<string[]> {
  const items = listItems(text);
  if (!items.ok) return items;
  for (const item of items.value) {
    if (!isCalendarDate(item)) return fail('expected comma-separated calendar dates as YYYY-MM-DD');
  }
  return ok([...new Set(items.value)].sort());
}

export interface Schedule {
  /** "HH:MM", 24-hour. */
  start: string;
  /** "HH:MM"; earlier than start means the window runs past midnight. */
  end: string;
  graceMs: number;
}

const SCHEDULE_HELP = 'expected a schedule such as 09:00-17:00 or 09:00-17:00/10m (start-end/grace)';

function clock(h: string, m: string): string | null {
  const hh = Number(h);
  const mm = Number(m);
  if (hh > 23 || mm > 59) return null;
  return `${String(hh).padStart(2, '0')}:${m}`;
}

/**
 * "HH:MM-HH:MM" with an optional "/<duration>" grace period (default 0).
 * Hours may have one digit ("9:00"); output is normalised to two. End before
 * start is accepted as an overnight window; equal start and end is rejected.
 */
export function parseSchedule(text: string): ParseResult<Schedule> {
  if (typeof text !== 'string') return fail(NOT_A_STRING);
  const m = /^(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})(?:\s*\/\s*(\S+))?$/.exec(text.trim());
  if (m === null) return fail(SCHEDULE_HELP);
  const start = clock(m[1] ?? '', m[2] ?? '');
  const end = clock(m[3] ?? '', m[4] ?? '');
  if (start === null || end === null) return fail('schedule times must be between 00:00 and 23:59');
  if (start === end) return fail('schedule start and end must differ');
  let graceMs = 0;
  if (m[5] !== undefined) {
    const g = parseDuration(m[5]);
    if (!g.ok) return fail(`schedule grace: ${g.error}`);
    graceMs = g.value;
  }
  return ok({ start, end, graceMs });
}

// ------------------------------------------------------------ travel times

/** Minutes it takes at least to go from one area to another (both ways). */
export interface TravelTime {
  /** The two area names, as on the wire. */
  areas: [string, string];
  minutes: number;
}

const TRAVEL_HELP = 'expected pairs of areas with minutes, e.g. `north-south=40,hq|east-wing=15` (use `|` between names that contain a dash)';

/**
 * `TRAVEL_MINUTES`: comma-separated `areaA-areaB=minutes`, symmetric. An area name holding a
 * dash is written with `|` between the two names instead (`east-wing|hq=10`). Names are trimmed
 * and must differ; minutes are a whole number from 1 to 1440; a pair given twice is an error.
 */
export function parseTravelMinutes(text: string): ParseResult<TravelTime[]> {
  if (typeof text !== 'string') return fail(NOT_A_STRING);
  const out: TravelTime[] = [];
  const seen = new Set<string>();
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const eq = entry.lastIndexOf('=');
    if (eq <= 0) return fail(TRAVEL_HELP);
    const pair = entry.slice(0, eq);
    const minutesText = entry.slice(eq + 1).trim();
    const names = pair.includes('|') ? pair.split('|') : pair.split('-');
    if (names.length !== 2) return fail(`${TRAVEL_HELP}; one entry does not name exactly two areas`);
    const [a, b] = names.map((n) => n.trim()) as [string, string];
    if (a === '' || b === '' || a.length > 100 || b.length > 100) return fail(`${TRAVEL_HELP}; an area name is empty or too long`);
    if (a === b) return fail(`${TRAVEL_HELP}; an entry names the same area twice`);
    if (!/^\d{1,4}$/.test(minutesText)) return fail(`${TRAVEL_HELP}; minutes must be a whole number`);
    const minutes = Number(minutesText);
    if (minutes < 1 || minutes > 1440) return fail(`${TRAVEL_HELP}; minutes must be from 1 to 1440`);
    const key = travelKey(a, b);
    if (seen.has(key)) return fail(`${TRAVEL_HELP}; a pair of areas is given twice`);
    seen.add(key);
    out.push({ areas: [a, b], minutes });
  }
  return ok(out);
}

/** The same key for (a, b) and (b, a). */
export function travelKey(a: string, b: string): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}

/** `TRAVEL_MINUTES` as written in docs and `fpa:check --print`. */
export function formatTravelMinutes(times: readonly TravelTime[]): string {
  return times.map((t) => `${t.areas.some((n) => n.includes('-')) ? t.areas.join('|') : t.areas.join('-')}=${t.minutes}`).join(',');
}
