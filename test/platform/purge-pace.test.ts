import { afterAll, describe, expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { openDatabase } from '../../src/platform/db/client';
import { deleteInBatches, PurgePace } from '../../src/platform/db/purge';
import { tempDir } from '../support/harness';

const tmp = tempDir('fpa-purge-pace-');
const t = sqliteTable('t', { x: text('x').notNull() });
afterAll(() => tmp.cleanup());

describe('purge pace', () => {
  test('sizes the next batch to the time one takes, at most doubling or halving it', () => {
    const pace = new PurgePace(1000, 50);
    pace.took(10);
    expect(pace.size).toBe(1000);
    pace.took(40);
    expect(pace.size).toBe(500);
    pace.took(20);
    expect(pace.size).toBe(250);
    pace.took(1);
    expect(pace.size).toBe(500);
    pace.took(8);
    expect(pace.size).toBe(625);
  });

  test('stays within its bounds', () => {
    const pace = new PurgePace(100, 20, 300);
    for (let i = 0; i < 10; i++) pace.took(1000);
    expect(pace.size).toBe(20);
    for (let i = 0; i < 10; i++) pace.took(0);
    expect(pace.size).toBe(300);
  });

  test('waits for the checkpoint thread to copy a long WAL before its next batch, so the log starts over', async () => {
    const db = await openDatabase({ url: `file:${join(tmp.dir, 'p.db')}` });
    const checkpointer = db.checkpointer!;
    try {
      // About 20 MB of WAL (past the 16 MB that makes a purge wait), under the writer's own 64 MB.
      await db.write(async (w) => {
        await w.execute('create table t (x text not null)');
        await w.execute({ sql: 'insert into t select hex(randomblob(1000)) from generate_series(1, 10000)', args: [] });
      });
      const deadline = performance.now() + 5_000;
      while (!checkpointer.walIsLong() && performance.now() < deadline) await Bun.sleep(20);
      expect(checkpointer.walIsLong()).toBe(true);
      expect(await deleteInBatches(db, t, sql`1 = 1`)).toBe(10_000);
      // Its batches asked for the WAL to be drained, and a round answered with every frame copied.
      expect(checkpointer.walIsLong()).toBe(false);
      const latest = checkpointer.status().latest!;
      expect(latest.asked).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  });

  test('the log starts over between its batches even while other writes commit every few milliseconds', async () => {
    const path = join(tmp.dir, 'busy.db');
    const db = await openDatabase({ url: `file:${path}` });
    try {
      await db.write(async (w) => {
        await w.execute('create table bulk (x text not null)');
        await w.execute('create table small (x integer not null)');
      });
      // A terminal uploading beside the purge: a small commit every 2 ms.
      let running = true;
      const terminal = (async () => {
        while (running) {
          await db.write((w) => w.execute('insert into small values (1)'));
          await Bun.sleep(2);
        }
      })();
      // 160 batches of about 0.5 MB of WAL each: without the log starting over, it reaches the
      // writer's own 64 MB checkpoint, which copies and syncs it on this thread.
      const pace = new PurgePace(500, 500, 500);
      let longest = 0;
      for (let i = 0; i < 160; i++) {
        await pace.write(db, (w) => w.execute('insert into bulk select hex(randomblob(500)) from generate_series(1, 500)'));
        longest = Math.max(longest, statSync(`${path}-wal`).size);
      }
      running = false;
      await terminal;
      expect(longest).toBeLessThan(40 * 1024 * 1024);
    } finally {
      await db.close();
    }
  });
});
