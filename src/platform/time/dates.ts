/**
 * Calendar dates and wall clocks in a time zone. A date `YYYY-MM-DD` covers the instants
 * [start of the date, start of the next date), each start being the first instant whose wall
 * time shows that date (Intl-based, so a 23- or 25-hour DST day comes out right).
 */
import { FpaError } from '../errors';
import { formatLocalWallTime, localWallTimeToUtc, resolutionFlags } from './zone';

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** A real calendar date in `YYYY-MM-DD` form (rejects 2026-02-30). */
export function isCalendarDate(text: string): boolean {
  const m = DATE_RE.exec(text);
  if (!m) return false;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(ms).toISOString().slice(0, 10) === text;
}

export function requireDate(text: string, field: string): string {
  if (!isCalendarDate(text)) throw new FpaError('validation_error', `${field} must be a date (YYYY-MM-DD)`, { field, value: text });
  return text;
}

/**
 * Both ends of a required range are dates that exist: the one that is not is named, with its
 * value (`from must be a date (YYYY-MM-DD)`, as on the lists), both only when neither is.
 */
export function requireDates(from: string, to: string): void {
  const fromOk = isCalendarDate(from);
  const toOk = isCalendarDate(to);
  if (!fromOk && !toOk) throw new FpaError('validation_error', 'from and to must be dates (YYYY-MM-DD)', { fields: ['from', 'to'], from, to });
  requireDate(from, 'from');
  requireDate(to, 'to');
}

/**
 * A range of dates a caller gave (both ends checked already): `to` before `from` is refused,
 * naming both, on every route alike.
 */
export function requireOrdered(from: string, to: string): void {
  if (to < from) throw new FpaError('validation_error', `to (${to}) is before from (${from})`, { fields: ['from', 'to'], from, to });
}

/**
 * The `from`/`to` dates of a list's filter, each optional: each must be a date that exists, and
 * when both are given `to` must not be before `from` (refused alike on every route).
 */
export function dateFilter(range: { from?: string; to?: string }): { from?: string; to?: string } {
  const from = range.from === undefined || range.from === '' ? undefined : requireDate(range.from, 'from');
  const to = range.to === undefined || range.to === '' ? undefined : requireDate(range.to, 'to');
  if (from !== undefined && to !== undefined) requireOrdered(from, to);
  return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
}

/** Calendar arithmetic on date strings (no zone involved). */
export function addDays(date: string, days: number): string {
  const m = DATE_RE.exec(date)!;
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) + days * DAY_MS).toISOString().slice(0, 10);
}

/** 0 = Sunday … 6 = Saturday. */
export function weekdayOf(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}

/** The local date an instant falls on in `timeZone`. */
export function localDateOf(instantMs: number, timeZone: string): string {
  return formatLocalWallTime(new Date(instantMs), timeZone).slice(0, 10);
}

const CLOCK_RE = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;

/** Seconds after midnight of a wall clock `H:MM`, `HH:MM` or `HH:MM:SS`; null if malformed. */
export function secondsOfClock(wallTime: string): number | null {
  const m = CLOCK_RE.exec(wallTime);
  if (!m) return null;
  const [h, min, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  return h < 24 && min < 60 && s < 60 ? h * 3600 + min * 60 + s : null;
}

/** An instant of a wall time (`HH:MM` or `HH:MM:SS`) on a local date; DST rule of time-zone.ts. */
export function instantOn(date: string, wallTime: string, timeZone: string): number {
  const seconds = secondsOfClock(wallTime);
  const pad = (n: number) => String(n).padStart(2, '0');
  const time = seconds === null ? wallTime : `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
  const resolved = localWallTimeToUtc(`${date} ${time}`, timeZone);
  if (!resolved) throw new FpaError('validation_error', 'not a valid local time', { date, time: wallTime, time_zone: timeZone });
  return resolved.utc.getTime();
}

/** [start, end) of a local date in UTC milliseconds. */
export function dayBounds(date: string, timeZone: string): { start: number; end: number } {
  return { start: instantOn(date, '00:00:00', timeZone), end: instantOn(addDays(date, 1), '00:00:00', timeZone) };
}

/**
 * A list filter's bound as an instant range: an ISO 8601 instant as given, or a date
 * (`2026-01-31`) meaning that whole local date in `timeZone`, inclusive at both ends of the
 * range; `from` gives the start, `to` the end (exclusive) of the range it bounds.
 */
export function rangeBound(value: string, bound: 'from' | 'to', timeZone: string): number {
  if (isCalendarDate(value)) {
    const { start, end } = dayBounds(value, timeZone);
    return bound === 'from' ? start : end;
  }
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new FpaError('validation_error', `${bound} must be a date (YYYY-MM-DD) or an ISO 8601 instant`, { field: bound, value });
  // An instant `to` is inclusive: the range ends just after it.
  return bound === 'from' ? ms : ms + 1;
}

/**
 * The instants [start, end) of a list's `from`/`to` filter (rangeBound each, each optional; null:
 * no bound). A range that ends before it starts (`to` before `from`) is refused, naming both.
 */
export function instantFilter(range: { from?: string; to?: string }, timeZone: string): { start: number | null; end: number | null } {
  const start = range.from ? rangeBound(range.from, 'from', timeZone) : null;
  const end = range.to ? rangeBound(range.to, 'to', timeZone) : null;
  if (start !== null && end !== null && end <= start) {
    throw new FpaError('validation_error', `to (${range.to}) is before from (${range.from})`, { fields: ['from', 'to'], from: range.from, to: range.to });
  }
  return { start, end };
}

const OFFSET_INSTANT_RE = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;
const WALL_TIME_RE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;

/** Whether a punch time is a wall time without an offset (parsePunchTime reads it in a zone). */
export function isWallTime(text: string): boolean {
  return WALL_TIME_RE.test(text.trim());
}

/**
 * A punch time given by a person (a correction or an imported file): an ISO 8601 instant with
 * `Z` or an offset (`2026-03-09T08:00:00+05:30`), or a wall time without one
 * (`2026-03-09 08:00` or `2026-03-09T08:00:00`) read in `timeZone` with the DST rule of
 * ./zone.ts, flagged as a terminal's wall time is (`dst_gap`, `dst_overlap`). Null when it is
 * neither, or names a date or time that does not exist.
 */
export function parsePunchTime(text: string, timeZone: string): { at: number; flags: string[] } | null {
  const value = text.trim();
  const instant = OFFSET_INSTANT_RE.exec(value);
  if (instant) {
    const [, date = '', h = '', min = '', sec = '00'] = instant;
    if (!isCalendarDate(date) || secondsOfClock(`${h}:${min}:${sec}`) === null) return null;
    const ms = Date.parse(value);
    return Number.isFinite(ms) ? { at: ms, flags: [] } : null;
  }
  const wall = WALL_TIME_RE.exec(value);
  if (!wall) return null;
  const [, date = '', h = '', min = '', sec = '00'] = wall;
  if (!isCalendarDate(date) || secondsOfClock(`${h}:${min}:${sec}`) === null) return null;
  const resolved = localWallTimeToUtc(`${date} ${h}:${min}:${sec}`, timeZone);
  if (!resolved) return null;
  return { at: resolved.utc.getTime(), flags: resolutionFlags(resolved.resolution) };
}
