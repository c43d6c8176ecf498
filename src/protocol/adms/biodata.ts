import { base64DecodedLength, isValidBase64 } from './base64';
import { type KeyValueFields, parseTabFields, quoteKeyword, readIntFields, splitKeyword } from './fields';
import { parseLines } from './lines';
import { pinProblem } from './pin';
import { accept, type LineOutcome, type ParseResult, reject } from './types';

/**
 * Unified biometric template (§4.3):
 * `BIODATA Pin=\tNo=\tIndex=\tValid=\tDuress=\tType=\tMajorVer=\tMinorVer=\tFormat=\tTmp=`.
 */
export interface BiodataRecord {
  kind: 'BIODATA';
  pin: string;
  /** Body part: finger 0–9, palm 0/1 (left/right), face 0. */
  no: number;
  /** Position inside a multi-template set (a palm is sent as Index 0–4). */
  index: number;
  valid: number;
  duress: number;
  /** 1 fingerprint, 2 NIR face, 7 finger vein, 8 palm, 9 visible-light face, … */
  type: number;
  /** Algorithm version kept as text: `58`/`10` must not become a float. */
  majorVer: string;
  minorVer: string;
  /** 0 ZK proprietary, 1 ISO, 2 ANSI. */
  format: number;
  template: string;
  /** Decoded template size; BIODATA has no Size field to check against. */
  templateBytes: number;
  raw: string;
}

/** Build a BIODATA record from already split fields (also used for BIODATA lines inside OPERLOG). */
export function biodataFromFields(f: KeyValueFields, raw: string): LineOutcome<BiodataRecord> {
  const pin = (f.get('Pin') ?? '').trim();
  const pinError = pinProblem(pin);
  if (pinError) return reject(pinError);
  const typeText = f.get('Type');
  if (typeText === undefined || typeText.trim() === '') return reject('missing Type');
  const ints = readIntFields(f, {
    no: ['No', 0],
    index: ['Index', 0],
    valid: ['Valid', 1],
    duress: ['Duress', 0],
    type: ['Type', 0],
    format: ['Format', 0],
  });
  if (!ints.ok) return reject(ints.reason);
  const template = (f.get('Tmp') ?? '').trim();
  if (template === '') return reject('missing template (Tmp)');
  if (!isValidBase64(template)) return reject('template (Tmp) is not valid base64');
  return accept({
    kind: 'BIODATA',
    pin,
    no: ints.values.no,
    index: ints.values.index,
    valid: ints.values.valid,
    duress: ints.values.duress,
    type: ints.values.type,
    majorVer: (f.get('MajorVer') ?? '').trim(),
    minorVer: (f.get('MinorVer') ?? '').trim(),
    format: ints.values.format,
    template,
    templateBytes: base64DecodedLength(template),
    raw,
  });
}

export function parseBiodataLine(raw: string): LineOutcome<BiodataRecord> {
  const { keyword, rest } = splitKeyword(raw);
  if (keyword.toUpperCase() !== 'BIODATA') return reject(`expected a BIODATA record, got ${quoteKeyword(keyword)}`);
  return biodataFromFields(parseTabFields(rest), raw);
}

/** Parse a `table=BIODATA` body. */
export function parseBiodata(text: string): ParseResult<BiodataRecord> {
  return parseLines(text, parseBiodataLine);
}
