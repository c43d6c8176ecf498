import { formatLocalDateTime, type LocalDateTimeParts, parseLocalDateTime, wallTimeAsUtcMs } from './local-time';

/**
 * IANA time-zone arithmetic on top of Intl (no tz database of our own).
 *
 * DST rule for turning a device wall time into an instant (deterministic, documented):
 * - exact:   the wall time occurs once → that instant.
 * - overlap: it occurs twice (clocks went back) → the EARLIER instant, i.e. the first occurrence,
 *            read with the offset in force before the transition.
 * - gap:     it does not exist (clocks went forward) → read it with the offset in force BEFORE
 *            the gap, so 02:30 in Berlin's spring-forward gap becomes 01:30Z = 03:30 CEST.
 * This matches Temporal's `disambiguation: 'compatible'`.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * The IANA name of a zone as the tz database spells it (`europe/berlin` → `Europe/Berlin`), or
 * null when it is none. Intl also takes a fixed offset (`+02:00`, `-0800`) as a zone: that is no
 * IANA name, has no DST rules, and is refused (`Etc/GMT-2` is the IANA name of UTC+2).
 */
export function canonicalTimeZone(timeZone: string): string | null {
  if (timeZone.trim() === '') return null;
  try {
    const name = formatterFor(timeZone).resolvedOptions().timeZone;
    return /^[+-]/.test(name) ? null : name;
  } catch {
    return null;
  }
}

/** An IANA time-zone name, in any letter case (see canonicalTimeZone): what a setting or a request may give. */
export function isValidTimeZone(timeZone: string): boolean {
  return canonicalTimeZone(timeZone) !== null;
}

/**
 * A zone Intl can compute with, fixed offsets included: what is already stored (a terminal's zone
 * set before offsets were refused) is still read as it was, never dropped for another zone.
 */
export function isUsableTimeZone(timeZone: string): boolean {
  if (timeZone.trim() === '') return false;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The zone to compute a terminal's wall times with: its own when Intl can use it, else UTC (as the option block does). */
export function usableZoneOrUtc(timeZone: string): string {
  return isUsableTimeZone(timeZone) ? timeZone : 'UTC';
}

/** The wall-clock fields an instant shows in a zone (cached offset; see offsetMs). */
export function wallTimeAt(instantMs: number, timeZone: string): LocalDateTimeParts {
  const whole = Math.floor(instantMs / 1000) * 1000;
  const shown = new Date(whole + offsetMs(whole, timeZone));
  return {
    year: shown.getUTCFullYear(),
    month: shown.getUTCMonth() + 1,
    day: shown.getUTCDate(),
    hour: shown.getUTCHours(),
    minute: shown.getUTCMinutes(),
    second: shown.getUTCSeconds(),
  };
}

/** The wall-clock fields straight from Intl (slow: a formatToParts call each time). */
function intlWallTimeAt(instantMs: number, timeZone: string): LocalDateTimeParts {
  const parts = formatterFor(timeZone).formatToParts(new Date(instantMs));
  const get = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value ?? NaN);
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour') % 24,
    minute: get('minute'),
    second: get('second'),
  };
}

/** Offset in ms straight from Intl (may include seconds for historic local-mean-time zones). */
function intlOffsetMs(instantMs: number, timeZone: string): number {
  const whole = Math.floor(instantMs / 1000) * 1000;
  return wallTimeAsUtcMs(intlWallTimeAt(whole, timeZone)) - whole;
}

const HOUR_MS = 3_600_000;
/** zone → hour index → the offset of that whole UTC hour, or MIXED when a transition falls inside it. */
const hourOffsets = new Map<string, Map<number, number>>();
const MIXED = Number.NaN;
const MAX_CACHED_HOURS = 100_000;

/**
 * Offset in ms, cached per UTC hour. Intl is slow (a formatToParts per call) and a terminal's
 * batch of punches falls in a handful of hours, so each hour is asked once: its first and last
 * second are looked up, and when both agree the whole hour has that offset (zones never change
 * twice within an hour). An hour holding a transition is marked and always asked exactly.
 */
function offsetMs(instantMs: number, timeZone: string): number {
  const whole = Math.floor(instantMs / 1000) * 1000;
  const hour = Math.floor(whole / HOUR_MS);
  let hours = hourOffsets.get(timeZone);
  if (!hours) {
    hours = new Map();
    hourOffsets.set(timeZone, hours);
  }
  let offset = hours.get(hour);
  if (offset === undefined) {
    const first = intlOffsetMs(hour * HOUR_MS, timeZone);
    const last = intlOffsetMs((hour + 1) * HOUR_MS - 1000, timeZone);
    offset = first === last ? first : MIXED;
    if (hours.size >= MAX_CACHED_HOURS) hours.clear();
    hours.set(hour, offset);
  }
  return Number.isNaN(offset) ? intlOffsetMs(whole, timeZone) : offset;
}

/**
 * UTC offset of `timeZone` at instant `at`, in minutes east of UTC (Kolkata 330, New York −300/−240).
 * Throws RangeError for an unknown zone or an invalid Date: check configuration with isValidTimeZone.
 */
export function timeZoneOffsetMinutes(timeZone: string, at: Date): number {
  return offsetMs(at.getTime(), timeZone) / 60_000;
}

/** Format an instant as the device would show it: `YYYY-MM-DD HH:MM:SS` in that zone. */
export function formatLocalWallTime(at: Date, timeZone: string): string {
  return formatLocalDateTime(wallTimeAt(at.getTime(), timeZone));
}

export type WallTimeResolution = 'exact' | 'gap' | 'overlap';

export interface ResolvedWallTime {
  utc: Date;
  /** Offset used, so that `utc = wall time − offsetMinutes` always holds (in a gap: the pre-gap offset). */
  offsetMinutes: number;
  resolution: WallTimeResolution;
}

const DAY_MS = 86_400_000;

/** The punch flags a wall time's reading carries: `dst_gap` in a spring-forward gap, `dst_overlap` in a repeated hour. */
export function resolutionFlags(resolution: WallTimeResolution): string[] {
  return resolution === 'gap' ? ['dst_gap'] : resolution === 'overlap' ? ['dst_overlap'] : [];
}

/**
 * Convert a device wall time to an instant under the rule above. Null when the time is not a valid
 * `YYYY-MM-DD HH:MM:SS` or the zone is unknown (never throws on device input).
 */
export function localWallTimeToUtc(localTime: string, timeZone: string): ResolvedWallTime | null {
  const parts = parseLocalDateTime(localTime);
  if (!parts || !isUsableTimeZone(timeZone)) return null;
  const wall = wallTimeAsUtcMs(parts);
  // Offsets a day either side bracket any single transition near this wall time.
  const before = offsetMs(wall - DAY_MS, timeZone);
  const after = offsetMs(wall + DAY_MS, timeZone);
  const candidates = [...new Set([before, after])]
    .map((off) => ({ off, instant: wall - off }))
    .filter(({ off, instant }) => offsetMs(instant, timeZone) === off)
    .sort((a, b) => a.instant - b.instant);
  const chosen = candidates[0];
  const make = (off: number, resolution: WallTimeResolution): ResolvedWallTime => ({
    utc: new Date(wall - off),
    offsetMinutes: off / 60_000,
    resolution,
  });
  if (!chosen) return make(before, 'gap');
  return make(chosen.off, candidates.length > 1 ? 'overlap' : 'exact');
}
