/**
 * The import bodies' reader (src/platform/records.ts) as both importers use it: what it refuses
 * for the whole file (nothing, an unreadable or a wrong header), what it refuses per record (a
 * broken line, the wrong number of fields, a JSON item that is not an object), always by the line
 * the record starts on, and each importer's own header and record rules on top of it.
 */
import { describe, expect, test } from 'bun:test';
import { personRows } from '../../src/modules/employee-import/import-records';
import { importRows } from '../../src/modules/punches/import-rows';
import { hasControl, type RecordFormat, readRecords } from '../../src/platform/records';

/** What a refused header row says of the separator it was read with. */
const COMMAS = '; its columns were read as separated by commas (,), the separator of its header row';

/** A format that keeps every record as it is read: which line, which cells. */
const ECHO: RecordFormat<{ line: number; a?: string; b?: string }> = {
  empty: 'empty',
  header: (names) => (names.includes('a') ? null : 'no a'),
  csv: ({ line, cell }) => (cell('a') === 'bad' ? 'bad a' : { line, a: cell('a'), b: cell('b') }),
  notAnObject: 'not an object',
  json: ({ line, fields }) => (typeof fields.a === 'string' ? { line, a: fields.a } : 'a must be text'),
};

describe('readRecords', () => {
  test('a file without a line, with a broken header or with the wrong columns is refused on its header line', () => {
    expect(readRecords('', ECHO)).toEqual({ rows: [], errors: [{ line: 1, message: 'empty' }] });
    expect(readRecords('"a,b\nx,y\n', ECHO).errors).toEqual([{ line: 1, message: expect.stringMatching(/^the header row cannot be read: /) }]);
    expect(readRecords('b,c\nx,y\n', ECHO)).toEqual({ rows: [], errors: [{ line: 1, message: `no a${COMMAS}` }] });
  });

  test('columns in any order and case; a record is named by the line it starts on, a bad one costs only itself', () => {
    const read = readRecords(' B , A \r\n1,one\r\n"two\nlines",2\r\n3\r\nx,bad\r\n"open,5\r\n', ECHO);
    expect(read.rows).toEqual([
      { line: 2, a: 'one', b: '1' },
      { line: 3, a: '2', b: 'two\nlines' },
    ]);
    expect(read.errors).toEqual([
      { line: 5, message: 'expected 2 fields as in the header, found 1' },
      { line: 6, message: 'bad a' },
      { line: 7, message: expect.any(String) },
    ]);
  });

  test("Excel's empty columns and rows: blank header cells at the end are ignored with their columns, rows of separators only are skipped", () => {
    const excel = 'id,name,areas,card,,\r\nW-01,José Muñoz,Plant,,,\r\n,,,,,\r\nW-02,Ana Ruiz,,\r\n,,,\r\n';
    expect(personRows(excel)).toEqual({
      rows: [
        expect.objectContaining({ line: 2, id: 'W-01', name: 'José Muñoz', areas: ['Plant'] }),
        expect.objectContaining({ line: 4, id: 'W-02', name: 'Ana Ruiz' }),
      ],
      errors: [],
    });
    expect(importRows('employee,at,state,\r\nP-1,2026-03-02 08:00,0,\r\n,,,\r\n', 'UTC', Date.UTC(2026, 2, 20))).toMatchObject({
      rows: [{ line: 2, employee: 'P-1' }],
      errors: [],
    });
    // A value under a blank header is not dropped silently: its record is refused.
    expect(readRecords('a,b,,\r\nx,y,,z\r\n', ECHO)).toEqual({ rows: [], errors: [{ line: 2, message: 'expected 2 fields as in the header, found 4' }] });
    // A blank name between named columns is still one the header does not know.
    expect(personRows('id,,name\r\nW-1,,Ann\r\n').errors).toEqual([{ line: 1, message: expect.stringContaining('unknown') }]);
  });

  test('a file from German Excel (semicolons, a byte-order mark, CRLF) is read as separated by semicolons, as its header row is', () => {
    // The tester's file: refused before with "(unknown: id;name;areas;card)".
    const excel = '\uFEFFid;name;areas;card\r\nS07;Greta Hoffmann-Bäcker;;\r\nS08;"Müller, Jörg";"Backstube;Laden";0042\r\n;;;\r\n';
    expect(personRows(excel)).toEqual({
      rows: [
        { line: 2, id: 'S07', name: 'Greta Hoffmann-Bäcker' },
        { line: 3, id: 'S08', name: 'Müller, Jörg', areas: ['Backstube', 'Laden'], card: '42' },
      ],
      errors: [],
    });
    expect(importRows('employee;at;state\r\nS07;2026-03-02 08:00;0\r\n', 'UTC', Date.UTC(2026, 2, 20))).toMatchObject({
      rows: [{ line: 2, employee: 'S07', at: Date.UTC(2026, 2, 2, 8), state: 0 }],
      errors: [],
    });
    // A comma in the header row (outside quotes) keeps it a comma-separated file: semicolons in its records are text.
    expect(readRecords('a,b\nx;1,y;2\n', ECHO).rows).toEqual([{ line: 2, a: 'x;1', b: 'y;2' }]);
    expect(readRecords('"a,1";a\nx;y\n', ECHO).rows).toEqual([{ line: 2, a: 'y', b: undefined }]);
  });

  test('a header row that still cannot be read names the separator it was read with, or that it found none', () => {
    expect(personRows('id;name;team\n1;A;x\n').errors).toEqual([
      {
        line: 1,
        message:
          'the header row must name the columns id and name, and may name areas and card (unknown: team); its columns were read as separated by semicolons (;), the separator of its header row',
      },
    ]);
    expect(personRows('id\tname\n1\tA\n').errors).toEqual([
      {
        line: 1,
        message:
          'the header row must name the columns id and name, and may name areas and card (unknown: id\tname); its header row has no comma (,) or semicolon (;) between the column names: save the file as CSV, its columns separated by commas or semicolons',
      },
    ]);
    expect(readRecords('"a;b\nx;y\n', ECHO).errors).toEqual([
      { line: 1, message: expect.stringMatching(/^the header row cannot be read: .+; its header row has no comma/) },
    ]);
  });

  test('a column the header does not name reads as absent', () => {
    expect(readRecords('a\nx\n', ECHO).rows).toEqual([{ line: 2, a: 'x', b: undefined }]);
  });

  test('JSON: items by their 1-based position; arrays, null and text are not records', () => {
    const read = readRecords([{ a: 'x' }, [], null, 'a,b', { a: 1 }, { a: 'y' }], ECHO);
    expect(read.rows).toEqual([
      { line: 1, a: 'x' },
      { line: 6, a: 'y' },
    ]);
    expect(read.errors).toEqual([
      { line: 2, message: 'not an object' },
      { line: 3, message: 'not an object' },
      { line: 4, message: 'not an object' },
      { line: 5, message: 'a must be text' },
    ]);
  });

  test('control characters are U+0000–U+001F and U+007F', () => {
    expect(['a\tb', 'a\u0000', '\u001f', 'x\u007f'].map(hasControl)).toEqual([true, true, true, true]);
    expect(['plain', 'é 张', '\u0080', ' '].map(hasControl)).toEqual([false, false, false, false]);
  });
});

