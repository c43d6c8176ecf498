import { splitNumberedRecords } from './text';
import type { LineError, LineOutcome, ParseResult } from './types';

/** Run a line parser over a body: each non-blank line becomes exactly one record or one error (quoting what the parser kept of it). */
export function parseLines<T>(text: string, parseLine: (raw: string) => LineOutcome<T>): ParseResult<T> {
  const records: T[] = [];
  const errors: LineError[] = [];
  for (const { line, text: raw } of splitNumberedRecords(text)) {
    const outcome = parseLine(raw);
    if (outcome.ok) records.push(outcome.record);
    else errors.push({ line, raw: outcome.raw ?? raw, reason: outcome.reason });
  }
  return { records, errors };
}
