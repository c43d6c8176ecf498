/** Pieces of the command queue's hand-written SQL that steer SQLite's planner or spell constant lists. */
import { type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';

/**
 * `column = value` that SQLite may not answer from an index (unary `+`). Used beside an id list:
 * without it the planner picks the status or device index and walks every pending (or every)
 * command of the table or device, instead of looking the few ids up by primary key.
 */
export function notIndexed(column: SQLiteColumn, value: string): SQL {
  return sql`+${column} = ${value}`;
}

/** A constant set of kinds as an SQL list (our own literals, never input). */
export function sqlList(kinds: ReadonlySet<string>): string {
  return [...kinds].map((k) => `'${k}'`).join(', ');
}
