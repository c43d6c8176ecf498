import { isValidLocalDateTime, type LocalDateTimeParts } from '../../platform/time/local-time';

/**
 * Security PUSH 3.x clock value (`SET OPTIONS DateTime=`, `rtdata?type=time`):
 * ((Y−2000)·12·31 + (M−1)·31 + (D−1))·86400 + (h·60+m)·60 + s — every month counted as 31 days.
 * Example: 583050990 ↔ 2018-02-22 06:36:30.
 */
export function encodePush3DateTime(p: LocalDateTimeParts): number {
  const days = (p.year - 2000) * 12 * 31 + (p.month - 1) * 31 + (p.day - 1);
  return days * 86400 + (p.hour * 60 + p.minute) * 60 + p.second;
}

/** Null for negative/non-integer values and for impossible dates such as 31 Feb. */
export function decodePush3DateTime(value: number): LocalDateTimeParts | null {
  if (!Number.isSafeInteger(value) || value < 0) return null;
  const secondsOfDay = value % 86400;
  let days = Math.floor(value / 86400);
  const day = (days % 31) + 1;
  days = Math.floor(days / 31);
  const month = (days % 12) + 1;
  const year = Math.floor(days / 12) + 2000;
  const parts: LocalDateTimeParts = {
    year,
    month,
    day,
    hour: Math.floor(secondsOfDay / 3600),
    minute: Math.floor((secondsOfDay % 3600) / 60),
    second: secondsOfDay % 60,
  };
  return isValidLocalDateTime(parts) ? parts : null;
}
