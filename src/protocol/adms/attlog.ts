import { normaliseLocalTime } from '../../platform/time/local-time';
import { dropTrailingEmpty, intWithDefault } from './fields';
import { parseLines } from './lines';
import { pinProblem } from './pin';
import { accept, type LineOutcome, type ParseResult, reject } from './types';

/**
 * One punch. Positional ATTLOG line (§4.1):
 * `PIN \t time \t state \t verify \t workcode \t reserved1 \t reserved2 [\t mask \t temperature …]`.
 */
export interface AttlogRecord {
  pin: string;
  /** Device local wall time, normalised to `YYYY-MM-DD HH:MM:SS`; no offset is known yet. */
  localTime: string;
  /** Punch state as sent (0 in, 1 out, …); state keys are configurable, so keep the number. */
  state: number;
  /** How the user verified; meanings of 0/2/3 are disputed (§4.1), so keep the number. */
  verifyType: number;
  workCode: string;
  /** Fields 6.. kept raw (reserved, mask/temperature, MB10 sequence counter); empties from a trailing TAB dropped. */
  extra: string[];
  raw: string;
}

/**
 * Parse one ATTLOG line. At least PIN and time are required; the documented layout has 7+ fields,
 * but missing trailing fields default (state/verify 0, workcode '') rather than losing a punch.
 */
export function parseAttlogLine(raw: string): LineOutcome<AttlogRecord> {
  const fields = raw.split('\t');
  if (fields.length < 2) return reject('expected TAB-separated fields: PIN, time, state, verify, …');
  const pin = (fields[0] ?? '').trim();
  const pinError = pinProblem(pin);
  if (pinError) return reject(pinError);
  const localTime = normaliseLocalTime(fields[1] ?? '');
  if (localTime === null) return reject(`invalid time ${JSON.stringify(fields[1] ?? '')}`);
  const state = intWithDefault(fields[2], 0);
  if (!state.ok) return reject(`non-numeric state ${JSON.stringify(fields[2] ?? '')}`);
  const verify = intWithDefault(fields[3], 0);
  if (!verify.ok) return reject(`non-numeric verify type ${JSON.stringify(fields[3] ?? '')}`);
  return accept({
    pin,
    localTime,
    state: state.value,
    verifyType: verify.value,
    workCode: (fields[4] ?? '').trim(),
    extra: dropTrailingEmpty(fields.slice(5)),
    raw,
  });
}

/** Parse a `table=ATTLOG` body. A bad line is reported and skipped; it never costs its neighbours. */
export function parseAttlog(text: string): ParseResult<AttlogRecord> {
  return parseLines(text, parseAttlogLine);
}

/** Serialise a record the way a device sends it (used by simulators and round-trip tests). */
export function formatAttlogLine(r: Pick<AttlogRecord, 'pin' | 'localTime' | 'state' | 'verifyType' | 'workCode' | 'extra'>): string {
  return [r.pin, r.localTime, String(r.state), String(r.verifyType), r.workCode, ...r.extra].join('\t');
}
