import { normaliseLocalTime } from '../../platform/time/local-time';
import { dropTrailingEmpty, intWithDefault } from './fields';
import { blankHealthFields } from './health';
import { parseLines } from './lines';
import { pinProblem } from './pin';
import { accept, keeping, type LineOutcome, type ParseResult, reject } from './types';

/**
 * One punch. Positional ATTLOG line (§4.1):
 * `PIN \t time \t state \t verify \t workcode \t reserved1 \t reserved2 [\t mask \t temperature …]`.
 * The mask flag and temperatures are health data: `extra` and `raw` have them blanked (health.ts).
 */
export interface AttlogRecord {
  pin: string;
  /** Device local wall time, normalised to `YYYY-MM-DD HH:MM:SS`; no offset is known yet. */
  localTime: string;
  /**
   * Punch state as sent (0 in, 1 out, …); state keys are configurable, so keep the number. Old
   * firmware sends a letter: `I`/`i` is 0, `O`/`o` 1 (`raw` keeps the letter, stateOf).
   */
  state: number;
  /** The terminal sent a state that says nothing readable (another letter, `IN`, `?`): `state` is 0, `raw` keeps it. */
  stateUnknown?: true;
  /** How the user verified; meanings of 0/2/3 are disputed (§4.1), so keep the number. */
  verifyType: number;
  /** The terminal sent a verify mode that is no number (`FP`, `face`): `verifyType` is 0, `raw` keeps it. */
  verifyUnknown?: true;
  workCode: string;
  /** Fields 6.. kept raw (reserved, MB10 sequence counter; mask and temperature blanked, health.ts); empties from a trailing TAB dropped. */
  extra: string[];
  raw: string;
}

/**
 * Where a layout of attendance line keeps its state, verify type and workcode, after the PIN and
 * the time (what follows the workcode is kept raw), and how a line missing its time is described.
 */
export interface AttlogLayout {
  state: number;
  verify: number;
  workCode: number;
  fields: string;
}

/** The ADMS upload's layout (§4.1). */
const ADMS_LAYOUT: AttlogLayout = { state: 2, verify: 3, workCode: 4, fields: 'PIN, time, state, verify, …' };

/** A field quoted in a reason: never more than 40 characters of what was sent. */
const quoted = (field: string | undefined) => JSON.stringify((field ?? '').slice(0, 40));

/** The letters old firmware sends for a state ([IPY] writes state 0 as `I`, 1 as `O`; ADMS.md §4.1). */
const LETTER_STATES: Readonly<Record<string, number>> = { I: 0, i: 0, O: 1, o: 1 };

/**
 * What a state field can be without being one: a few printable characters, never a `key=value`
 * pair (a record sent where it does not belong) nor anything long enough to carry a template,
 * which a punch's stored line must not keep.
 */
const UNREADABLE_STATE = /^[^\s=\p{Cc}]{1,8}$/u;

/**
 * A line's verify mode: a number as sent (none is 0), or a word some firmware sends (`FP`,
 * `face`), kept as 0 with `unknown` (the punch counts; its line keeps the word). Null for a
 * field that is no verify mode at all (a `key=value` pair, a long run): the line is skipped.
 */
function verifyOf(field: string | undefined): { value: number; unknown?: true } | null {
  const number = intWithDefault(field, 0);
  if (number.ok) return { value: number.value };
  return UNREADABLE_STATE.test((field ?? '').trim()) ? { value: 0, unknown: true } : null;
}

/**
 * A line's state: a number as sent (none is 0), a letter of old firmware, or a state the service
 * cannot read, whose punch is kept all the same with state 0 and `stateUnknown` (attendance reads
 * no state: the punch counts; losing it for its state would lose a day). Null for a field that is
 * no state at all: the line is something else, and is skipped.
 */
