/**
 * The CSV reader and writer (src/platform/csv.ts) and the import records built on them
 * (src/modules/punches/import-rows.ts, src/modules/employee-import/import-records.ts): what we
 * write reads back the same, whatever the text; the reader never throws and never loses a good
 * record next to a bad one; every import record is either a row or an error naming its line,
 * never both, never neither. A file separated by semicolons (Excel in many European locales) is
 * told by its header row and reads as the same file separated by commas.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { personRows } from '../../src/modules/employee-import/import-records';
import { importRows } from '../../src/modules/punches/import-rows';
import { csvField, csvRow, csvSeparatorOf, csvText, parseCsv } from '../../src/platform/csv';

/** Text with the characters that matter to CSV: commas, quotes, line breaks, spaces, and anything else. */
const tricky = fc.string({ unit: fc.constantFrom('a', 'Z', '7', ',', '"', '\n', '\r', ' ', '\t', ';', 'é', '张', '=', '-'), maxLength: 12 });
const anyText = fc.oneof(tricky, fc.string({ unit: 'grapheme', maxLength: 12 }));
/** A record that does not read as a blank line (empty fields only are skipped as such). */
const record = fc.array(anyText, { minLength: 1, maxLength: 6 }).filter((r) => !r.every((f) => f === ''));

const NOW = Date.parse('2026-03-31T12:00:00Z');

/** A field as Excel writes it in a file separated by semicolons: quoted when it holds a semicolon, a quote, a line break or edge spaces. */
const semicolonField = (value: string) => (/[";\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
const semicolonRow = (fields: readonly string[]) => `${fields.map(semicolonField).join(';')}\r\n`;
/** A column name as a header row holds it: no separator, quote or line break. */
const columnName = fc.stringMatching(/^[A-Za-z0-9_äöüß -]{1,10}$/).filter((n) => n.trim() !== '');
/** What may come before the header row: a byte-order mark, blank lines, Excel's empty rows. */
const beforeHeader = fc.tuple(fc.boolean(), fc.constantFrom('', '\r\n', '\n\r\n', ';;;\r\n', ',,\r\n')).map(([bom, blank]) => (bom ? '\uFEFF' : '') + blank);
/** The same, with empty rows of semicolons only: a file separated by semicolons, read back record by record. */
const semicolonsBeforeHeader = fc.tuple(fc.boolean(), fc.constantFrom('', '\r\n', '\n\r\n', ';;;\r\n')).map(([bom, blank]) => (bom ? '\uFEFF' : '') + blank);

describe('CSV', () => {
  test('records written with csvField/csvRow read back exactly, with their starting lines', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 8 }), fc.boolean(), (records, bom) => {
        const text = (bom ? '\uFEFF' : '') + records.map((r) => csvRow(r.map(csvField))).join('');
        const read = parseCsv(text);
        expect(read.map((r) => ('fields' in r ? r.fields : r.error))).toEqual(records);
        // Each record starts on the line after the previous one's last line.
        let line = 1;
        read.forEach((r, i) => {
          expect(r.line).toBe(line);
          line += csvRow(records[i]!.map(csvField)).split(/\r\n|\r|\n/).length - 1;
        });
      }),
    );
  });

  test('the reader never throws and reports lines in increasing order', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ',', '"', '\n', '\r', ' ', 'x'), maxLength: 80 }), (text) => {
        const read = parseCsv(text);
        for (let i = 1; i < read.length; i++) expect(read[i]!.line).toBeGreaterThan(read[i - 1]!.line);
        for (const r of read) expect(r.line).toBeGreaterThanOrEqual(1);
      }),
    );
  });

  test('a bad record costs only itself: the good records after it are read', () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 4 }),
        fc.constantFrom('a"b', '"a"b', 'x,"y"z'),
        fc.array(record, { minLength: 1, maxLength: 4 }),
        (before, bad, after) => {
          const text = [...before.map((r) => csvRow(r.map(csvField))), `${bad}\r\n`, ...after.map((r) => csvRow(r.map(csvField)))].join('');
          const read = parseCsv(text);
          expect(read).toHaveLength(before.length + 1 + after.length);
          expect('error' in read[before.length]!).toBe(true);
          expect(read.slice(before.length + 1).map((r) => ('fields' in r ? r.fields : null))).toEqual(after);
        },
      ),
    );
  });

  test("rows of separators only (Excel's empty rows, `,,,`) are skipped like blank lines; the records around them read the same", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(record, fc.integer({ min: 0, max: 8 })), { maxLength: 10 }), fc.constantFrom('\r\n', '\n'), (items, eol) => {
        // A number is an empty row of that many separators.
        const text = items.map((r) => (typeof r === 'number' ? `${','.repeat(r)}${eol}` : csvRow(r.map(csvField)))).join('');
        const read = parseCsv(text);
        expect(read.map((r) => ('fields' in r ? r.fields : r.error))).toEqual(items.filter((r) => typeof r !== 'number'));
      }),
    );
  });

  test('spreadsheet formulas are defused, other text is untouched', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const [read] = parseCsv(csvRow([csvText(text), 'x']));
        const value = read && 'fields' in read ? read.fields[0] : undefined;
        if (text === '' && read === undefined) return;
        expect(value).toBe(/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
      }),
    );
  });
});

