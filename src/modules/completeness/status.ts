/**
 * The status of one local date of a terminal (`devices/{sn}/completeness/`), from what is known
 * of it, in this order:
 *
 * 1. a re-upload covering the date is planned or under way → `recovering`;
 * 2. a finished re-upload re-sent more records of the date than are stored → `gap`;
 * 3. the counts disagree (a gap open) and the date lies on or after the last agreement; or a gap
 *    was open when the terminal's log was cleared, and the date lies between the agreement in
 *    force then and the clear → `gap`;
 * 4. a finished re-upload covered the date and everything it re-sent is stored → `complete`;
 * 5. the terminal's count agreed on or after that date (and the terminal was known by then) →
 *    `complete` by the count;
 * 6. otherwise `unknown`.
 *
 * A re-upload's count for a date says only that what it re-sent is stored: while the counts
 * still disagree (it brought fewer than were missing), the terminal holds more than it re-sent,
 * so 3 comes before 4. A cleared log (the terminal's count fell) vouches for nothing before the
 * clear: dates up to it are read by the agreement and the gap of before the clear, whether a
 * re-upload covered them or not (those punches left with the log), and in any order: a re-upload
 * finished before or after the clear, a gap opened before or after it.
 */
import type { COMPLETENESS_STATUSES } from './model';

export type DayStatus = (typeof COMPLETENESS_STATUSES)[number];

/** What the terminal's counts say, in its local dates. */
export interface CountsByDate {
  /** The first date the terminal was known (approved, else registered). */
  since: string;
  today: string;
  /** The date of the last agreement of its count with the punches stored; null: never. */
  agreed: string | null;
  /** A gap is open: its count ran ahead of the stored punches and stays so. */
  gapOpen: boolean;
  /** Its log was cleared on that date: the agreement in force then, and whether a gap was open then. */
  cleared: { date: string; agreed: string | null; gapOpen: boolean } | null;
}

/** What is known of one date. */
export interface DayFacts {
  date: string;
  /** Punches stored from the terminal on that date. */
  stored: number;
  /** A re-upload covering the date is planned or under way. */
  recovering: boolean;
  /** The distinct records of that date the last finished re-upload covering it re-sent; null: none covered it. */
  reuploaded: number | null;
}

/**
 * The status of a date, and which agreement a `complete` by the count (rule 5) rests on: the
 * last one, or the one in force when the log was cleared.
 */
export function dayStatus(day: DayFacts, counts: CountsByDate): { status: DayStatus; byCount: 'agreed' | 'agreed_before_clear' | null } {
  if (day.recovering) return { status: 'recovering', byCount: null };
  if (day.reuploaded !== null && day.stored < day.reuploaded) return { status: 'gap', byCount: null };
  const { date } = day;
  const { cleared } = counts;
  const beforeClear = cleared !== null && date <= cleared.date;
  // Either gap: the one open when the log was cleared (for dates up to the clear) or the one open
  // now; on the date of the clear both may apply.
  if (beforeClear && cleared.gapOpen && after(date, cleared.agreed)) return { status: 'gap', byCount: null };
  if (counts.gapOpen && after(date, counts.agreed) && date <= counts.today) return { status: 'gap', byCount: null };
  if (day.reuploaded !== null) return { status: 'complete', byCount: null };
  const agreed = beforeClear ? cleared.agreed : counts.agreed;
  if (agreed !== null && date <= agreed && date >= counts.since) return { status: 'complete', byCount: beforeClear ? 'agreed_before_clear' : 'agreed' };
  return { status: 'unknown', byCount: null };
}

/** A date on or after an agreement's date (or there was none): a gap since it may lie on it. */
function after(date: string, agreed: string | null): boolean {
  return agreed === null || date >= agreed;
}
