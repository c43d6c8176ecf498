/**
 * Erasing data for good: templates destroyed, secrets replaced. SQLite's secure delete (on in
 * every write transaction of a `file:` database: client.ts) zeroes what a delete or an update
 * frees in the database's pages; but the WAL still holds those pages as they were, in its older
 * frames, and its checkpoints copy only the newer ones in. A TRUNCATE checkpoint copies the newer
 * pages in and empties the WAL. A reader, or the background checkpoint at that very moment, may
 * keep it from finishing: a few tries a moment apart, then the later checkpoints overwrite the
 * old frames as the WAL starts over, and the caller says so.
 */
import { existsSync } from 'node:fs';
import { type Client, createClient } from '@libsql/client';
import type { Database } from './client';

const TRUNCATE_ATTEMPTS = 40;
const TRUNCATE_RETRY_MS = 25;

/** Per database: the emptying running, and the one queued after it (null: none). */
interface Emptying {
  running: Promise<boolean> | null;
  queued: Promise<boolean> | null;
}
const emptyings = new WeakMap<Database, Emptying>();

/**
 * Empties the WAL of a `file:` database (see above); answers whether it did. One runs at a time;
 * erasures that come while one runs share the one queued after it (theirs committed after the
 * running one began), so a burst (the retention purge destroys 50 people's templates per
 * transaction) costs two emptyings, not one each.
 */
export function emptyWal(db: Database): Promise<boolean> {
  if (db.kind !== 'file') return Promise.resolve(true);
  let state = emptyings.get(db);
  if (!state) {
    state = { running: null, queued: null };
    emptyings.set(db, state);
  }
  const s = state;
  const start = () => {
    const run = truncate(db).finally(() => {
      if (s.running === run) s.running = null;
    });
    s.running = run;
    return run;
  };
  if (s.queued) return s.queued;
  if (!s.running) return start();
  const queued = s.running.then(() => {
    s.queued = null;
    return start();
  });
  s.queued = queued;
  return queued;
}

/**
 * On a connection of its own without a busy timeout: a TRUNCATE checkpoint that waits (for a
 * reader, an export streaming) blocks every new write while it waits, and the service's
 * connections wait up to 5 s. Without one it answers at once, busy or done, and tries again a
 * moment later: no write is ever held behind it for more than one try.
 */
async function truncate(db: Database): Promise<boolean> {
  // Gone meanwhile (a test's directory removed): opening it would make a new, empty one.
  if (!db.filePath || !existsSync(db.filePath)) return false;
  let own: Client;
  try {
    own = createClient({ url: `file:${db.filePath}`, timeout: 0, intMode: 'number' });
  } catch {
    return false;
  }
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
