/** A line that could not be used. `line` is the 1-based physical line number in the body. */
export interface LineError {
  line: number;
  raw: string;
  reason: string;
}

/** What every line parser returns: the good records and one error per rejected line. */
export interface ParseResult<T> {
  records: T[];
  errors: LineError[];
}

/**
 * Outcome of parsing one line; a rejected line carries the reason instead of throwing, and `raw`
 * when what may be kept of it is not the line as sent (an attendance line without its health
 * data, health.ts): its LineError quotes that.
 */
export type LineOutcome<T> = { ok: true; record: T } | { ok: false; reason: string; raw?: string };

export function accept<T>(record: T): LineOutcome<T> {
  return { ok: true, record };
}

export function reject<T>(reason: string): LineOutcome<T> {
  return { ok: false, reason };
}

/** The outcome, a rejection quoting `raw` for its line instead of the line as sent (see LineOutcome). */
export function keeping<T>(outcome: LineOutcome<T>, raw: string): LineOutcome<T> {
  return outcome.ok ? outcome : { ...outcome, raw };
}
