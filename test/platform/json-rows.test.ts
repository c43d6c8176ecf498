/**
 * Rows inserted as one JSON value (platform/db/json-rows.ts) on a real libSQL file: every value a
 * terminal can send (any text, a raw line included) comes back exactly, with its SQL type, and an
 * `on conflict` clause still applies.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import fc from 'fast-check';
import { type Database, openDatabase } from '../../src/platform/db/client';
import { insertFromJsonSql, jsonRows } from '../../src/platform/db/json-rows';
import { tempDir } from '../support/harness';

const tmp = tempDir('fpa-json-rows-');
let db: Database;

beforeAll(async () => {
  db = await openDatabase({ url: `file:${join(tmp.dir, 'rows.db')}`, backgroundCheckpoint: false });
  await db.client.execute('create table r (seq integer primary key, name text not null unique, n integer, note text, doc text)');
});
afterAll(async () => {
  await db.close();
  tmp.cleanup();
});

/** The text as UTF-8 can hold it: each lone surrogate becomes U+FFFD. */
const wellFormed = (text: string) => new TextDecoder().decode(new TextEncoder().encode(text));

const INSERT = insertFromJsonSql('r', ['name', 'n', 'note', 'doc'], 'on conflict do nothing returning seq, name', ['doc']);
const insert = (rows: (string | number | null | object)[][]) => db.write((w) => w.execute({ sql: INSERT, args: [jsonRows(rows)] }));

describe('rows as one JSON value', () => {
  test('any text, integer, null and JSON document round-trips with its SQL type', async () => {
    const row = fc.tuple(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.option(fc.maxSafeInteger()),
      fc.option(fc.string({ unit: 'binary', maxLength: 60 })),
      fc.jsonValue(),
    );
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(row, { selector: (r) => r[0], minLength: 1, maxLength: 20 }), async (rows) => {
        await db.client.execute('delete from r');
        const inserted = await insert(rows.map(([name, n, note, doc]) => [name, n, note, { doc }]));
        expect(inserted.rows.map((r) => r.name)).toEqual(rows.map((r) => r[0]));
        const back = await db.client.execute('select name, n, typeof(n) as nt, note, typeof(note) as notet, doc from r order by seq');
        back.rows.forEach((r, i) => {
          const [name, n, note, doc] = rows[i]!;
          expect(r.name).toBe(name);
          expect(r.n).toBe(n);
          expect(r.nt).toBe(n === null ? 'null' : 'integer');
          // As with bound values through libsql-js: a lone surrogate cannot be UTF-8 (it becomes
          // U+FFFD) and a text ends at its first NUL.
          expect(r.note).toBe(note === null ? null : wellFormed(note).split('\u0000')[0]!);
          expect(r.notet).toBe(note === null ? 'null' : 'text');
          expect(JSON.parse(String(r.doc))).toEqual(JSON.parse(JSON.stringify({ doc })));
        });
      }),
      { numRuns: 60 },
    );
  });

  test('numeric-looking text stays text, and a conflicting row is skipped while the others are stored', async () => {
    await db.client.execute('delete from r');
    await insert([['a', 1, '007', {}]]);
    const result = await insert([
      ['b', 2, '0', {}],
      ['a', 3, 'again', {}],
      ['c', null, null, { x: [1, 'y'] }],
    ]);
    expect(result.rows.map((r) => r.name)).toEqual(['b', 'c']);
    const back = await db.client.execute('select name, n, note, typeof(note) as t, doc from r order by seq');
    expect(back.rows.map((r) => [r.name, r.n, r.note, r.t, r.doc])).toEqual([
      ['a', 1, '007', 'text', '{}'],
      ['b', 2, '0', 'text', '{}'],
      ['c', null, null, 'null', '{"x":[1,"y"]}'],
    ]);
  });
});
