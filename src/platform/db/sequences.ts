/**
 * The AUTOINCREMENT counters (`sqlite_sequence`) as the feeds and the restore read them.
 *
 * A feed's position (a punch's or an event's `sequence`) is handed out by SQLite's AUTOINCREMENT:
 * `sqlite_sequence` keeps the highest one ever handed out, even once those rows are purged, and
 * the next row gets a higher one. A caller's `after` beyond it can only be a cursor read from a
 * database that has since been replaced by an older copy without carrying its counters forward
 * (a restore from a backup by hand, a provider's point-in-time restore): the numbers between
 * the head and that cursor will be handed out again, to other rows, and a poller waiting after
 * its cursor would never see them. `fpa:restore` (cli/restore.ts) carries the counters forward;
 * for any other restore the feeds refuse such a cursor (README "Backups").
 */
import { type ErrorCode, FpaError } from '../errors';
import type { Database } from './client';

/** The code of the refusal (409) of an `after` beyond a feed's head. */
const CURSOR_AHEAD: ErrorCode = 'cursor_ahead';

/** The highest value AUTOINCREMENT has handed out for `table` (0 before its first row). */
export async function issuedUpTo(db: Pick<Database, 'client'>, table: string): Promise<number> {
  const result = await db.client.execute({ sql: 'select seq from sqlite_sequence where name = ?', args: [table] });
  return Number(result.rows[0]?.seq ?? 0);
}

/**
 * The feed's head when `after` is beyond it, null when it is not. An embedded replica may be a
 * moment behind its primary (README "Scale"), and a poller alternating instances may hold a
 * cursor another instance gave it: a replica syncs once and looks again before deciding.
 */
export async function headBehind(db: Pick<Database, 'client' | 'sync'>, table: string, after: number): Promise<number | null> {
  if (after <= 0) return null;
  const head = await issuedUpTo(db, table);
  if (after <= head) return null;
  if (!(await db.sync())) return head;
  const synced = await issuedUpTo(db, table);
  return after > synced ? synced : null;
}

/** Refuses (409 `cursor_ahead`, the head in `details.last_sequence`) an `after` beyond the feed's head. */
export async function refuseCursorAhead(db: Pick<Database, 'client' | 'sync'>, table: string, after: number): Promise<void> {
  const head = await headBehind(db, table, after);
  if (head === null) return;
  throw new FpaError(
    CURSOR_AHEAD,
    `after=${after} is beyond the last sequence ever handed out (${head}): the database was restored from an older copy; read again from after=${head} (or from your own last stored position), the sequences after it are new`,
    { after, last_sequence: head },
  );
}
