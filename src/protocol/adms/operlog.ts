import { normaliseLocalTime } from '../../platform/time/local-time';
import { base64DecodedLength, isValidBase64 } from './base64';
import { type BiodataRecord, biodataFromFields } from './biodata';
import { decodeCardNumber } from './card';
import { type Dict, dropTrailingEmpty, intWithDefault, type KeyValueFields, parseIntStrict, parseTabFields, quoteKeyword, splitKeyword } from './fields';
import { parseLines } from './lines';
import { pinProblem } from './pin';
import { accept, type LineOutcome, type ParseResult, reject } from './types';

/** `OPLOG <OpType>\t<Operator>\t<OpTime>\t<Obj1>…` — positional after the keyword (§4.2). */
export interface OplogRecord {
  kind: 'OPLOG';
  opType: number;
  /** Admin PIN, `0` when none. */
  operator: string;
  localTime: string;
  /** Obj1..Obj4 as text: the V5L sends `DHCP` in Obj1, so they are not always numbers. */
  objects: string[];
  raw: string;
}

/** `USER PIN=\tName=\tPri=\tPasswd=\tCard=\tGrp=\tTZ=\tVerify=\tViceCard=` (extra keys tolerated). */
export interface UserRecord {
  kind: 'USER';
  pin: string;
  name: string;
  /** 0 user, 2 enroller, 6 admin, 10 custom role, 14 super admin; empty means 0. */
  privilege: number;
  /** Sent in clear text by the device. */
  password: string;
  /** Card as sent: decimal or `[xxxxxxxx]` little-endian hex. */
  card: string;
  /** Card as a decimal string, '' when none or unrecognised. */
  cardNumber: string;
  group: string;
  /** Every key as the device spelled it, including ones not mapped above (TZ, Verify, StartDatetime…). */
  fields: Dict;
  raw: string;
}

/** `FP PIN=\tFID=\tSize=\tValid=\tTMP=` — fingerprint template for algorithm ≤ 10. */
export interface FingerprintRecord {
  kind: 'FP';
  pin: string;
  fingerIndex: number;
  /** Declared Size: the base64 length, not the decoded length. Null when absent or garbled. */
  size: number | null;
  valid: number;
  template: string;
  /** Whether Size equals the base64 length; a mismatch is logged, not rejected (§4.2). */
  sizeMatches: boolean;
  templateBytes: number;
  raw: string;
}

export type GenericOperlogKind = 'FACE' | 'FVEIN' | 'USERPIC' | 'BIOPHOTO' | 'IDCARD' | 'OTHER';

/** Kinds kept as plain key/value maps: rarer, less settled layouts, or an unknown keyword. */
export interface GenericOperlogRecord {
  kind: GenericOperlogKind;
  /** The keyword as sent (for OTHER this tells what it was, e.g. `ERRORLOG`). */
  keyword: string;
  pin?: string;
  fields: Dict;
  /** For records with Size and a payload (TMP/Content): Size equals the base64 length. */
  sizeMatches?: boolean;
  raw: string;
}

export type OperlogRecord = OplogRecord | UserRecord | FingerprintRecord | BiodataRecord | GenericOperlogRecord;

function parseOplog(rest: string, raw: string): LineOutcome<OplogRecord> {
  const parts = rest.split('\t');
  const opType = parseIntStrict(parts[0]);
  if (opType === null) return reject(`non-numeric OPLOG operation code ${JSON.stringify(parts[0] ?? '')}`);
  const localTime = normaliseLocalTime(parts[2] ?? '');
  if (localTime === null) return reject(`invalid OPLOG time ${JSON.stringify(parts[2] ?? '')}`);
  return accept({
    kind: 'OPLOG',
    opType,
    operator: (parts[1] ?? '').trim(),
    localTime,
    objects: dropTrailingEmpty(parts.slice(3)),
    raw,
  });
}

function requirePin(f: KeyValueFields): { ok: true; pin: string } | { ok: false; reason: string } {
  const pin = (f.get('PIN') ?? '').trim();
  const problem = pinProblem(pin);
  return problem ? { ok: false, reason: problem } : { ok: true, pin };
}

function parseUser(f: KeyValueFields, raw: string): LineOutcome<UserRecord> {
  const pin = requirePin(f);
  if (!pin.ok) return reject(pin.reason);
  const privilege = intWithDefault(f.get('Pri', 'Privilege'), 0);
  if (!privilege.ok) return reject(`non-numeric privilege ${JSON.stringify(f.get('Pri', 'Privilege') ?? '')}`);
  const card = f.get('Card', 'CardNo') ?? '';
  return accept({
    kind: 'USER',
    pin: pin.pin,
    name: f.get('Name') ?? '',
    privilege: privilege.value,
    password: f.get('Passwd', 'Password') ?? '',
    card,
    cardNumber: decodeCardNumber(card),
    group: (f.get('Grp', 'Group') ?? '').trim(),
    fields: f.fields,
    raw,
  });
}