describe('the importers over it', () => {
  test('people: the header names id and name, may name areas and card, nothing else', () => {
    expect(personRows('').errors).toEqual([{ line: 1, message: 'the file is empty: a header row `id,name,areas,card` is needed' }]);
    expect(personRows('id,name,team\n1,A,x\n').errors).toEqual([
      { line: 1, message: `the header row must name the columns id and name, and may name areas and card (unknown: team)${COMMAS}` },
    ]);
    expect(personRows('id,name,id\n1,A,2\n').errors[0]?.message).toEndWith(`(repeated: id)${COMMAS}`);
    expect(personRows('Name,ID\nAda,7\n').rows).toEqual([{ line: 2, id: '7', name: 'Ada' }]);
    expect(personRows([{ id: 7, name: 'Ada', team: 'x' }, 3]).errors).toEqual([
      { line: 1, message: 'unknown fields: team (a record has id, name, areas and card)' },
      { line: 2, message: 'each record must be an object with id and name, and optionally areas and card' },
    ]);
  });

  test('punches: the header names employee and at, other columns are kept in raw only', () => {
    const now = Date.UTC(2026, 2, 20);
    expect(importRows('', 'UTC', now).errors).toEqual([{ line: 1, message: 'the file is empty: a header row `employee,at,state` is needed' }]);
    expect(importRows('employee,state\nE,1\n', 'UTC', now).errors).toEqual([
      { line: 1, message: `the header row must name the columns \`employee\` and \`at\` (and optionally \`state\`)${COMMAS}` },
    ]);
    expect(importRows('Note,AT,Employee\n"a, b",2026-03-17 08:00,E-1\n', 'UTC', now).rows).toEqual([
      { line: 2, employee: 'E-1', at: Date.UTC(2026, 2, 17, 8), wall: '2026-03-17 08:00', flags: [], state: 0, raw: '"a, b",2026-03-17 08:00,E-1' },
    ]);
    expect(importRows([{ employee: 'E-1', at: '2026-03-17 08:00', state: 1 }, { employee: 'E-1' }], 'UTC', now)).toEqual({
      rows: [
        {
          line: 1,
          employee: 'E-1',
          at: Date.UTC(2026, 2, 17, 8),
          wall: '2026-03-17 08:00',
          flags: [],
          state: 1,
          raw: '{"employee":"E-1","at":"2026-03-17 08:00","state":1}',
        },
      ],
      errors: [{ line: 2, message: '`employee` and `at` must be strings' }],
    });
  });

  test('punches: a wall time its zone skipped or showed twice is read by the DST rule and flagged, as a terminal’s is', () => {
    const now = Date.UTC(2026, 11, 1);
    const rows = importRows('employee,at\nE-1,2026-10-25 02:30\nE-1,2026-03-29 02:30\nE-1,2026-10-25T02:30:00+01:00\n', 'Europe/Berlin', now).rows.map((r) => [
      new Date(r.at).toISOString(),
      r.flags,
    ]);
    expect(rows).toEqual([
      // Twice on 25 October: the earlier instant (+02:00).
      ['2026-10-25T00:30:00.000Z', ['dst_overlap']],
      // Skipped on 29 March: read with the offset before the gap (+01:00).
      ['2026-03-29T01:30:00.000Z', ['dst_gap']],
      // An instant with its offset is no wall time to resolve.
      ['2026-10-25T01:30:00.000Z', []],
    ]);
  });
});
