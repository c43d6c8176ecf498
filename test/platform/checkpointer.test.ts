/**
 * The background checkpointer (platform/db/checkpointer.ts) on a real libSQL file: the WAL's
 * pages reach the database file from its thread while the writer's own automatic checkpoint is
 * only a safety net, and closing the database stops the thread.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { WRITER_CHECKPOINT_PAGES } from '../../src/platform/db/checkpointer';
import { openDatabase, WAL_SIZE_LIMIT_BYTES } from '../../src/platform/db/client';
import { tempDir } from '../support/harness';

const tmp = tempDir('fpa-checkpointer-');
afterAll(() => tmp.cleanup());

async function until(condition: () => boolean, ms = 5_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('timed out');
    await Bun.sleep(20);
  }
}

describe('background checkpointer', () => {
  test('committed pages reach the database file from its thread, not from the writer', async () => {
    const path = join(tmp.dir, 'c.db');
    const db = await openDatabase({ url: `file:${path}` });
    try {
      expect(db.checkpointer).not.toBeNull();
      const fileBefore = statSync(path).size;
      // About 2 MB of rows: under the writer's safety net (64 MB), so only the thread copies them.
      await db.write(async (w) => {
        await w.execute('create table t (x text not null)');
        await w.execute({ sql: 'insert into t select hex(randomblob(500)) from generate_series(1, 2000)', args: [] });
      });
      const autocheckpoint = await db.write((w) => w.execute('PRAGMA wal_autocheckpoint'));
      expect(Number(autocheckpoint.rows[0]?.[0])).toBe(WRITER_CHECKPOINT_PAGES);
      await until(() => {
        const latest = db.checkpointer?.status().latest;
        return Boolean(latest && latest.log > 100 && latest.checkpointed === latest.log);
      });
      expect(statSync(path).size).toBeGreaterThan(fileBefore + 1_000_000);
    } finally {
      await db.close();
    }
  });

  test('without it (a host may turn it off) the writer checkpoints as SQLite does by default', async () => {
    const db = await openDatabase({ url: `file:${join(tmp.dir, 'd.db')}`, backgroundCheckpoint: false });
    try {
      expect(db.checkpointer).toBeNull();
      const autocheckpoint = await db.write((w) => w.execute('PRAGMA wal_autocheckpoint'));
      expect(Number(autocheckpoint.rows[0]?.[0])).toBe(1000);
    } finally {
      await db.close();
    }
  });

  test('a long WAL is drained on request, and the next write starts it over instead of growing it', async () => {
    const db = await openDatabase({ url: `file:${join(tmp.dir, 'drain.db')}` });
    const checkpointer = db.checkpointer!;
    try {
      // About 20 MB: past LONG_WAL_FRAMES (16 MB), under the writer's own checkpoint (64 MB).
      await db.write(async (w) => {
        await w.execute('create table t (x text not null)');
        await w.execute({ sql: 'insert into t select hex(randomblob(1000)) from generate_series(1, 10000)', args: [] });
      });
      await until(() => (checkpointer.status().latest?.log ?? 0) >= 4_096);
      expect(checkpointer.walIsLong()).toBe(true);
      const asked = performance.now();
      // Given time to finish even on a loaded machine: that it finished is the check below (every
      // frame checkpointed), and it took no longer than asked.
      await checkpointer.drain(20_000);
      expect(performance.now() - asked).toBeLessThan(20_000);
      const answer = checkpointer.status().latest!;
      expect(answer.checkpointed).toBe(answer.log);
      // Drained: the writer starts the log over at its next write, so it is not long any more.
      expect(checkpointer.walIsLong()).toBe(false);
      await db.write((w) => w.execute({ sql: 'insert into t values (?)', args: ['after'] }));
      const rounds = checkpointer.status().rounds;
      await until(() => checkpointer.status().rounds > rounds);
      expect(checkpointer.status().latest!.log).toBeLessThan(10);
      expect(checkpointer.walIsLong()).toBe(false);
    } finally {
      await db.close();
    }
  });

  test('a drain waits no longer than it is told to once the thread has stopped', async () => {
    const db = await openDatabase({ url: `file:${join(tmp.dir, 'stopped.db')}` });
    await db.close();
    const asked = performance.now();
    await db.checkpointer!.drain(50);
    expect(performance.now() - asked).toBeLessThan(1_000);
  });

  /** A burst of about 4 MB in one transaction, a complete checkpoint, then one small write. */
  async function burstThenWrite(limit: number | undefined, name: string): Promise<{ peak: number; after: number; pragma: number }> {
    const path = join(tmp.dir, name);
    const db = await openDatabase({ url: `file:${path}`, ...(limit === undefined ? {} : { walSizeLimitBytes: limit }) });
    try {
      await db.write(async (w) => {
        await w.execute('create table t (x text not null)');
        await w.execute({ sql: 'insert into t select hex(randomblob(1000)) from generate_series(1, 2000)', args: [] });
      });
      const peak = statSync(`${path}-wal`).size;
      await until(() => {
        const latest = db.checkpointer?.status().latest;
        return Boolean(latest && latest.log > 500 && latest.checkpointed === latest.log);
      });
      // The writer starts the log over and cuts the file back at this commit.
      await db.write((w) => w.execute({ sql: 'insert into t values (?)', args: ['after'] }));
      const pragma = Number((await db.write((w) => w.execute('PRAGMA journal_size_limit'))).rows[0]?.[0]);
      return { peak, after: statSync(`${path}-wal`).size, pragma };
    } finally {
      await db.close();
    }
  }

  test('the -wal file is cut back to journal_size_limit after a burst and a checkpoint, on whichever connection writes', async () => {
    const limit = 256 * 1024;
    const bounded = await burstThenWrite(limit, 'w.db');
    expect(bounded.peak).toBeGreaterThan(4 * limit);
    expect(bounded.pragma).toBe(limit);
    expect(bounded.after).toBeLessThanOrEqual(limit);
    // The control: with a limit above the burst the file keeps its size (SQLite's default).
    const unbounded = await burstThenWrite(1024 * 1024 * 1024, 'u.db');
    expect(unbounded.after).toBeGreaterThanOrEqual(unbounded.peak);
    // The default.
    const byDefault = await burstThenWrite(undefined, 'x.db');
    expect(byDefault.pragma).toBe(WAL_SIZE_LIMIT_BYTES);
  });
});
