/** Keyset paging on two text keys (a date and an id, a name and an id), in that order. */
import { type AnyColumn, type SQL, sql } from 'drizzle-orm';
import { cursorOf, type ListName, twoKeyCursor } from '../http/paging';

/**
 * One page of `list` after a two-key cursor (`invalid_cursor` when it is not one of its own): `read` is given the
 * condition "after the cursor's keys" on the two columns (undefined on the first page) and how
 * many rows to take (limit + 1, to learn whether more follow), and orders by those columns;
 * `keysOf` gives a row's two keys for the next cursor. The condition is a row value: SQLite
 * seeks the (first, second) index to it, where `first > a or (first = a and second > b)` walked
 * the index from its start, so each page cost more than the one before.
 */
export async function twoKeyPage<R>(
  list: ListName,
  cursor: string | undefined,
  limit: number,
  columns: readonly [AnyColumn, AnyColumn],
  read: (after: SQL | undefined, count: number) => Promise<R[]>,
  keysOf: (row: R) => readonly [string, string],
): Promise<{ rows: R[]; next_cursor: string | null }> {
  const after = twoKeyCursor(list, cursor);
  const [first, second] = columns;
  const rows = await read(after ? sql`(${first}, ${second}) > (${after[0]}, ${after[1]})` : undefined, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page, next_cursor: rows.length > limit && last ? cursorOf(list, keysOf(last)) : null };
}
