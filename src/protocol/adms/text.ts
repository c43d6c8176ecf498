export type BodyEncoding = 'utf-8' | 'gb18030';

export interface DecodedBody {
  text: string;
  encoding: BodyEncoding;
}

/** `language=83` is Simplified Chinese; those devices send names in GB2312, of which GB18030 is a superset. */
const SIMPLIFIED_CHINESE = '83';

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2];
}

function stripLeadingBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function decodeGb18030(bytes: Uint8Array): string {
  // Not fatal: a stray byte becomes U+FFFD rather than costing the whole body.
  return stripLeadingBom(new TextDecoder('gb18030').decode(bytes));
}

function tryDecodeUtf8(bytes: Uint8Array): string | null {
  try {
    return stripLeadingBom(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch {
    return null;
  }
}

/**
 * Decode a device body. UTF-8 first (strictly, so that GB bytes are noticed), GB18030 when the bytes
 * are not UTF-8 or the device announced Simplified Chinese. A UTF-8 BOM is stripped and, being an
 * explicit declaration, wins over the language hint.
 */
export function decodeBody(bytes: Uint8Array, opts: { language?: string } = {}): DecodedBody {
  const bom = hasUtf8Bom(bytes);
  const payload = bom ? bytes.subarray(3) : bytes;
  const preferGb = !bom && opts.language?.trim() === SIMPLIFIED_CHINESE;
  if (!preferGb) {
    const text = tryDecodeUtf8(payload);
    if (text !== null) return { text, encoding: 'utf-8' };
  }
  return { text: decodeGb18030(payload), encoding: 'gb18030' };
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
