/**
 * What finished re-uploads prove, in the terminal's local dates: the dates of a gap's window they
 * re-sent every record of (status.ts `GapWindow`), and, per date, whether the count one re-sent
 * is the whole date's. A re-upload re-sends every record of its range (the terminal's wall
 * time): its first date is covered from the range's start, its last up to the range's end, which
 * is the whole of it when the range ends after the re-upload finished (later records were made
 * after it, and are the counts' to check).
 */
import { addDays } from '../../platform/time/dates';
import type { GapWindow } from './status';
import type { PunchCountRow, RecoveryRow } from './tables';

/** An instant as the terminal's wall time (`YYYY-MM-DD HH:MM:SS`). */
export type WallTime = (at: number) => string;

const startOf = (date: string) => `${date} 00:00:00`;
const endOf = (date: string) => `${date} 23:59:59`;

/** The part of a date a re-upload's range covers, in the terminal's wall time. */
export function spanOn(r: RecoveryRow, date: string): { from: string; to: string } {
  // Wall times as text sort as they run.
  return { from: [r.fromTime, startOf(date)].sort()[1]!, to: [r.toTime, endOf(date)].sort()[0]! };
}

/** Whether a finished re-upload's count for a date is the whole date's. */
export function coversWholeDate(r: RecoveryRow, date: string, wall: WallTime): boolean {
  return r.fromTime <= startOf(date) && coversToEnd(r, date, wall);
}

function coversToEnd(r: RecoveryRow, date: string, wall: WallTime): boolean {
  return r.toTime >= endOf(date) || (r.finishedAt !== null && r.toTime >= wall(r.finishedAt));
}

/**
 * The dates of a gap's window a re-upload proved: those it covered whole, its first date also
 * when its range began before the window did (the agreement vouches for the records before).
 */
function provenBy(r: RecoveryRow, windowStart: string | null, wall: WallTime): { from: string; to: string }[] {
  const first = r.fromTime.slice(0, 10);
  const last = r.toTime.slice(0, 10);
  const from = r.fromTime <= startOf(first) || (windowStart !== null && r.fromTime <= windowStart) ? first : addDays(first, 1);
  const to = coversToEnd(r, last, wall) ? last : addDays(last, -1);
  return from <= to ? [{ from, to }] : [];
}

/**
 * Where the records of a gap may lie: from the date of the agreement before it (any date: none)
 * to `to`, less what the re-upload finished after that agreement (and, for a gap a clear took,
 * before the clear: one after it re-sends nothing of before) proved.
 */
function gapWindow(agreedAt: number | null, to: string, done: readonly RecoveryRow[], wall: WallTime, until: number | null): GapWindow {
  const windowStart = agreedAt === null ? null : wall(agreedAt);
  const proven = done
    .filter((r) => r.finishedAt !== null && (agreedAt === null || r.finishedAt > agreedAt) && (until === null || r.finishedAt <= until))
    .flatMap((r) => provenBy(r, windowStart, wall));
  return { from: windowStart?.slice(0, 10) ?? null, to, proven };
}

/** The gap open now and the one a clear of the log took, as windows of dates. */
export function gapWindows(
  state: PunchCountRow | null,
  done: readonly RecoveryRow[],
  wall: WallTime,
  today: string,
): { gap: GapWindow | null; atClear: GapWindow | null } {
  const gap = state?.gapSince != null ? gapWindow(state.agreedAt, today, done, wall, null) : null;
  const cleared = state?.clearedAt ?? null;
  const atClear =
    cleared !== null && state?.missingAtClear != null ? gapWindow(state.agreedBeforeClearAt, wall(cleared).slice(0, 10), done, wall, cleared) : null;
  return { gap, atClear };
}

/** When the finished re-uploads that are evidence for the windows of gapWindows finished: after one instant (null: any), up to another (null: now). */
export type EvidenceSpan = { after: number | null; until: number | null };

/** The spans of gapWindows' evidence (none: no window). */
export function evidenceSpans(state: PunchCountRow | null): EvidenceSpan[] {
  return [
    ...(state?.gapSince != null ? [{ after: state.agreedAt, until: null }] : []),
    ...(state?.clearedAt != null && state.missingAtClear != null ? [{ after: state.agreedBeforeClearAt, until: state.clearedAt }] : []),
  ];
}
