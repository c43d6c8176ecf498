/**
 * The scanner that finds a key repeated within one JSON object (src/platform/http/json-keys.ts),
 * against JSON.parse and a reference walk:
 * - on valid JSON whose objects name each key once (any values, any whitespace, keys written
 *   with escapes), it finds nothing, and JSON.parse reads that text as the value it was made from;
 * - on valid JSON with repeated keys, it names the first one in reading order and its pointer,
 *   as the reference walk of the same document does;
 * - on any text at all (random, or JSON cut and spliced), it answers without throwing.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { pointerSegment, type RepeatedKey, repeatedKey } from '../../src/platform/http/json-keys';

const RUNS = { numRuns: 300 };

/** A JSON document as written: objects are lists of entries, so a key may be written twice. */
type Doc = null | boolean | number | string | Doc[] | { entries: [string, Doc][] };

const key = fc.oneof(fc.constantFrom('a', 'b', 'name', '', 'a/b', '~', '"', '\\', 'é', '😀', '\u0000', '\u2028'), fc.string({ maxLength: 6, unit: 'binary' }));

const doc: fc.Arbitrary<Doc> = fc.letrec<{ doc: Doc }>((tie) => ({
  doc: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    // Not -0: JSON writes it as 0.
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    fc.string({ maxLength: 8, unit: 'binary' }),
    fc.array(tie('doc'), { maxLength: 4 }),
    fc.array(fc.tuple(key, tie('doc')), { maxLength: 5 }).map((entries) => ({ entries })),
  ),
})).doc;

/** Only distinct keys in every object: the documents JSON.parse reads without losing anything. */
function withoutRepeats(d: Doc): Doc {
  if (Array.isArray(d)) return d.map(withoutRepeats);
  if (d === null || typeof d !== 'object') return d;
  const seen = new Set<string>();
  return { entries: d.entries.filter(([k]) => !seen.has(k) && seen.add(k)).map(([k, v]) => [k, withoutRepeats(v)] as [string, Doc]) };
}

/** What JSON.parse makes of a document without repeated keys. */
function parsedOf(d: Doc): unknown {
  if (Array.isArray(d)) return d.map(parsedOf);
  if (d === null || typeof d !== 'object') return d;
  // defineProperty: a key `__proto__` is an own property, as JSON.parse makes it.
  const out: Record<string, unknown> = {};
  for (const [k, v] of d.entries) Object.defineProperty(out, k, { value: parsedOf(v), enumerable: true, writable: true, configurable: true });
  return out;
}

/** The first repeated key in reading order, by walking the document. */
function firstRepeat(d: Doc, path = ''): RepeatedKey | null {
  if (Array.isArray(d)) {
    for (const [i, v] of d.entries()) {
      const found = firstRepeat(v, `${path}/${i}`);
      if (found) return found;
    }
    return null;
  }
  if (d === null || typeof d !== 'object') return null;
  const seen = new Set<string>();
  for (const [k, v] of d.entries) {
    if (seen.has(k)) return { key: k, path: `${path}/${pointerSegment(k)}` };
    seen.add(k);
    const found = firstRepeat(v, `${path}/${pointerSegment(k)}`);
    if (found) return found;
  }
  return null;
}

/** How a document is written: the whitespace between tokens, and whether a string's characters are written as `\uXXXX`. */
interface Style {
  space: string;
  escape: boolean;
}

function quoted(text: string, style: Style): string {
  if (!style.escape) return JSON.stringify(text);
  return `"${Array.from({ length: text.length }, (_, i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`;
}

function write(d: Doc, style: Style): string {
  const s = style.space;
  if (Array.isArray(d)) return `[${s}${d.map((v) => write(v, style)).join(`${s},${s}`)}${s}]`;
  if (d === null || typeof d !== 'object') return typeof d === 'string' ? quoted(d, style) : JSON.stringify(d);
  return `{${s}${d.entries.map(([k, v]) => `${quoted(k, style)}${s}:${s}${write(v, style)}`).join(`${s},${s}`)}${s}}`;
}

const style = fc.record({ space: fc.constantFrom('', ' ', '\n', '\t', ' \r\n  '), escape: fc.boolean() });

describe('repeated keys in JSON', () => {
  test('the ordinary body: none in {"name":"dup1"}, and the first one named in {"name":"dup1","name":"dup2"}', () => {
    expect(repeatedKey('{"name":"dup1"}')).toBeNull();
    expect(repeatedKey('{"name":"dup1","name":"dup2"}')).toEqual({ key: 'name', path: '/name' });
    expect(repeatedKey('{"areas":[{"name":"a"},{"name":"b","x":{"n":1,"n":2}}]}')).toEqual({ key: 'n', path: '/areas/1/x/n' });
    // Keys are compared as JSON reads them; a key may repeat in sibling objects, and a string value is no key.
    expect(repeatedKey('{"a":1,"\\u0061":2}')).toEqual({ key: 'a', path: '/a' });
    expect(repeatedKey('[{"a":1},{"a":2}]')).toBeNull();
    expect(repeatedKey('{"a":"a","b":["a","a"],"c":"{\\"a\\":1,\\"a\\":2}"}')).toBeNull();
  });

  test('valid JSON with each key once: nothing found, and JSON.parse reads the value it was written from', () => {
    fc.assert(
      fc.property(doc.map(withoutRepeats), style, (d, how) => {
        const text = write(d, how);
        expect(JSON.parse(text)).toEqual(parsedOf(d));
        expect(repeatedKey(text)).toBeNull();
      }),
      RUNS,
    );
  });

  test('JSON.stringify of any JSON value: nothing found', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.constantFrom(undefined, 2, '\t'), (value, indent) => {
        expect(repeatedKey(JSON.stringify(value, null, indent))).toBeNull();
      }),
      RUNS,
    );
  });

  test('valid JSON with repeated keys: the first in reading order, with its pointer', () => {
    fc.assert(
      fc.property(doc, style, (d, how) => {
        const text = write(d, how);
        JSON.parse(text); // valid JSON, whatever it repeats
        expect(repeatedKey(text)).toEqual(firstRepeat(d));
      }),
      RUNS,
    );
  });

  test('any text at all: an answer, never a throw', () => {
    const spliced = fc.tuple(doc, style, fc.nat(), fc.nat(), fc.string({ maxLength: 4, unit: 'binary' })).map(([d, how, at, cut, insert]) => {
      const text = write(d, how);
      const i = at % (text.length + 1);
      return `${text.slice(0, i)}${insert}${text.slice(Math.min(text.length, i + (cut % 4)))}`;
    });
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ':', ',', 'a', ' ') }), spliced),
        (text) => {
          const found = repeatedKey(text);
          if (found !== null) expect([typeof found.key, typeof found.path]).toEqual(['string', 'string']);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
