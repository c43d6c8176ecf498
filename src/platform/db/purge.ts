/** Retention deletes in bounded batches, so a long purge never holds the single writer for long. */
import { type SQL, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { yieldToOthers } from '../event-loop';
import type { Database, WriteContext } from './client';

/** Rows of the first purge transaction; the next ones are sized by PurgePace. */
const PURGE_BATCH = 1000;

/**
 * How long one purge transaction should hold the single writer (ms): local statements run on
 * this thread, so it is also how long every request waits behind it. A fixed number of rows held
 * it longer as the database grew (a row of a larger index costs more to delete: 1,000 rows took
 * about 25 ms at 1M punches, 5,000 rows 0.17 s at 10M), so the batches are sized by time.
 */
const PURGE_WRITE_MS = 10;

/** The longest a purge waits between two batches for the checkpoint thread to copy the WAL (ms). */
const DRAIN_WAIT_MS = 1_000;

/**
 * How long a purge writes before it lets the checkpoint thread copy the WAL (ms). The thread's
 * own reports come too late for it: at 1M punches a purge batch dirties about 3.5 MB, so 100 ms
 * of batches is ~35 MB, and the log grew past the writer's 64 MB between two reports.
 */
const DRAIN_EVERY_MS = 100;

/**
 * Sizes a purge's batches by time: each batch has as many units (rows, people) as the last one
 * deleted in PURGE_WRITE_MS, within [min, max]; a slow batch (a cold page, a slow sync) halves
 * the next at most, a fast one doubles it at most, so one outlier neither stalls nor starves it.
 */
export class PurgePace {
  private units: number;
  private drainedAt = performance.now();

  constructor(
    first: number,
    private readonly min = 1,
    private readonly max = first * 4,
  ) {
    this.units = first;
  }

  /** Units for the next batch. */
  get size(): number {
    return this.units;
  }

  /**
   * Runs one batch as its own write and sizes the next by it, timed from inside the transaction
   * to its commit: the wait for the writer is other writes' time, and the commit (writing the
   * pages the deletes dirtied) is this batch's.
   */
  async write<T>(db: Database, batch: (w: WriteContext) => Promise<T>): Promise<T> {
    let begun = 0;
    const result = await db.write((w) => {
      begun = performance.now();
      return batch(w);
    });
    this.took(performance.now() - begun);
    // Batch after batch, the WAL is never found all copied when the next begins, so it grows
    // until the writer copies and syncs 64 MB on this thread (checkpointer.ts): wait for the
    // checkpoint thread instead, so that the next write starts the log over. A round copies the
    // frames there were when it began: a terminal's upload committed while it ran leaves frames
    // it did not copy, and under uploads every few milliseconds the log grew to 64 MB all the
    // same. So the round is asked again until one ran with no commit beside it; those rounds copy
    // only the uploads' few frames, so they are short.
    const { checkpointer } = db;
    if (checkpointer && (checkpointer.walIsLong() || performance.now() - this.drainedAt >= DRAIN_EVERY_MS)) {
      const deadline = performance.now() + DRAIN_WAIT_MS;
      for (;;) {
        const commits = db.commits;
        await checkpointer.drain(Math.max(0, deadline - performance.now()));
        if (db.commits === commits || performance.now() >= deadline) break;
      }
      this.drainedAt = performance.now();
    }
    return result;
  }

  /** The last batch took `ms` for `size` units. */
  took(ms: number): void {
    const wanted = (this.units * PURGE_WRITE_MS) / Math.max(ms, 0.1);
    const bounded = Math.min(this.units * 2, Math.max(this.units / 2, wanted));
    this.units = Math.round(Math.min(this.max, Math.max(this.min, bounded)));
  }
}

/** Deletes matching rows in batches (by rowid, PurgePace), one transaction per batch; returns how many. */
export async function deleteInBatches(db: Database, table: SQLiteTable, condition: SQL): Promise<number> {
  const pace = new PurgePace(PURGE_BATCH, 50);
  let total = 0;
  for (;;) {
    const size = pace.size;
    const deleted = await pace.write(db, async ({ tx }) => {
      const result = await tx.run(sql`delete from ${table} where rowid in (select rowid from ${table} where ${condition} limit ${size})`);
      return result.rowsAffected;
    });
    total += deleted;
    if (deleted < size) return total;
    await yieldToOthers();
  }
}
