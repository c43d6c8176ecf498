/**
 * The first key a JSON text repeats within one object. `JSON.parse` keeps the last of a repeated
 * key without a word (`{"name":"dup1","name":"dup2"}` is `{ name: "dup2" }`): which one a caller
 * meant is a guess, as with a query parameter given twice, so the API refuses such a body
 * (body.ts). No library at hand says it (the parsers in node_modules either keep the last key or
 * build a syntax tree of the whole body): this is a scanner of one pass over the text, run on
 * text `JSON.parse` accepted. Keys are compared as JSON reads them (`"a"` and `"\u0061"` are one
 * key). On any other text it answers something or null, and never throws
 * (test/property/json-keys.property.test.ts).
 */

/** A repeated key and the JSON Pointer (RFC 6901) of its second occurrence: `/areas/0/name`. */
export interface RepeatedKey {
  key: string;
  path: string;
}

/** An object or array being read: its pointer, and the key or index its next value has. */
interface Frame {
  path: string;
  /** The keys seen so far; null for an array. */
  keys: Set<string> | null;
  /** The key of the value being read (an object), or its index (an array). */
  at: string | number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** `~` and `/` escaped as a JSON Pointer segment needs them. */
export const pointerSegment = (name: string): string => name.replaceAll('~', '~0').replaceAll('/', '~1');

/** The index of the quote that ends the string opening at `start`, or the text's length when none does. */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

/** Whether the next character after `from` that is not JSON whitespace is a colon: the string before it is a key. */
function colonFollows(text: string, from: number): boolean {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  return text[i] === ':';
}

/** A key's text as JSON reads it (escapes decoded); as written when it is not a valid JSON string. */
function keyOf(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** The pointer of the value a frame is reading now. */
const childPath = (frame: Frame | undefined): string => (frame ? `${frame.path}/${typeof frame.at === 'number' ? frame.at : pointerSegment(frame.at)}` : '');

/** The first key repeated in one object of `text`, with where; null when every object names each key once. */
export function repeatedKey(text: string): RepeatedKey | null {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      stack.push({ path: childPath(top), keys: c === 0x7b ? new Set() : null, at: c === 0x7b ? '' : 0 });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      if (top && typeof top.at === 'number') top.at++;
    } else if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (top?.keys && colonFollows(text, end + 1)) {
        const key = keyOf(text.slice(i + 1, end));
        if (top.keys.has(key)) return { key, path: `${top.path}/${pointerSegment(key)}` };
        top.keys.add(key);
        top.at = key;
      }
      i = end;
    }
  }
  return null;
}
