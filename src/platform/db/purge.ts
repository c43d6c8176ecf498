/** Retention deletes in bounded batches, so a long purge never holds the single writer for long. */
import { type SQL, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Database } from './client';

export const PURGE_BATCH = 5000;

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
  }
}
