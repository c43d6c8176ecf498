/** Group commit (platform/db/group-commit.ts) on a real libSQL file: shared transactions, and a failure costing no one else. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { type Database, openDatabase, type WriteContext } from '../../src/platform/db/client';
import { GroupCommit } from '../../src/platform/db/group-commit';
import { tempDir } from '../support/harness';

const tmp = tempDir('fpa-group-commit-');
let db: Database;

beforeAll(async () => {
  db = await openDatabase({ url: `file:${join(tmp.dir, 'g.db')}` });
  await db.client.execute('create table t (v integer not null check (v >= 0))');
});
afterAll(async () => {
  await db.close();
  tmp.cleanup();
});

describe('group commit', () => {
  test('requests of one turn share one transaction and each gets its own result after the commit', async () => {
    const batches: number[][] = [];
    const group = new GroupCommit<number, number>(db, async ({ tx }, values) => {
      batches.push(values);
      for (const v of values) await tx.run(`insert into t (v) values (${v})`);
      return values.map((v) => v * 10);
    });
    const results = await Promise.all([1, 2, 3].map((v) => group.submit(v)));
    expect(results).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
    const rows = await db.client.execute('select v from t order by v');
    expect(rows.rows.map((r) => Number(r.v))).toEqual([1, 2, 3]);
  });

  test('a request that fails the shared transaction fails alone; the others are committed', async () => {
    await db.client.execute('delete from t');
    const group = new GroupCommit<number, number>(db, async ({ tx }, values) => {
      for (const v of values) await tx.run(`insert into t (v) values (${v})`);
      return values;
    });
    const settled = await Promise.allSettled([4, -1, 5].map((v) => group.submit(v)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const rows = await db.client.execute('select v from t order by v');
    expect(rows.rows.map((r) => Number(r.v))).toEqual([4, 5]);
  });

  test('a transaction takes at most maxPerTransaction requests; the rest ride in the next', async () => {
    const batches: number[][] = [];
    const group = new GroupCommit<number, number>(
      db,
      async (_w, values) => {
        batches.push(values);
        return values;
      },
      { maxPerTransaction: 2 },
    );
    expect(await Promise.all([1, 2, 3, 4, 5].map((v) => group.submit(v)))).toEqual([1, 2, 3, 4, 5]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  test('durable: false commits without syncing the WAL; every durable write after it syncs in full again', async () => {
    const syncOf = async (w: WriteContext) => Number((await w.execute('PRAGMA synchronous')).rows[0]?.[0]);
    const relaxed = new GroupCommit<number, number>(db, (w) => Promise.all([syncOf(w)]), { durable: false });
    const durable = new GroupCommit<number, number>(db, (w) => Promise.all([syncOf(w)]));
    // SQLite's levels: 1 NORMAL (the WAL synced at checkpoints only), 2 FULL (synced at every commit).
    expect(await relaxed.submit(0)).toBe(1);
    expect(await relaxed.submit(0)).toBe(1);
    expect(await durable.submit(0)).toBe(2);
    expect(await db.write((w) => syncOf(w))).toBe(2);
    expect(await relaxed.submit(0)).toBe(1);
    expect(await db.write((w) => syncOf(w))).toBe(2);
  });
});
