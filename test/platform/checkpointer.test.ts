/**
 * The background checkpointer (platform/db/checkpointer.ts) on a real libSQL file: the WAL's
 * pages reach the database file from its thread while the writer's own automatic checkpoint is
 * only a safety net, and closing the database stops the thread.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { WRITER_CHECKPOINT_PAGES } from '../../src/platform/db/checkpointer';
import { openDatabase } from '../../src/platform/db/client';
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
});