describe('the separator, told by the header row', () => {
  test('a header row of names separated by semicolons is read as such, by commas as commas, whatever comes before it', () => {
    fc.assert(
      fc.property(fc.array(columnName, { minLength: 2, maxLength: 6 }), beforeHeader, (names, before) => {
        expect(csvSeparatorOf(`${before}${names.join(';')}\r\nx`)).toBe(';');
        expect(csvSeparatorOf(`${before}${names.join(',')}\r\nx`)).toBe(',');
        // One comma among the semicolons, or a name alone: commas, as before.
        expect(csvSeparatorOf(`${before}${names.join(';')},extra\r\n`)).toBe(',');
        expect(csvSeparatorOf(`${before}${names[0]}\r\n`)).toBe(',');
      }),
    );
  });

  test('only the header row tells it: separators inside its quoted names, and whatever the records hold, do not', () => {
    fc.assert(
      fc.property(fc.array(columnName, { minLength: 2, maxLength: 6 }), fc.array(record, { maxLength: 6 }), (names, records) => {
        // A quoted name holding the other separator; records holding anything (a decimal comma, a name "Müller, Jörg").
        const quoted = [`"${names[0]}, ${names[1]}"`, ...names.slice(1)];
        expect(csvSeparatorOf(`${quoted.join(';')}\r\n${records.map(semicolonRow).join('')}`)).toBe(';');
        expect(csvSeparatorOf(`${names.map(csvField).join(',')}\r\n${records.map(semicolonRow).join('')}`)).toBe(',');
      }),
    );
  });

  test('a file separated by semicolons reads back exactly, whatever its fields hold (commas, semicolons, quotes, line breaks)', () => {
    fc.assert(
      fc.property(
        fc.array(columnName, { minLength: 2, maxLength: 6 }),
        fc.array(record, { maxLength: 8 }),
        semicolonsBeforeHeader,
        (header, records, before) => {
          const text = before + semicolonRow(header) + records.map(semicolonRow).join('');
          expect(csvSeparatorOf(text)).toBe(';');
          const read = parseCsv(text, ';');
          expect(read.map((r) => ('fields' in r ? r.fields : r.error))).toEqual([header, ...records]);
        },
      ),
    );
  });

  test('the people import reads the same rows and errors from a file separated by semicolons as from one separated by commas', () => {
    const cell = fc.oneof(anyText, fc.stringMatching(/^[A-Z]-[0-9]{1,3}$/), fc.constantFrom('Müller, Jörg', 'north;south', '0042', ''));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(cell, cell, cell, cell), { maxLength: 10 }),
        fc.shuffledSubarray(['id', 'name', 'areas', 'card'], { minLength: 2 }),
        (lines, columns) => {
          const records = lines.map((l) => columns.map((c) => l[['id', 'name', 'areas', 'card'].indexOf(c)]!));
          const commas = csvRow(columns) + records.map((r) => csvRow(r.map(csvField))).join('');
          const semicolons = semicolonRow(columns) + records.map(semicolonRow).join('');
          // The same, but for the separator a refused header row names.
          const bySeparator = (read: ReturnType<typeof personRows>) => ({
            ...read,
            errors: read.errors.map((e) => ({ ...e, message: e.message.replace(/; its columns were read as separated by .+$/, '') })),
          });
          expect(bySeparator(personRows(semicolons))).toEqual(bySeparator(personRows(commas)));
        },
      ),
    );
  });
});

