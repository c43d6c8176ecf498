/**
 * Many rows in one statement with one bound value: the rows travel as a JSON array of arrays and
 * SQLite's `json_each` unpacks them. The hot inserts (a terminal's punches, their events) used
 * multi-row `VALUES` lists before; preparing a statement with thousands of placeholders for every
 * batch and binding each value through the driver took about a sixth of their time (80,000
 * punches and their events in 2,000-row transactions: 16–18k rows/s as VALUES, 21–22k as JSON).
 *
 * `->>` gives each value its SQL type back: JSON strings become TEXT, integers INTEGER, null
 * NULL. Values must therefore be strings, finite numbers or null (booleans as 0/1). A column
 * named in `jsonColumns` takes an object and stores its JSON text (`->`), so a JSON document
 * (an event's data) is not encoded twice, once as text and again as a string inside the rows.
 * A text is stored up to its first NUL character, as with bound values through libsql-js.
 */
export type JsonRowValue = string | number | null | object;

/**
 * `insert into <table> (<columns>) select … from json_each(?) <suffix>`; bind one argument, the
 * JSON text of the rows (see `jsonRows`). `where true` lets an `on conflict` clause follow
 * (SQLite's parser otherwise takes it for a join constraint).
 */
export function insertFromJsonSql(table: string, columns: readonly string[], suffix = '', jsonColumns: readonly string[] = []): string {
  const values = columns.map((column, i) => `value ${jsonColumns.includes(column) ? '->' : '->>'} ${i}`).join(', ');
  return `insert into ${table} (${columns.join(', ')}) select ${values} from json_each(?) where true${suffix ? ` ${suffix}` : ''}`;
}

/** The bound argument of an `insertFromJsonSql` statement. */
export function jsonRows(rows: readonly (readonly JsonRowValue[])[]): string {
  return JSON.stringify(rows);
}
