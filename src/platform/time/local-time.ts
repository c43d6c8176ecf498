/**
 * Device record times are local wall-clock times with no offset (§7). They are validated and
 * normalised here; conversion to an instant lives in time-zone.ts.
 */

export interface LocalDateTimeParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

// `YYYY-MM-DD HH:MM:SS`, also with `T` or `/` (some firmware and peers); 1–2 digit month/day/hour.
const LOCAL_TIME = /^(\d{4})([-/])(\d{1,2})\2(\d{1,2})[ T](\d{1,2}):(\d{2}):(\d{2})$/;

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  const days = [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return days[month - 1] ?? 0;
}

export function isValidLocalDateTime(p: LocalDateTimeParts): boolean {
  const ints = [p.year, p.month, p.day, p.hour, p.minute, p.second].every(Number.isInteger);
  return (
    ints &&
    p.year >= 1 &&
    p.year <= 9999 &&
    p.month >= 1 &&
    p.month <= 12 &&
    p.day >= 1 &&
    p.day <= daysInMonth(p.year, p.month) &&
    p.hour >= 0 &&
    p.hour <= 23 &&
    p.minute >= 0 &&
    p.minute <= 59 &&
    p.second >= 0 &&
    p.second <= 59
  );
}

/** Parse a device time; null unless it is a real calendar date and time. */
export function parseLocalDateTime(text: string): LocalDateTimeParts | null {
  const m = LOCAL_TIME.exec(text.trim());
  if (!m) return null;
  const parts: LocalDateTimeParts = {
    year: Number(m[1]),
    month: Number(m[3]),
    day: Number(m[4]),
    hour: Number(m[5]),
    minute: Number(m[6]),
    second: Number(m[7]),
  };
  return isValidLocalDateTime(parts) ? parts : null;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Format as `YYYY-MM-DD HH:MM:SS`, the canonical form stored for every record. */
export function formatLocalDateTime(p: LocalDateTimeParts): string {
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}

/** Validate and normalise a device time to `YYYY-MM-DD HH:MM:SS`; null when invalid. */
export function normaliseLocalTime(text: string): string | null {
  const p = parseLocalDateTime(text);
  return p ? formatLocalDateTime(p) : null;
}

/** Milliseconds of the wall time read as if it were UTC (years below 100 handled correctly). */
export function wallTimeAsUtcMs(p: LocalDateTimeParts): number {
  const d = new Date(0);
  d.setUTCFullYear(p.year, p.month - 1, p.day);
  d.setUTCHours(p.hour, p.minute, p.second, 0);
  return d.getTime();
}