describe('import records', () => {
  const employee = fc.stringMatching(/^[A-Za-z0-9-]{1,12}$/);
  const instant = fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: NOW }).map((ms) => Math.floor(ms / 1000) * 1000);
  const good = fc.record({ employee, at: instant, state: fc.integer({ min: 0, max: 255 }) });
  const bad = fc.oneof(
    fc.constant({ employee: '', at: '2026-03-01T08:00:00Z', state: '0' }),
    fc.constant({ employee: 'E-1', at: '2026-02-30 08:00', state: '0' }),
    fc.constant({ employee: 'E-1', at: 'yesterday', state: '0' }),
    fc.constant({ employee: 'E-1', at: '2026-03-01T08:00:00Z', state: '256' }),
    fc.constant({ employee: 'E-1', at: '2099-03-01T08:00:00Z', state: '1' }),
  );
  const entries = fc.array(
    fc.oneof(
      good.map((g) => ({ good: true as const, ...g })),
      bad.map((b) => ({ good: false as const, ...b })),
    ),
    { maxLength: 12 },
  );

  test('CSV: every record is a row or an error on its own line, and good records come back as sent', () => {
    fc.assert(
      fc.property(entries, fc.constantFrom('employee,at,state', 'State,AT,Employee', 'at,note,employee,state'), (list, header) => {
        const columns = header.toLowerCase().split(',');
        const line = (e: (typeof list)[number]) => {
          const values: Record<string, string> = {
            employee: e.employee,
            at: e.good ? new Date(e.at).toISOString() : String(e.at),
            state: String(e.state),
            note: 'a, "quoted" note',
          };
          return csvRow(columns.map((c) => csvField(values[c])));
        };
        const { rows, errors } = importRows(`${header}\r\n${list.map(line).join('')}`, 'Europe/Berlin', NOW);
        expect([...rows.map((r) => r.line), ...errors.map((e) => e.line)].sort((a, b) => a - b)).toEqual(list.map((_, i) => i + 2));
        list.forEach((e, i) => {
          const row = rows.find((r) => r.line === i + 2);
          if (e.good) expect(row).toMatchObject({ employee: e.employee, at: e.at, state: e.state });
          else expect(row).toBeUndefined();
        });
      }),
    );
  });

  test('CSV separated by semicolons (Excel in many European locales): the same rows and errors as separated by commas', () => {
    fc.assert(
      fc.property(entries, fc.constantFrom('employee,at,state', 'State,AT,Employee', 'at,note,employee,state'), (list, header) => {
        const columns = header.toLowerCase().split(',');
        const values = (e: (typeof list)[number]): string[] =>
          columns.map(
            (c) => ({ employee: e.employee, at: e.good ? new Date(e.at).toISOString() : String(e.at), state: String(e.state), note: 'a; "quoted", note' })[c]!,
          );
        const commas = `${header}\r\n${list.map((e) => csvRow(values(e).map(csvField))).join('')}`;
        const semicolons = `${header.replaceAll(',', ';')}\r\n${list.map((e) => semicolonRow(values(e))).join('')}`;
        expect(importRows(semicolons, 'Europe/Berlin', NOW)).toEqual(importRows(commas, 'Europe/Berlin', NOW));
      }),
    );
  });

  test("Excel's empty columns at the end (blank header cells, empty cells under them) change nothing", () => {
    fc.assert(
      fc.property(entries, fc.integer({ min: 1, max: 4 }), fc.boolean(), (list, blank, everyRow) => {
        const line = (e: (typeof list)[number]) => [e.employee, e.good ? new Date(e.at).toISOString() : String(e.at), String(e.state)].map(csvField).join(',');
        const plain = `employee,at,state\r\n${list.map((e) => `${line(e)}\r\n`).join('')}`;
        // Excel pads every row to its range; a hand-edited file may not.
        const padded = `employee,at,state${','.repeat(blank)}\r\n${list.map((e, i) => `${line(e)}${everyRow || i % 2 ? ','.repeat(blank) : ''}\r\n`).join('')}`;
        expect(importRows(padded, 'Europe/Berlin', NOW)).toEqual(importRows(plain, 'Europe/Berlin', NOW));
      }),
    );
  });

  test('JSON: the same records as an array give the same rows, by position', () => {
    fc.assert(
      fc.property(entries, (list) => {
        const records = list.map((e) => ({ employee: e.employee, at: e.good ? new Date(e.at).toISOString() : e.at, state: e.good ? e.state : e.state }));
        const { rows, errors } = importRows(records, 'Europe/Berlin', NOW);
        expect(rows.length + errors.length).toBe(list.length);
        expect(rows.map((r) => r.line)).toEqual(list.flatMap((e, i) => (e.good ? [i + 1] : [])));
      }),
    );
  });

  test('never throws on arbitrary text or values', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.array(fc.anything(), { maxLength: 5 }), (text, values) => {
        importRows(text, 'Asia/Kolkata', NOW);
        importRows(values, 'Asia/Kolkata', NOW);
      }),
    );
  });

  test('a wall time without an offset is read in the zone; an instant keeps its offset', () => {
    const { rows } = importRows(
      'employee,at\nE-1,2026-03-09 08:00\nE-1,2026-03-09T08:00:00+05:30\nE-1,2026-11-01 01:30\n',
      'America/New_York',
      Date.parse('2026-12-01T00:00:00Z'),
    );
    expect(rows.map((r) => new Date(r.at).toISOString())).toEqual([
      '2026-03-09T12:00:00.000Z',
      '2026-03-09T02:30:00.000Z',
      // Twice on the night clocks go back: the earlier instant (the DST rule of terminals' times).
      '2026-11-01T05:30:00.000Z',
    ]);
  });
});