function parseFingerprint(f: KeyValueFields, raw: string): LineOutcome<FingerprintRecord> {
  const pin = requirePin(f);
  if (!pin.ok) return reject(pin.reason);
  const fingerIndex = parseIntStrict(f.get('FID'));
  if (fingerIndex === null) return reject(`missing or non-numeric FID ${JSON.stringify(f.get('FID') ?? '')}`);
  const valid = intWithDefault(f.get('Valid'), 1);
  if (!valid.ok) return reject(`non-numeric Valid ${JSON.stringify(f.get('Valid') ?? '')}`);
  const template = (f.get('TMP') ?? '').trim();
  if (template === '') return reject('missing template (TMP)');
  if (!isValidBase64(template)) return reject('template (TMP) is not valid base64');
  const size = parseIntStrict(f.get('Size'));
  return accept({
    kind: 'FP',
    pin: pin.pin,
    fingerIndex,
    size,
    valid: valid.value,
    template,
    sizeMatches: size === template.length,
    templateBytes: base64DecodedLength(template),
    raw,
  });
}

/** Which key carries the base64 payload for each generic kind. */
const PAYLOAD_KEY: Partial<Record<GenericOperlogKind, string>> = {
  FACE: 'TMP',
  FVEIN: 'Tmp',
  USERPIC: 'Content',
  BIOPHOTO: 'Content',
};

const GENERIC_KINDS: readonly GenericOperlogKind[] = ['FACE', 'FVEIN', 'USERPIC', 'BIOPHOTO', 'IDCARD'];

function parseGeneric(kind: GenericOperlogKind, keyword: string, f: KeyValueFields, raw: string): LineOutcome<GenericOperlogRecord> {
  const record: GenericOperlogRecord = { kind, keyword, fields: f.fields, raw };
  const pin = f.get('PIN');
  if (pin !== undefined) record.pin = pin.trim();
  const payloadKey = PAYLOAD_KEY[kind];
  const payload = payloadKey ? f.get(payloadKey)?.trim() : undefined;
  if (payload) {
    if (!isValidBase64(payload)) return reject(`${payloadKey ?? 'payload'} is not valid base64`);
    const size = parseIntStrict(f.get('Size'));
    if (size !== null) record.sizeMatches = size === payload.length;
  }
  return accept(record);
}

/** Parse one OPERLOG line; the keyword decides the record kind, unknown keywords become OTHER. */
export function parseOperlogLine(raw: string): LineOutcome<OperlogRecord> {
  const { keyword, rest } = splitKeyword(raw);
  const upper = keyword.toUpperCase();
  if (upper === 'OPLOG') return parseOplog(rest, raw);
  const f = parseTabFields(rest);
  switch (upper) {
    case 'USER':
      return parseUser(f, raw);
    case 'FP':
      return parseFingerprint(f, raw);
    case 'BIODATA':
      return biodataFromFields(f, raw);
  }
  const kind = GENERIC_KINDS.find((k) => k === upper) ?? 'OTHER';
  return parseGeneric(kind, keyword, f, raw);
}

/** Parse lines of the OPERLOG shape, a line of any keyword a record (`OTHER` when unknown): ERRORLOG lines are such. */
export function parseOperlog(text: string): ParseResult<OperlogRecord> {
  return parseLines(text, parseOperlogLine);
}

/**
 * One line of a `table=OPERLOG` upload (also `BIOPHOTO` and `IDCARD`, the same line shape): a
 * line of none of the kinds these tables hold (`garbage`, `FOO bar=1`) cannot be read, and is
 * an error (logged and not counted in `OK:<n>`) rather than a record acknowledged and lost.
 */
export function parseOperlogUploadLine(raw: string): LineOutcome<OperlogRecord> {
  const outcome = parseOperlogLine(raw);
  if (!outcome.ok || outcome.record.kind !== 'OTHER') return outcome;
  return reject(`unknown record kind ${quoteKeyword(splitKeyword(raw).keyword)}`);
}

/** Parse a `table=OPERLOG` (or `BIOPHOTO`, `IDCARD`) body: see parseOperlogUploadLine. */
export function parseOperlogUpload(text: string): ParseResult<OperlogRecord> {
  return parseLines(text, parseOperlogUploadLine);
}
