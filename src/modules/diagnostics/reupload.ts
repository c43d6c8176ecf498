/**
 * The words of punches_not_resent: a terminal that refuses to send its punches again
 * (`reupload_logs`, `DATA QUERY ATTLOG`: a firmware without the query answers −1002) or never
 * answers it. What carries the punches then is the terminal's USB file, imported; a re-upload
 * asked for a gap of the counts is said while that gap is open, one asked after an outage or by
 * hand as a failed command is (until a re-upload succeeds there, or a day without a new failure).
 */

import { counted } from '../../platform/words';
import type { FailedKind, FailingCommands } from '../commands';
import type { OpenGap } from '../completeness';
import { answerOf } from './failing';

/** The command kind of a re-upload of punches. */
export const REUPLOAD = 'reupload_logs';

/** A terminal's failed commands apart from its re-uploads, and its re-uploads' (null: none of that part). */
export function splitReuploads(f: FailingCommands): { others: FailingCommands | null; reupload: FailedKind | null } {
  const reupload = f.kinds.find((k) => k.kind === REUPLOAD) ?? null;
  const kinds = f.kinds.filter((k) => k.kind !== REUPLOAD);
  if (kinds.length === 0) return { others: null, reupload };
  if (!reupload) return { others: f, reupload };
  const total = (of: (k: FailedKind) => number) => kinds.reduce((n, k) => n + of(k), 0);
  const others = { ...f, kinds, count: total((k) => k.count), retrying: total((k) => k.retrying), since: Math.min(...kinds.map((k) => k.since)) };
  return { others, reupload };
}

/** Its answer, as a sentence says it. */
function answered(k: FailedKind): string {
  if (k.returnCode === null) return `it did not answer, even after its retries (${answerOf(k)})`;
  if (k.returnCode === -1002) return `it answered ${answerOf(k)}, so its firmware cannot send punches again`;
  return `it answered ${answerOf(k)}`;
}

/** What is wrong and what to do: a gap's punches it does not re-send (gap), or a range asked after an outage or by hand. */
export function reuploadWords(sn: string, k: FailedKind, gap: OpenGap | null, since: string): { message: string; fix: string } {
  const asked = `asked ${k.count === 1 ? 'once' : `${k.count} times`} since ${since}`;
  const usb = `Save its punches to a USB stick at the terminal (its USB menu, "Download", attendance records: a file named like 1_attlog.dat) and import the file on its page (Terminals → ${sn} → Punches from a USB stick; POST devices/${sn}/punches/import/): punches already stored are skipped.`;
  if (gap) {
    return {
      message: `Terminal ${sn} holds ${counted(gap.missing, 'punch', 'punches')} that ${gap.missing === 1 ? 'is' : 'are'} not stored here and does not send ${gap.missing === 1 ? 'it' : 'them'} again: ${asked}, ${answered(k)}. Attendance misses ${gap.missing === 1 ? 'it' : 'them'} until ${gap.missing === 1 ? 'it is' : 'they are'} brought in.`,
      fix: `${usb} The counts then agree at the next completeness check (within a minute), which closes the gap and clears this. Until then it is asked again every hour; a firmware that can send punches again (DATA QUERY ATTLOG) closes it by itself. Its dates are on its page under "Punch completeness".`,
    };
  }
  return {
    message: `Terminal ${sn} does not send its punches again: ${asked} (after it or the server was away, or by hand), ${answered(k)}. Punches of the range asked may not all be stored here.`,
    fix: `${usb} This clears when a re-upload succeeds there, or after a day without a new failure.`,
  };
}
