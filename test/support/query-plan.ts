/**
 * SQLite's plan for a statement, as the server's libSQL (its own SQLite version) makes it, read
 * on a connection of its own that is closed after. Not on the server's client: an EXPLAIN run
 * there left that reading connection on its snapshot of the moment, so every later read of the
 * test saw stale rows. Not with bun:sqlite either: its newer SQLite plans differently.
 */
import { createClient, type InValue } from '@libsql/client';

export async function queryPlan(filePath: string | null, sql: string, args: readonly InValue[] = []): Promise<string[]> {
  if (!filePath) throw new Error('a query plan needs a file: database');
  const own = createClient({ url: `file:${filePath}` });
  try {
    const plan = await own.execute({ sql: `explain query plan ${sql}`, args: [...args] });
    return plan.rows.map((r) => String(r.detail));
  } finally {
    own.close();
  }
}
