import { dayBounds, localDateOf } from './dates';

/** An instant's local date, with the bounds (`start` inclusive, `end` exclusive) of a date. */
export type LocalDates = ((instant: number) => string) & { bounds: (date: string) => { start: number; end: number } };

/**
 * The local date of instants in a zone, remembering the bounds of the dates it has seen: a
 * batch spans few dates, and the comparison costs far less than the zone arithmetic.
 */
export function localDates(timeZone: string): LocalDates {
  const known = new Map<string, { start: number; end: number }>();
  let last: { date: string; start: number; end: number } | null = null;
  const bounds = (date: string) => {
    let b = known.get(date);
    if (!b) {
      b = dayBounds(date, timeZone);
      known.set(date, b);
    }
    return b;
  };
  const dateOf = (instant: number) => {
    if (last && instant >= last.start && instant < last.end) return last.date;
    const date = localDateOf(instant, timeZone);
    last = { date, ...bounds(date) };
    return date;
  };
  return Object.assign(dateOf, { bounds });
}
