/**
 * The status of one local date of a terminal (`devices/{sn}/completeness/`), from what is known
 * of it, in this order:
 *
 * 1. a re-upload covering the date is planned or under way → `recovering`;
 * 2. a finished re-upload re-sent more records of the date than are stored → `gap`;
 * 3. the date may hold records a gap lost (the one open now, or the one open when the terminal's
 *    log was cleared, for dates up to the clear), and the terminal was known by then → `gap`
 *    when it is the only date they may bear, `possible_gap` when it is one of several (which one
 *    the counts cannot say);
 * 4. a finished re-upload covered the whole date and everything it re-sent is stored →
 *    `complete`;
 * 5. the terminal's count agreed on or after that date (and the terminal was known by then) →
 *    `complete` by the count;
 * 6. otherwise `unknown`.
 *
 * Where a gap's records may lie (placed): on a date from its agreement's date (any date, when the
 * count never agreed: a terminal installed with a history holds records older than the service
 * knows it) to today (or to the clear that took them), but not on a date a re-upload finished
 * during the gap proved: it re-sent every record of that part of the window, and all are stored.
 * When re-uploads proved every date of the window, the missing records bear a time no re-upload
 * asked for (a clock set wrong): they may be on any date of the window again.
 */
import { addDays } from '../../platform/time/dates';
import type { COMPLETENESS_STATUSES } from './model';

export type DayStatus = (typeof COMPLETENESS_STATUSES)[number];

/** Local dates from..to, both included; `from` null: every date up to `to`. */
export interface DateSpan {
  from: string | null;
  to: string;
}

/** Where the records a gap lost may lie, in the terminal's local dates. */
export interface GapWindow {
  /** The first date they may bear: the agreement's before the gap; null: any (the count never agreed). */
  from: string | null;
  /** The last: today, or the date of the clear that took them with the log. */
  to: string;
  /** Dates re-uploads finished during the gap proved, each a span with both ends. */
  proven: readonly { from: string; to: string }[];
}

/** What the terminal's counts say, in its local dates. */
export interface CountsByDate {
  /** The first date the terminal was known (approved, else registered). */
  since: string;
  today: string;
  /** The date of the last agreement of its count with the punches stored; null: never. */
  agreed: string | null;
  /** The gap open now (its count ran ahead of the stored punches and stays so); null: none. */
  gap: GapWindow | null;
  /** Its log was cleared on that date: the agreement in force then, and the gap open then (its loss). */
  cleared: { date: string; agreed: string | null; gap: GapWindow | null } | null;
}

/** What is known of one date. */
export interface DayFacts {
  date: string;
  /** Punches stored from the terminal on that date. */
  stored: number;
  /** A re-upload covering the date is planned or under way. */
  recovering: boolean;
  /**
   * The distinct records of that date the last finished re-upload covering it re-sent, and whether
   * it covered the whole date (from its start; on its last date, up to when it finished); null:
   * none covered it.
   */
  reupload: { count: number; whole: boolean } | null;
}

/**
 * The status of a date, and which agreement a `complete` by the count (rule 5) rests on: the
 * last one, or the one in force when the log was cleared.
 */
export function dayStatus(day: DayFacts, counts: CountsByDate): { status: DayStatus; byCount: 'agreed' | 'agreed_before_clear' | null } {
  if (day.recovering) return { status: 'recovering', byCount: null };
  if (day.reupload !== null && day.stored < day.reupload.count) return { status: 'gap', byCount: null };
  const { date } = day;
  const { cleared } = counts;
  const beforeClear = cleared !== null && date <= cleared.date;
  // Either gap: the one open when the log was cleared (for dates up to the clear) or the one open
  // now; on the date of the clear both may apply, and a date that is surely a gap's wins.
  const placedHere = date < counts.since ? null : strongest(beforeClear ? placed(cleared.gap, date) : null, placed(counts.gap, date));
  if (placedHere) return { status: placedHere, byCount: null };
  if (day.reupload?.whole) return { status: 'complete', byCount: null };
  const agreed = beforeClear ? cleared.agreed : counts.agreed;
  if (agreed !== null && date <= agreed && date >= counts.since) return { status: 'complete', byCount: beforeClear ? 'agreed_before_clear' : 'agreed' };
  return { status: 'unknown', byCount: null };
}

type Placed = 'gap' | 'possible_gap' | null;

function strongest(a: Placed, b: Placed): Placed {
  return a === 'gap' || b === 'gap' ? 'gap' : (a ?? b);
}

/** Whether a gap's records may lie on a date: `gap` when it is the only date they may bear. */
function placed(gap: GapWindow | null, date: string): Placed {
  if (!gap || !within({ from: gap.from, to: gap.to }, date)) return null;
  const open = unproven(gap);
  // Every date of the window proved: the records bear a time no re-upload asked for (a clock set wrong).
  const spans = open.length > 0 ? open : [{ from: gap.from, to: gap.to }];
  if (!spans.some((s) => within(s, date))) return null;
  return spans.length === 1 && spans[0]!.from === spans[0]!.to ? 'gap' : 'possible_gap';
}

/** The dates of a gap's window no re-upload proved. */
function unproven(gap: GapWindow): DateSpan[] {
  let open: DateSpan[] = [{ from: gap.from, to: gap.to }];
  for (const p of gap.proven) open = open.flatMap((s) => without(s, p));
  return open;
}

function within(s: DateSpan, date: string): boolean {
  return (s.from === null || date >= s.from) && date <= s.to;
}

/** A span less the dates of another (nothing, one part or two). */
function without(s: DateSpan, p: { from: string; to: string }): DateSpan[] {
  if (p.from > s.to || (s.from !== null && p.to < s.from)) return [s];
  const out: DateSpan[] = [];
  if (s.from === null || s.from < p.from) out.push({ from: s.from, to: addDays(p.from, -1) });
  if (p.to < s.to) out.push({ from: addDays(p.to, 1), to: s.to });
  return out;
}
