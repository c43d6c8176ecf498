/**
 * Helpers of the hostile-input tests: what the database holds, so a test can show that a
 * refused request stored nothing and changed nothing.
 */
import type { TestServer } from './harness';

async function tableNames(server: TestServer): Promise<string[]> {
  const rows = await server.fpa.db.client.execute("select name from sqlite_master where type = 'table' and name like 'fpa\\_%' escape '\\' order by name");
  return rows.rows.map((r) => String(r.name));
}

/** Row count of every table of the service. */
export async function tableCounts(server: TestServer): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of await tableNames(server)) {
    const result = await server.fpa.db.client.execute(`select count(*) as n from "${name}"`);
    out[name] = Number(result.rows[0]?.n ?? 0);
  }
  return out;
}

/**
 * Every row of every table, except bookkeeping that an accepted caller legitimately touches
 * without anything happening (an agent key's `last_used_at`, a terminal's `last_seen_at`).
 */
export async function tableContents(server: TestServer): Promise<Record<string, unknown[]>> {
  const volatile = new Set(['last_used_at', 'last_seen_at']);
  // Bookkeeping that every request changes by design: the shared agent rate-limit counters.
  const bookkeeping = new Set(['fpa_agent_rate_windows']);
  // Settled first: the attendance days and the leave anomalies follow the log after the commit,
  // so a step owed from the setup may still move a follower's position between two snapshots
  // (reading anomalies/ catches its follower up).
  await server.fpa.service.attendance.follower.catchUp();
  const anomalies = await server.admin.get('/anomalies/?limit=1');
  if (anomalies.status !== 200) throw new Error(`anomalies/ answered ${anomalies.status}`);
  const out: Record<string, unknown[]> = {};
  for (const name of await tableNames(server)) {
    if (bookkeeping.has(name)) continue;
    const result = await server.fpa.db.client.execute(`select * from "${name}" order by ${await storageOrder(server, name)}`);
    out[name] = result.rows.map((row) => Object.fromEntries(result.columns.filter((c) => !volatile.has(c)).map((c) => [c, row[c]])));
  }
  return out;
}

/** The order a table is stored in: its rowid, or, for a `WITHOUT ROWID` table (the attendance days), its primary key. */
async function storageOrder(server: TestServer, table: string): Promise<string> {
  const key = await server.fpa.db.client.execute(`select name from pragma_table_info('${table}') where pk > 0 order by pk`);
  const { rows } = await server.fpa.db.client.execute({ sql: 'select sql from sqlite_master where name = ?', args: [table] });
  return /WITHOUT ROWID$/i.test(String(rows[0]?.sql ?? '').trim()) ? key.rows.map((r) => `"${String(r.name)}"`).join(', ') : 'rowid';
}

/** Every device event as one line of text each, to search for data that must never be logged. */
export async function deviceEventText(server: TestServer): Promise<string[]> {
  const result = await server.fpa.db.client.execute('select kind, message, details from fpa_device_events order by id');
  return result.rows.map((r) => `${String(r.kind)} ${String(r.message)} ${String(r.details)}`);
}