function stateOf(field: string | undefined): { value: number; unknown?: true } | null {
  const number = intWithDefault(field, 0);
  if (number.ok) return { value: number.value };
  const text = (field ?? '').trim();
  const letter = LETTER_STATES[text];
  if (letter !== undefined) return { value: letter };
  return UNREADABLE_STATE.test(text) ? { value: 0, unknown: true } : null;
}

/**
 * One attendance line read with a layout. At least PIN and time are required; missing trailing
 * fields default (state/verify 0, workcode '') rather than losing a punch. Accepted or refused,
 * what is kept of the line (`raw`, the LineError's excerpt) has no health data.
 */
export function attlogRecordOf(line: string, layout: AttlogLayout): LineOutcome<AttlogRecord> {
  const sent = line.split('\t');
  const fields = blankHealthFields(sent, layout.workCode);
  // What is kept of the line: as sent, but for its health data (health.ts).
  const raw = fields === sent ? line : fields.join('\t');
  return keeping(recordOf(fields, raw, layout), raw);
}

/** The record of a line's fields (health data already blanked), or why there is none. */
function recordOf(fields: readonly string[], raw: string, layout: AttlogLayout): LineOutcome<AttlogRecord> {
  if (fields.length < 2) return reject(`expected TAB-separated fields: ${layout.fields}`);
  const pin = (fields[0] ?? '').trim();
  const pinError = pinProblem(pin);
  if (pinError) return reject(pinError);
  const localTime = normaliseLocalTime(fields[1] ?? '');
  if (localTime === null) return reject(`invalid time ${quoted(fields[1])}`);
  const read = stateAndVerify(['state', fields[layout.state]], ['verify type', fields[layout.verify]]);
  if (!read.ok) return reject(read.reason);
  return accept({
    pin,
    localTime,
    ...read.record,
    workCode: (fields[layout.workCode] ?? '').trim(),
    extra: dropTrailingEmpty(fields.slice(layout.workCode + 1)),
    raw,
  });
}

type StateAndVerify = Pick<AttlogRecord, 'state' | 'stateUnknown' | 'verifyType' | 'verifyUnknown'>;

/**
 * A record's state and verify mode, each `[its field's name, its value]`: an ATTLOG line's, and
 * a 3.x record's (push3.ts) by the same rules. A word some firmware sends keeps the punch,
 * flagged; a field that is no state or mode at all (a `key=value` pair, a long run) makes the
 * line malformed, the reason naming the field.
 */
export function stateAndVerify(
  [stateName, stateField]: [string, string | undefined],
  [verifyName, verifyField]: [string, string | undefined],
): { ok: true; record: StateAndVerify } | { ok: false; reason: string } {
  const state = stateOf(stateField);
  if (!state) return { ok: false, reason: `unreadable ${stateName} ${quoted(stateField)}` };
  const verify = verifyOf(verifyField);
  if (!verify) return { ok: false, reason: `unreadable ${verifyName} ${quoted(verifyField)}` };
  return {
    ok: true,
    record: {
      state: state.value,
      ...(state.unknown ? { stateUnknown: true } : {}),
      verifyType: verify.value,
      ...(verify.unknown ? { verifyUnknown: true } : {}),
    },
  };
}

/** Parse one ATTLOG line (the documented layout has 7+ fields; see attlogRecordOf). */
export function parseAttlogLine(raw: string): LineOutcome<AttlogRecord> {
  return attlogRecordOf(raw, ADMS_LAYOUT);
}

/** Parse a `table=ATTLOG` body. A bad line is reported and skipped; it never costs its neighbours. */
export function parseAttlog(text: string): ParseResult<AttlogRecord> {
  return parseLines(text, parseAttlogLine);
}

/** Serialise a record the way a device sends it (used by simulators and round-trip tests). */
export function formatAttlogLine(r: Pick<AttlogRecord, 'pin' | 'localTime' | 'state' | 'verifyType' | 'workCode' | 'extra'>): string {
  return [r.pin, r.localTime, String(r.state), String(r.verifyType), r.workCode, ...r.extra].join('\t');
}
