import type { AttlogRecord } from './attlog';
import { intWithDefault, parseIntStrict, parseTabFields, quoteKeyword, splitKeyword, type Dict } from './fields';
import { parseLines } from './lines';
import { normaliseLocalTime } from './local-time';
import { parseOptionsBody } from './options';
import { MAX_PIN_LENGTH } from './pin';
import { accept, reject, type LineOutcome, type ParseResult } from './types';

/** `POST /iclock/registry` body: comma-separated capabilities, same comma rule as table=options. */
export function parseRegistryBody(text: string): Dict {
  return parseOptionsBody(text);
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

export function parseRtlogLine(raw: string): LineOutcome<RtlogRecord> {
  const f = parseTabFields(raw);
  const localTime = normaliseLocalTime(f.get('time') ?? '');
  if (localTime === null) return reject(`invalid or missing time ${JSON.stringify(f.get('time') ?? '')}`);
  const pin = (f.get('pin') ?? '').trim();
  const pinError = rtlogPinProblem(pin);
  if (pinError) return reject(pinError);
  const state = intWithDefault(f.get('inoutstatus'), 0);
  if (!state.ok) return reject(`non-numeric inoutstatus ${JSON.stringify(f.get('inoutstatus') ?? '')}`);
  const verify = intWithDefault(f.get('verifytype'), 0);
  if (!verify.ok) return reject(`non-numeric verifytype ${JSON.stringify(f.get('verifytype') ?? '')}`);
  return accept({
    pin,
    localTime,
    state: state.value,
    verifyType: verify.value,
    workCode: (f.get('workcode') ?? '').trim(),
    extra: [],
    raw,
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
