/**
 * Opaque paging cursors: base64url of a JSON array of strings and finite
 * numbers. Cursors are not signed; treat decoded values as untrusted input
 * (bind them as query parameters, never splice them into SQL).
 */

export type CursorValue = string | number;

/** Cursors longer than this are rejected on decode. */
const MAX_CURSOR_LENGTH = 4096;
const BASE64URL_RE = /^[A-Za-z0-9_-]*$/;

function isCursorValue(v: unknown): v is CursorValue {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** Encodes values into a cursor. Throws TypeError on non-finite numbers. */
export function encodeCursor(values: readonly CursorValue[]): string {
  if (!Array.isArray(values) || !values.every(isCursorValue)) {
    throw new TypeError('cursor values must be strings or finite numbers');
  }
  // JSON.stringify escapes lone surrogates, so the JSON is always valid UTF-8.
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

/** Decodes a cursor; null for anything malformed. Never throws. */
export function decodeCursor(token: string): CursorValue[] | null {
  try {
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_CURSOR_LENGTH) return null;
    if (!BASE64URL_RE.test(token)) return null;
    const bytes = Buffer.from(token, 'base64url');
    // Reject non-canonical encodings (stray trailing bits, impossible lengths).
    if (bytes.toString('base64url') !== token) return null;
    const json = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    const parsed: unknown = JSON.parse(json);
    if (!Array.isArray(parsed)) return null;
    const out: CursorValue[] = [];
    for (const v of parsed as unknown[]) {
      if (!isCursorValue(v)) return null;
      out.push(v);
    }
    // Accept only the exact form encodeCursor produces (no extra whitespace,
    // "1.0", "-0", escapes, ...), so every cursor has a single spelling.
    if (JSON.stringify(out) !== json) return null;
    return out;
  } catch {
    return null;
  }
}
