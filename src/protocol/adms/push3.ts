import { formatLocalDateTime, normaliseLocalTime } from '../../platform/time/local-time';
import { type AttlogRecord, stateAndVerify } from './attlog';
import { isValidBase64 } from './base64';
import { decodeCardNumber } from './card';
import { type Dict, intWithDefault, type KeyValueFields, parseIntStrict, parseTabFields, quoteKeyword, splitKeyword } from './fields';
import { withoutHealthPairs } from './health';
import { parseLines } from './lines';
import { parseOptionsBody } from './options';
import { MAX_PIN_LENGTH, pinProblem } from './pin';
import { decodePush3DateTime } from './push3-clock';
import { accept, keeping, type LineOutcome, type ParseResult, reject } from './types';

/** `POST /iclock/registry` body: comma-separated capabilities, same comma rule as table=options. */
export function parseRegistryBody(text: string): Dict {
  return parseOptionsBody(text);
}

/** What a terminal declares of itself at `registry` ([SEC] §4.4): its module and push version. */
export interface RegistryDeclaration {
  /** `acc` (security module) or `att` (attendance module), lower case; null when absent or garbled. */
  deviceType: string | null;
  /** `PushVersion` when it is a protocol version (`3.1.2`); null for a firmware string (`Ver 2.0.32S-…`). */
  pushVersion: string | null;
}

export function registryDeclaration(params: Dict): RegistryDeclaration {
  const type = params.DeviceType?.trim().toLowerCase() ?? '';
  const version = params.PushVersion?.trim() ?? '';
  return {
    deviceType: /^[a-z]{1,16}$/.test(type) ? type : null,
    pushVersion: /^\d{1,3}(\.\d{1,4}){0,3}$/.test(version) ? version : null,
  };
}

/**
 * A 3.x real-time event (`table=rtlog`), mapped onto the ATTLOG shape so punches share one path.
 * Door and alarm events carry no user: their `pin` is '' or '0'.
 */
export interface RtlogRecord extends AttlogRecord {
  event: number | null;
  fields: Dict;
}

function rtlogPinProblem(pin: string): string | null {
  if (/[\s\p{Cc}]/u.test(pin)) return 'pin contains whitespace or control characters';
  if ([...pin].length > MAX_PIN_LENGTH) return `pin longer than ${MAX_PIN_LENGTH} characters`;
  return null;
}

/** A 3.x real-time record; accepted or refused, what is kept of the line has no health data (health.ts). */
export function parseRtlogLine(raw: string): LineOutcome<RtlogRecord> {
  const kept = withoutHealthPairs(raw);
  return keeping(rtlogRecordOf(raw, kept), kept);
}

/** The record of an rtlog line (`kept`: the line without its health data), or why there is none. */
function rtlogRecordOf(raw: string, kept: string): LineOutcome<RtlogRecord> {
  const f = parseTabFields(raw);
  const localTime = normaliseLocalTime(f.get('time') ?? '');
  if (localTime === null) return reject(`invalid or missing time ${JSON.stringify(f.get('time') ?? '')}`);
  const pin = (f.get('pin') ?? '').trim();
  const pinError = rtlogPinProblem(pin);
  if (pinError) return reject(pinError);
  const read = stateAndVerify(['inoutstatus', f.get('inoutstatus')], ['verifytype', f.get('verifytype')]);
  if (!read.ok) return reject(read.reason);
  return accept({
    pin,
    localTime,
    ...read.record,
    workCode: (f.get('workcode') ?? '').trim(),
    extra: [],
    raw: kept,
    event: parseIntStrict(f.get('event')),
    fields: f.fields,
  });
}

export function parseRtlog(text: string): ParseResult<RtlogRecord> {
  return parseLines(text, parseRtlogLine);
}

/** One `tabledata` line: `<table> key=value\tkey=value…` (`user`, `templatev10`, `biophoto`, …). */
export interface TabledataRecord {
  table: string;
  fields: Dict;
  raw: string;
}

export function parseTabledataLine(raw: string): LineOutcome<TabledataRecord> {
  const { keyword, rest } = splitKeyword(raw);
  if (keyword === '' || keyword.includes('=')) return reject('expected `<table> key=value…`');
  const f = parseTabFields(rest);
  if (Object.keys(f.fields).length === 0) return reject(`no fields for table ${quoteKeyword(keyword)}`);
  return accept({ table: keyword, fields: f.fields, raw });
}

export function parseTabledata(text: string): ParseResult<TabledataRecord> {
  return parseLines(text, parseTabledataLine);
}

/** The fields of a `tabledata` line whose keyword is not checked (the query names the table). */
function tableLineFields(raw: string): LineOutcome<KeyValueFields> {
  const { keyword, rest } = splitKeyword(raw);
  if (keyword === '' || keyword.includes('=')) return reject('expected `<table> key=value…`');
  const f = parseTabFields(rest);
  if (Object.keys(f.fields).length === 0) return reject(`no fields for table ${quoteKeyword(keyword)}`);
  return accept(f);
}

/**
 * A 3.x stored attendance record (`tabledata` `transaction`):
 * `transaction cardno=\tpin=\tverified=\tdoorid=\teventtype=\tinoutstate=\ttime_second=`.
 * `time_second` is the 3.x clock encoding (push3-clock.ts); a plain `time=` is taken too.
 * Mapped onto the rtlog shape so both become punches the same way. Accepted or refused, what is
 * kept of the line has no health data (health.ts).
 */
