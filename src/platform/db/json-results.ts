/**
 * Results read back as ONE value: the rows of a query as the JSON text of one row, parsed here.
 * The driver hands rows back one by one, each value converted on its own: for the few hundred
 * small rows of a terminal's upload (whose PINs these are, which punches were stored) reading
 * them cost more than finding them (measured: 200 rows of three columns about twice as long
 * as the same query answering one JSON row). The other half of json-rows.ts, which sends rows
 * as one value.
 *
 * JSON gives each value its SQL type back as JSON does: TEXT a string, INTEGER a number, NULL
 * null. Only for integers within 2^53 (sequences, instants) and text.
 */
import type { InArgs, ResultSet } from '@libsql/client';
import type { Execute } from './client';

/** The rows of `query` (a select of exactly `columns`), each as an array of its values. */
export async function selectAsJson<Row extends unknown[]>(execute: Execute, columns: readonly string[], query: string, args: InArgs = []): Promise<Row[]> {
  return rowsOfJson<Row>(await execute({ sql: asJsonSql(columns, query), args }));
}

/** The statement `selectAsJson` runs, for a batch of them (read `rowsOfJson` from each result). */
export function asJsonSql(columns: readonly string[], query: string): string {
  return `select json_group_array(json_array(${columns.join(', ')})) as found from (${query})`;
}

/** The rows of a result of `asJsonSql`. */
export function rowsOfJson<Row extends unknown[]>(result: ResultSet): Row[] {
  return JSON.parse(String(result.rows[0]?.found ?? '[]')) as Row[];
}

/**
 * Runs an insert without RETURNING (`insertFromJsonSql`) into `table`, whose `sequence` is its
 * AUTOINCREMENT rowid and which has an `id` column, in the caller's write transaction; answers
 * the (sequence, id) of the rows it inserted, in the order they were inserted. RETURNING would
 * hand each row back through the driver (see above); instead the highest sequence is read first
 * (the edge of the rowid b-tree): every row the insert adds gets a higher one (AUTOINCREMENT
 * never gives a new row a rowid at or below one the table holds), and no other row can, since
 * the transaction is the database's only writer; those rows are then read back as one value.
 */
export async function insertSequenced(execute: Execute, table: string, insertSql: string, args: InArgs): Promise<{ sequence: number; id: string }[]> {
  const { rows } = await execute(`select coalesce(max(sequence), 0) as floor from ${table}`);
  const floor = Number(rows[0]?.floor ?? 0);
  await execute({ sql: insertSql, args });
  const inserted = await selectAsJson<[number, string]>(execute, ['sequence', 'id'], `select sequence, id from ${table} where sequence > ? order by sequence`, [
    floor,
  ]);
  return inserted.sort((a, b) => a[0] - b[0]).map(([sequence, id]) => ({ sequence, id }));
}
