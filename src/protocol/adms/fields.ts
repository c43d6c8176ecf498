/**
 * Helpers for the `Key=Value` TAB-separated part of keyword records (USER, FP, BIODATA, …).
 * Keys are looked up case-insensitively because firmware spells them PIN/Pin, TMP/Tmp, SIZE/Size.
 */

/** A dictionary built from device input. No prototype, so keys such as `__proto__` stay plain data. */
export type Dict = Record<string, string>;

export function createDict(): Dict {
  return Object.create(null) as Dict;
}

export interface KeyValueFields {
  /** Keys as the device spelled them; the first occurrence of a key wins. */
  fields: Dict;
  /** Case-insensitive lookup; the first name that is present wins. */
  get(...names: string[]): string | undefined;
}

export function keyValueFields(pairs: Iterable<readonly [string, string]>): KeyValueFields {
  const fields = createDict();
  const lower = new Map<string, string>();
  for (const [key, value] of pairs) {
    if (!(key in fields)) fields[key] = value;
    const k = key.toLowerCase();
    if (!lower.has(k)) lower.set(k, value);
  }
  return {
    fields,
    get(...names: string[]): string | undefined {
      for (const name of names) {
        const v = lower.get(name.toLowerCase());
        if (v !== undefined) return v;
      }
      return undefined;
    },
  };
}

/**
 * A device parameter's value (`table=options`, an INFO reply, `getrequest?INFO=`) without the NULs
 * some firmware leaves in it (a C string's terminator: `UserCount=7\0`) and the spaces around it:
 * kept, `7\0` would be stored as sent and read as no count at all.
 */
export function parameterValue(value: string): string {
  return value.replaceAll('\u0000', '').trim();
}

/** Split `key=value` on the first `=` only: base64 values end in `=` padding. */
export function splitPair(part: string): readonly [string, string] {
  const eq = part.indexOf('=');
  return eq < 0 ? [part.trim(), ''] : [part.slice(0, eq).trim(), part.slice(eq + 1)];
}

/** Parse TAB-separated `Key=Value` parts; empty parts (e.g. from a trailing TAB) are ignored. */
export function parseTabFields(text: string): KeyValueFields {
  const pairs: (readonly [string, string])[] = [];
  for (const part of text.split('\t')) {
    if (part.trim() === '') continue;
    pairs.push(splitPair(part));
  }
  return keyValueFields(pairs);
}

/** `KEYWORD rest`: the keyword ends at the first SP (the protocol) or TAB (seen in some peers). */
export function splitKeyword(line: string): { keyword: string; rest: string } {
  const m = /[ \t]/.exec(line);
  if (!m) return { keyword: line.trim(), rest: '' };
  return { keyword: line.slice(0, m.index).trim(), rest: line.slice(m.index + 1) };
}

/**
 * A record keyword for an error reason: quoted only when it looks like one. A broken line (a
 * stray LF inside a record) can start with template base64, which must never reach the logs.
 */
export function quoteKeyword(keyword: string): string {
  return /^[A-Za-z][A-Za-z0-9_]{0,19}$/.test(keyword) ? JSON.stringify(keyword) : '(unreadable)';
}

/** Strict integer: optional sign, digits only (surrounding spaces tolerated). Null when absent or garbled. */
export function parseIntStrict(value: string | undefined): number | null {
  if (value === undefined) return null;
  const t = value.trim();
  if (!/^[+-]?\d{1,15}$/.test(t)) return null;
  return Number(t);
}

export type IntFieldResult = { ok: true; value: number } | { ok: false };

/** Integer field where empty/missing means `fallback` and anything non-numeric is a line error. */
export function intWithDefault(value: string | undefined, fallback: number): IntFieldResult {
  if (value === undefined || value.trim() === '') return { ok: true, value: fallback };
  const n = parseIntStrict(value);
  return n === null ? { ok: false } : { ok: true, value: n };
}

/** Drop empty fields at the end that a trailing TAB produces. */
export function dropTrailingEmpty(fields: string[]): string[] {
  let end = fields.length;
  while (end > 0 && fields[end - 1] === '') end--;
  return fields.slice(0, end);
}

/**
 * Read several integer fields at once: `spec` maps a result name to [device key, default].
 * The first non-numeric field makes the whole line an error.
 */
export function readIntFields<K extends string>(
  f: KeyValueFields,
  spec: Record<K, readonly [key: string, fallback: number]>,
): { ok: true; values: Record<K, number> } | { ok: false; reason: string } {
  const values = {} as Record<K, number>;
  for (const name of Object.keys(spec) as K[]) {
    const [key, fallback] = spec[name];
    const r = intWithDefault(f.get(key), fallback);
    if (!r.ok) return { ok: false, reason: `non-numeric ${key} ${JSON.stringify(f.get(key) ?? '')}` };
    values[name] = r.value;
  }
  return { ok: true, values };
}
