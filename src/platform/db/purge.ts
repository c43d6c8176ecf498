/** Retention deletes in bounded batches, so a long purge never holds the single writer for long. */
import { type SQL, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Database } from './client';

/**
 * Rows per purge transaction: the longest a purge holds the single writer (and, local statements
 * running on this thread, every request) is one batch: about 25 ms at 1M punches (5,000 rows
 * held it 0.17 s at 10M).
 */
export const PURGE_BATCH = 1000;

/**
 * Lets timers and requests run between two batches. A local libSQL statement runs on this
 * thread and its promise is already settled when awaited, so a loop of batches would otherwise
 * run as one long chain of microtasks: no request answered, no other write queued, until the
 * whole purge is over (measured: 1 s at 100k punches, 8 s at 1M).
 */
export function yieldToOthers(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Deletes matching rows PURGE_BATCH at a time (by rowid), one transaction per batch; returns how many. */
export async function deleteInBatches(db: Database, table: SQLiteTable, condition: SQL): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db.write(async ({ tx }) => {
      const result = await tx.run(sql`delete from ${table} where rowid in (select rowid from ${table} where ${condition} limit ${PURGE_BATCH})`);
      return result.rowsAffected;
    });
    total += deleted;
    if (deleted < PURGE_BATCH) return total;
    await yieldToOthers();
  }
}
