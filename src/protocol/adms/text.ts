import { isAscii, isUtf8 } from 'node:buffer';

/**
 * How a body (or one line of it) was read: UTF-8, or the legacy code page of the terminal's
 * language (ADMS.md §1.2, §6.4).
 */
export type LegacyEncoding =
  | 'gb18030'
  | 'big5'
  | 'shift_jis'
  | 'euc-kr'
  | 'windows-874'
  | 'windows-1250'
  | 'windows-1251'
  | 'windows-1252'
  | 'windows-1253'
  | 'windows-1254'
  | 'windows-1255'
  | 'windows-1256'
  | 'windows-1258';

export type BodyEncoding = 'utf-8' | LegacyEncoding;

export interface DecodedBody {
  text: string;
  /** `utf-8` when every line was UTF-8 (or ASCII); otherwise the legacy encoding some line was read in. */
  encoding: BodyEncoding;
}

/**
 * The code page a terminal of each `language` (ADMS.md §6.4) writes when it does not write UTF-8:
 * GB2312 on Simplified Chinese (read as GB18030, its superset), Big5 on Traditional Chinese, the
 * Windows code page of the script otherwise. Windows-1252 is what `TextDecoder` gives for
 * "latin1" too: Latin-1 with the printable C1 range (€, Š, Ž…) on top.
 */
const LEGACY_BY_LANGUAGE: Readonly<Record<string, LegacyEncoding>> = {
  '83': 'gb18030', // zh-CN
  '84': 'big5', // zh-TW
  '74': 'shift_jis', // ja
  '75': 'euc-kr', // ko
  '76': 'windows-874', // th
  '90': 'windows-1250', // cs
  '89': 'windows-1250', // sk
  '112': 'windows-1250', // pl
  '82': 'windows-1251', // ru
  '69': 'windows-1252', // en
  '97': 'windows-1252', // es
  '70': 'windows-1252', // fr
  '80': 'windows-1252', // pt
  '71': 'windows-1252', // de
  '68': 'windows-1252', // nl
  '105': 'windows-1252', // it
  '73': 'windows-1252', // id
  '103': 'windows-1253', // el
  '116': 'windows-1254', // tr
  '72': 'windows-1255', // he
  '66': 'windows-1256', // ar
  '65': 'windows-1256', // fa
  '86': 'windows-1258', // vi
};

/**
 * No language, or one not in the table: GB18030, what the protocol's documentation names and
 * what this service always fell back to.
 */
const DEFAULT_LEGACY: LegacyEncoding = 'gb18030';

export function legacyEncodingOf(language: string | undefined): LegacyEncoding {
  return (language === undefined ? undefined : LEGACY_BY_LANGUAGE[language.trim()]) ?? DEFAULT_LEGACY;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2];
}

// ignoreBOM: the body's own BOM is taken off as bytes; a U+FEFF further on is text.
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });
const legacyDecoders = new Map<LegacyEncoding, TextDecoder>();

function legacyDecoder(encoding: LegacyEncoding): TextDecoder {
  let decoder = legacyDecoders.get(encoding);
  if (!decoder) {
    decoder = new TextDecoder(encoding, { ignoreBOM: true });
    legacyDecoders.set(encoding, decoder);
  }
  return decoder;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * A body of mixed lines, some UTF-8 and some not: each line (between CR/LF bytes, which no legacy
 * multi-byte code uses) is UTF-8 when it is valid UTF-8, else the legacy encoding. Not fatal: a
 * stray byte becomes U+FFFD rather than costing the record.
 */
function decodeLines(bytes: Uint8Array, legacy: LegacyEncoding): DecodedBody {
  const decoder = legacyDecoder(legacy);
  const parts: string[] = [];
  let usedLegacy = false;
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    const byte = bytes[i];
    if (i < bytes.length && byte !== LF && byte !== CR) continue;
    const line = bytes.subarray(start, i);
    if (isUtf8(line)) parts.push(UTF8.decode(line));
    else {
      parts.push(decoder.decode(line));
      usedLegacy = true;
    }
    if (byte !== undefined) parts.push(byte === LF ? '\n' : '\r');
    start = i + 1;
  }
  return { text: parts.join(''), encoding: usedLegacy ? legacy : 'utf-8' };
}

/**
 * Decode a terminal's body, line by line: a line that is valid UTF-8 is UTF-8 (what the service
 * sends and what most firmware writes; text in a legacy code page beyond ASCII is almost never
 * valid UTF-8), any other line is in the legacy code page of the terminal's `language`
 * (`legacyEncodingOf`). Per line, not per body: a terminal echoes the UTF-8 names it was sent next
 * to names typed on its keypad in its code page. A leading UTF-8 BOM is dropped.
 *
 * Cost: the upload path's bodies are ASCII (punches, templates in base64): one vectorised
 * `isAscii` pass and a plain decode; then one UTF-8 validation of the whole body; only a body
 * that is not UTF-8 is split into lines.
 */
export function decodeBody(bytes: Uint8Array, opts: { language?: string } = {}): DecodedBody {
  const payload = hasUtf8Bom(bytes) ? bytes.subarray(3) : bytes;
  if (isAscii(payload) || isUtf8(payload)) return { text: UTF8.decode(payload), encoding: 'utf-8' };
  return decodeLines(payload, legacyEncodingOf(opts.language));
}

/** A record line together with its 1-based physical line number, for error reports. */
export interface NumberedLine {
  line: number;
  text: string;
}

function isBlank(line: string): boolean {
  return /^[ \t]*$/.test(line);
}

/**
 * Any line end a firmware writes: LF, CRLF (with stray extra CRs before the LF), or a bare CR
 * (old Mac-style line ends, seen in files edited on a PC): a bare CR left inside a line would
 * glue the next record onto this one as extra fields, and lose it without a word.
 */
const LINE_END = /\r*\n|\r+/;

/**
 * Split a body into record lines at any line end (LINE_END); blank lines (empty or only
 * spaces/tabs) are skipped, since they carry no record.
 */
export function splitNumberedRecords(text: string): NumberedLine[] {
  const out: NumberedLine[] = [];
  // Most bodies are LF or CRLF: the plain split is the upload path's fast one.
  const lines = text.includes('\r') ? text.split(LINE_END) : text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (!isBlank(line)) out.push({ line: i + 1, text: line });
  }
  return out;
}

export function splitRecords(text: string): string[] {
  return splitNumberedRecords(text).map((l) => l.text);
}
