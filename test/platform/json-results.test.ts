/**
 * Results read back as one JSON value (platform/db/json-results.ts) on a real libSQL file: a
 * query's rows with their types, and an insert answering exactly the rows it inserted (not the
 * duplicates it skipped, nor rows already there, even after the newest rows were deleted).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { type Database, openDatabase } from '../../src/platform/db/client';
import { insertSequenced, selectAsJson } from '../../src/platform/db/json-results';
import { insertFromJsonSql, jsonRows } from '../../src/platform/db/json-rows';
import { tempDir } from '../support/harness';

const tmp = tempDir('fpa-json-results-');
let db: Database;

beforeAll(async () => {
  db = await openDatabase({ url: `file:${join(tmp.dir, 'results.db')}`, backgroundCheckpoint: false });
  await db.client.execute('create table t (sequence integer primary key autoincrement, id text not null unique, n integer)');
});
afterAll(async () => {
  await db.close();
  tmp.cleanup();
});

const INSERT = insertFromJsonSql('t', ['id', 'n'], 'on conflict do nothing');
const stored = async (ids: string[]) =>
  (await db.client.execute({ sql: `select sequence, id from t where id in (${ids.map(() => '?').join(', ')}) order by sequence`, args: ids })).rows.map(
    (r) => ({
      sequence: Number(r.sequence),
      id: String(r.id),
    }),
  );
const insert = (rows: [string, number | null][]) => db.write((w) => insertSequenced(w.execute, 't', INSERT, [jsonRows(rows)]));

describe('results as one JSON value', () => {
  test('an insert answers the rows it inserted, in order, and none it skipped', async () => {
    const first = await insert([
      ['a', 1],
      ['b', 2],
      ['c', null],
    ]);
    expect(first.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(first.map((r) => r.sequence)).toEqual([1, 2, 3]);
    const second = await insert([
      ['b', 9],
      ['d', 4],
      ['a', 9],
      ['e', 5],
    ]);
    // A skipped duplicate may still use up a sequence: only the rows' own are answered.
    expect(second).toEqual(await stored(['d', 'e']));
    expect(second.map((r) => r.id)).toEqual(['d', 'e']);
    expect(second[0]!.sequence).toBeGreaterThan(3);
    expect(second[1]!.sequence).toBeGreaterThan(second[0]!.sequence);
    expect(await insert([['d', 0]])).toEqual([]);
  });

  test('after the newest rows were deleted, new rows still get new sequences and only they are answered', async () => {
    const [newest] = await stored(['e']);
    await db.write((w) => w.execute("delete from t where id in ('d', 'e')"));
    const again = await insert([
      ['f', 6],
      ['a', 0],
    ]);
    expect(again).toEqual(await stored(['f']));
    expect(again[0]!.sequence).toBeGreaterThan(newest!.sequence);
  });

  test('a select answers its rows with their types', async () => {
    const rows = await selectAsJson<[string, number | null]>(
      db.client.execute.bind(db.client),
      ['id', 'n'],
      'select id, n from t where id in (select value from json_each(?)) order by id',
      [JSON.stringify(['a', 'c', 'f', 'zz'])],
    );
    expect(rows).toEqual([
      ['a', 1],
      ['c', null],
      ['f', 6],
    ]);
    expect(await selectAsJson(db.client.execute.bind(db.client), ['id'], 'select id from t where 0')).toEqual([]);
  });
});
