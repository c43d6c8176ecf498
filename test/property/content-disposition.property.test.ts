/**
 * `attachmentDisposition` (src/platform/http/content-disposition.ts), for any name: a header value
 * Bun's Headers take and send as they are (printable ASCII), that reads back (a strict RFC 6266
 * reader, test/support) as one attachment with one file name: the name itself, but for path
 * separators and controls (`_`) and text cut mid-character (U+FFFD); its ASCII `filename=` is
 * always there for older clients.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { attachmentDisposition } from '../../src/platform/http/content-disposition';
import { readDisposition } from '../support/content-disposition';

/** Names with what breaks headers: quotes, backslashes, `;`, `=`, `%`, `*`, `'`, spaces, accents, CJK, emoji, controls, separators. */
const tricky = fc.string({
  unit: fc.constantFrom(
    'a',
    'Z',
    '7',
    '.',
    '-',
    '"',
    '\\',
    ';',
    '=',
    '%',
    '*',
    "'",
    '(',
    ' ',
    'ü',
    'é',
    '李',
    '雷',
    '😀',
    '\u0000',
    '\n',
    '\r',
    '/',
    '\u0085',
    '\uD800',
    // A combining mark alone: nothing of it is ASCII (CI found a name of only this).
    '\u0300',
  ),
  maxLength: 24,
});
const anyName = fc.oneof(tricky, fc.string({ unit: 'binary', maxLength: 24 }), fc.string({ unit: 'grapheme', maxLength: 24 }));

/** The name as a file name gets it: what the builder promises to keep. */
const expected = (name: string) =>
  name.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD').replace(/[\\/\p{Cc}]/gu, '_') || 'download';

describe('Content-Disposition of a download', () => {
  test('any name: a value Bun accepts as it is, printable ASCII, one attachment whose file name is the name', () => {
    fc.assert(
      fc.property(anyName, (name) => {
        const value = attachmentDisposition(name);
        expect(new Headers({ 'content-disposition': value }).get('content-disposition')).toBe(value);
        expect(value).toMatch(/^[\x20-\x7e]+$/);
        expect(readDisposition(value)).toEqual({ type: 'attachment', filename: expected(name) });
        // The ASCII fallback is there too, and is a plain name.
        expect(value).toMatch(/^attachment; filename="[A-Za-z0-9._-]+"(; |$)/);
      }),
      { numRuns: 2000 },
    );
  });

  test('the reader is strict: the header a quote in the name used to make reads as two file names, an error', () => {
    expect(() => readDisposition('attachment; filename="deletion-proof-a"b; filename=evil.exe.pdf"')).toThrow();
  });

  test('the reported names: one file name each, the real one kept', () => {
    expect(attachmentDisposition('deletion-proof-李雷.pdf')).toBe(
      `attachment; filename="deletion-proof-_.pdf"; filename*=UTF-8''deletion-proof-%E6%9D%8E%E9%9B%B7.pdf`,
    );
    expect(attachmentDisposition('deletion-proof-Jürgen.pdf')).toBe(
      `attachment; filename="deletion-proof-Jurgen.pdf"; filename*=UTF-8''deletion-proof-J%C3%BCrgen.pdf`,
    );
    expect(readDisposition(attachmentDisposition('deletion-proof-a"b; filename=evil.exe.pdf')).filename).toBe('deletion-proof-a"b; filename=evil.exe.pdf');
    expect(attachmentDisposition('daily-2026-02-03.csv')).toBe('attachment; filename="daily-2026-02-03.csv"');
    // Only a combining mark: no ASCII is left of it, the fallback is still a name.
    expect(attachmentDisposition('\u0300')).toBe(`attachment; filename="download"; filename*=UTF-8''%CC%80`);
  });
});