export function parseTransactionLine(raw: string): LineOutcome<RtlogRecord> {
  const kept = withoutHealthPairs(raw);
  return keeping(transactionOf(raw, kept), kept);
}

/** The record of a `transaction` line (`kept`: the line without its health data), or why there is none. */
function transactionOf(raw: string, kept: string): LineOutcome<RtlogRecord> {
  const parsed = tableLineFields(raw);
  if (!parsed.ok) return parsed;
  const f = parsed.record;
  const encoded = f.get('time_second');
  let localTime: string | null;
  if (encoded !== undefined && encoded.trim() !== '') {
    const parts = decodePush3DateTime(parseIntStrict(encoded) ?? -1);
    localTime = parts ? formatLocalDateTime(parts) : null;
    if (localTime === null) return reject(`invalid time_second ${JSON.stringify(encoded)}`);
  } else {
    localTime = normaliseLocalTime(f.get('time') ?? '');
    if (localTime === null) return reject(`invalid or missing time ${JSON.stringify(f.get('time') ?? '')}`);
  }
  const pin = (f.get('pin') ?? '').trim();
  const pinError = rtlogPinProblem(pin);
  if (pinError) return reject(pinError);
  const read = stateAndVerify(['inoutstate', f.get('inoutstate', 'inoutstatus')], ['verified', f.get('verified', 'verifytype')]);
  if (!read.ok) return reject(read.reason);
  return accept({
    pin,
    localTime,
    ...read.record,
    workCode: (f.get('workcode') ?? '').trim(),
    extra: [],
    raw: kept,
    event: parseIntStrict(f.get('eventtype', 'event')),
    fields: f.fields,
  });
}

export function parseTransactions(text: string): ParseResult<RtlogRecord> {
  return parseLines(text, parseTransactionLine);
}

/** 3.x `templatev10`: a fingerid of 16 or more marks a duress finger (fingerid + 16). */
export const TEMPLATEV10_DURESS_OFFSET = 16;

/** One fingerprint of a `tabledata` `templatev10` upload: `templatev10 pin=\tfingerid=\tvalid=\ttemplate=`. */
export interface Templatev10Record {
  pin: string;
  /** The finger (0–9), with the duress offset removed. */
  fingerIndex: number;
  /** 0 invalid, 1 normal, 3 duress; 1 when absent. */
  valid: number;
  /** A duress finger: `fingerid` ≥ 16 or `valid=3`. */
  duress: boolean;
  template: string;
  raw: string;
}

export function parseTemplatev10Line(raw: string): LineOutcome<Templatev10Record> {
  const parsed = tableLineFields(raw);
  if (!parsed.ok) return parsed;
  const f = parsed.record;
  const pin = (f.get('pin') ?? '').trim();
  const pinError = pinProblem(pin);
  if (pinError) return reject(pinError);
  const fingerId = parseIntStrict(f.get('fingerid'));
  if (fingerId === null || fingerId < 0) return reject(`missing or invalid fingerid ${JSON.stringify(f.get('fingerid') ?? '')}`);
  const valid = intWithDefault(f.get('valid'), 1);
  if (!valid.ok) return reject(`non-numeric valid ${JSON.stringify(f.get('valid') ?? '')}`);
  const template = (f.get('template', 'tmp') ?? '').trim();
  if (template === '') return reject('missing template');
  if (!isValidBase64(template)) return reject('template is not valid base64');
  const duressFinger = fingerId >= TEMPLATEV10_DURESS_OFFSET;
  return accept({
    pin,
    fingerIndex: duressFinger ? fingerId - TEMPLATEV10_DURESS_OFFSET : fingerId,
    valid: valid.value,
    duress: duressFinger || valid.value === 3,
    template,
    raw,
  });
}

export function parseTemplatev10(text: string): ParseResult<Templatev10Record> {
  return parseLines(text, parseTemplatev10Line);
}

/**
 * A 3.x `user` record, uploaded (`tabledata` `user`) or answering `DATA QUERY tablename=user`:
 * `user uid=\tcardno=\tpin=\tpassword=\tgroup=\tstarttime=\tendtime=\tname=\tprivilege=…`
 * (the key set depends on the firmware; extra keys are tolerated).
 */
export interface Push3UserRecord {
  pin: string;
  name: string;
  /** Card as a decimal string, '' when none or unrecognised. */
  cardNumber: string;
  privilege: number;
  /** Sent in clear text by the terminal; undefined when the record has no `password` key. */
  password?: string;
  raw: string;
}

export function parsePush3UserLine(raw: string): LineOutcome<Push3UserRecord> {
  const parsed = tableLineFields(raw);
  if (!parsed.ok) return parsed;
  const f = parsed.record;
  const pin = (f.get('pin') ?? '').trim();
  const problem = pinProblem(pin);
  if (problem) return reject(problem);
  const privilege = intWithDefault(f.get('privilege', 'pri'), 0);
  if (!privilege.ok) return reject(`non-numeric privilege ${JSON.stringify(f.get('privilege', 'pri') ?? '')}`);
  const password = f.get('password', 'passwd');
  return accept({
    pin,
    name: f.get('name') ?? '',
    cardNumber: decodeCardNumber(f.get('cardno', 'card') ?? ''),
    privilege: privilege.value,
    ...(password === undefined ? {} : { password }),
    raw,
  });
}

export function parsePush3Users(text: string): ParseResult<Push3UserRecord> {
  return parseLines(text, parsePush3UserLine);
}
