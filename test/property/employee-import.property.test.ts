/**
 * The people import's records (src/modules/employee-import/import-records.ts) over the CSV reader: people
 * written as CSV read back the same whatever their names hold (commas, quotes, line breaks); a
 * bad line costs only itself, reported by the line it starts on; every record is a row or an
 * error, never both, never neither; a repeated id or card is refused on its second line.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { personRows } from '../../src/modules/employee-import/import-records';
import { csvField, csvRow } from '../../src/platform/csv';

/** Text with what matters to CSV, trimmed and not empty (names and ids are trimmed on import). */
const cellText = (max: number) =>
  fc
    .string({ unit: fc.constantFrom('a', 'Z', '7', ',', '"', ' ', 'é', '张', "'", '-', '\n'), minLength: 1, maxLength: max })
    .map((s) => s.trim())
    .filter((s) => s !== '' && !s.includes('\n'));
const areaName = fc.constantFrom('Head Office', 'Warehouse', 'North, East', 'Quote "Q"');
const person = fc.record({
  id: cellText(10),
  name: cellText(20),
  areas: fc.uniqueArray(areaName, { maxLength: 3 }),
  card: fc.option(fc.integer({ min: 1, max: 4_294_967_295 }).map(String), { nil: undefined }),
});
const people = fc.uniqueArray(person, { selector: (p) => p.id, maxLength: 8 }).map((list) => {
  // Cards unique across the file (a repeated card is tested on its own).
  const seen = new Set<string>();
  return list.map((p) => (p.card && !seen.has(p.card) && seen.add(p.card) ? p : { ...p, card: undefined }));
});

const line = (p: { id: string; name: string; areas: string[]; card?: string }) => csvRow([p.id, p.name, p.areas.join(';'), p.card ?? ''].map(csvField));
const HEADER = 'id,name,areas,card\r\n';

describe('people import records', () => {
  test('people written as CSV read back exactly, one row each, on their lines', () => {
    fc.assert(
      fc.property(people, (list) => {
        const read = personRows(HEADER + list.map(line).join(''));
        expect(read.errors).toEqual([]);
        expect(read.rows.map((r) => ({ id: r.id, name: r.name, areas: r.areas ?? [], card: r.card }))).toEqual(
          list.map((p) => ({ id: p.id, name: p.name, areas: p.areas, card: p.card })),
        );
        expect(read.rows.map((r) => r.line)).toEqual(list.map((_, i) => i + 2));
      }),
    );
  });

  test('a bad line costs only itself: the others are rows, it is one error with its line', () => {
    const bad = fc.constantFrom('only-one-field', ',Nameless,,', 'Y,Bad Card,,12ab', 'Z,Extra,,,field', '"a"b,c,,', 'W,ab"c,,');
    fc.assert(
      fc.property(people, bad, fc.nat(), (list, badLine, at) => {
        const position = list.length === 0 ? 0 : at % (list.length + 1);
        const lines = list.map(line);
        lines.splice(position, 0, `${badLine}\r\n`);
        const read = personRows(HEADER + lines.join(''));
        expect(read.errors).toHaveLength(1);
        expect(read.errors[0]!.line).toBe(position + 2);
        expect(read.rows.map((r) => r.id)).toEqual(list.map((p) => p.id));
      }),
    );
  });

  test('never throws; every record is a row or an error, never both', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '1', ',', '"', '\n', '\r', ' ', ';'), maxLength: 120 }), (body) => {
        const read = personRows(`id,name,areas,card\n${body}`);
        const lines = [...read.rows.map((r) => r.line), ...read.errors.map((e) => e.line)];
        expect(new Set(lines).size).toBe(lines.length);
      }),
    );
  });

  test('a repeated id or card is refused on its second line only', () => {
    fc.assert(
      fc.property(
        people.filter((l) => l.length > 0),
        fc.boolean(),
        (list, byCard) => {
          const first = { ...list[0]!, card: '4242' };
          const others = list.slice(1).map((p) => ({ ...p, card: p.card === '4242' ? undefined : p.card }));
          const repeat = byCard ? { id: `${first.id}-again`, name: 'Second', areas: [], card: '4242' } : { ...first, card: undefined };
          const read = personRows(HEADER + [first, ...others, repeat].map(line).join(''));
          expect(read.errors.map((e) => e.line)).toEqual([list.length + 2]);
          expect(read.rows.map((r) => r.id)).toEqual([first, ...others].map((p) => p.id));
        },
      ),
    );
  });

  test('JSON records read as the CSV ones', () => {
    fc.assert(
      fc.property(people, (list) => {
        const csv = personRows(HEADER + list.map(line).join(''));
        const json = personRows(list.map((p) => ({ id: p.id, name: p.name, areas: p.areas, card: p.card ?? null })));
        expect(json.rows.map(({ line: _, ...r }) => r)).toEqual(csv.rows.map(({ line: _, ...r }) => r));
      }),
    );
  });
});
