/** How the console reads a chosen CSV file's bytes (src/modules/console/client/file-text.ts). */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { decodeTextFile, encodingNote } from '../../../src/modules/console/client/file-text';

const isUtf8 = (bytes: Uint8Array) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

describe('a chosen file as text', () => {
  test('UTF-8 text reads back as it is, whatever it holds', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        // A leading byte-order mark is dropped (the CSV reader would drop it too).
        expect(decodeTextFile(new TextEncoder().encode(text))).toEqual({ text: text.replace(/^\uFEFF/, ''), encoding: 'utf-8' });
      }),
    );
  });

  test('bytes that are not UTF-8 are read as Windows-1252, never thrown at', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 60 }), (bytes) => {
        const read = decodeTextFile(bytes);
        if (bytes[0] === 0xff && bytes[1] === 0xfe) expect(read.encoding).toBe('utf-16');
        else if (bytes[0] === 0xfe && bytes[1] === 0xff) expect(read.encoding).toBe('utf-16');
        else if (isUtf8(bytes)) expect(read.encoding).toBe('utf-8');
        else expect(read).toEqual({ text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252' });
      }),
    );
  });

  test("Excel's CSV (Comma delimited) of a Western European Windows: the accents kept, and a note says so", () => {
    const text = 'W-01,José Muñoz,Plant,\r\nW-02,Zoë “Zo” Ørsted – 5 €,,';
    // Latin-1 letters are their own byte; “ ” – € are Windows-1252's own.
    const cp1252: Record<string, number> = { '“': 0x93, '”': 0x94, '–': 0x96, '€': 0x80 };
    const encoded = Uint8Array.from([...text].map((c) => cp1252[c] ?? c.charCodeAt(0)));
    expect(decodeTextFile(encoded)).toEqual({ text, encoding: 'windows-1252' });
    expect(encodingNote('windows-1252')).toContain('CSV UTF-8 (Comma delimited)');
    expect(encodingNote('utf-8')).toBeNull();
  });

  test("UTF-16 with its byte-order mark (Excel's Unicode Text) is read as UTF-16", () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('id,name\nW-1,José', 'utf16le')]);
    expect(decodeTextFile(new Uint8Array(le))).toEqual({ text: 'id,name\nW-1,José', encoding: 'utf-16' });
    const be = Buffer.from(le).swap16();
    expect(decodeTextFile(new Uint8Array(be))).toEqual({ text: 'id,name\nW-1,José', encoding: 'utf-16' });
  });
});
