/**
 * Erasing data for good: templates destroyed, secrets replaced. SQLite's secure delete (on in
 * every write transaction of a `file:` database: client.ts) zeroes what a delete or an update
 * frees in the database's pages; but the WAL still holds those pages as they were, in its older
 * frames, and its checkpoints copy only the newer ones in. A TRUNCATE checkpoint copies the newer
 * pages in and empties the WAL. A reader, or the background checkpoint at that very moment, may
 * keep it from finishing: a few tries a moment apart, then the later checkpoints overwrite the
 * old frames as the WAL starts over, and the caller says so.
 */
import { createClient } from '@libsql/client';
import type { Database } from './client';

const TRUNCATE_ATTEMPTS = 40;
const TRUNCATE_RETRY_MS = 25;

/** One emptying at a time per database: erasures in a burst share it (the last one's pages are in by then). */
const running = new WeakMap<Database, Promise<boolean>>();

/**
 * Empties the WAL of a `file:` database (see above); answers whether it did. Erasures that come
 * while one is running wait for a fresh one after it: theirs committed after it started.
 */
export function emptyWal(db: Database): Promise<boolean> {
  if (db.kind !== 'file') return Promise.resolve(true);
  const before = running.get(db) ?? Promise.resolve(true);
  const next = before.then(() => truncate(db));
  running.set(db, next);
  void next.finally(() => {
    if (running.get(db) === next) running.delete(db);
  });
  return next;
}

/**
 * On a connection of its own without a busy timeout: a TRUNCATE checkpoint that waits (for a
 * reader, an export streaming) blocks every new write while it waits, and the service's
 * connections wait up to 5 s. Without one it answers at once, busy or done, and tries again a
 * moment later: no write is ever held behind it for more than one try.
 */
async function truncate(db: Database): Promise<boolean> {
  if (!db.filePath) return true;
  const own = createClient({ url: `file:${db.filePath}`, timeout: 0, intMode: 'number' });
  try {
    for (let attempt = 0; attempt < TRUNCATE_ATTEMPTS; attempt++) {
      try {
        const result = await own.execute('PRAGMA wal_checkpoint(TRUNCATE)');
        if (Number(result.rows[0]?.[0] ?? 0) === 0) return true;
      } catch {
        // Busy as an error rather than a result: tried again below.
      }
      await Bun.sleep(TRUNCATE_RETRY_MS);
    }
    return false;
  } finally {
    own.close();
  }
}
