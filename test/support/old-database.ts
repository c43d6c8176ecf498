/**
 * A database as an earlier release left it: this release's migrations folder cut before a
 * migration (the releases shipped the same files, in the same order), applied to a new file, and
 * rows written straight into its tables as that release wrote them. The test then migrates it
 * (migrateDatabase, or a start) and looks at what the newer migrations made of them.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InValue } from '@libsql/client';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { type Database, MIGRATIONS_FOLDER, openDatabase } from '../../src/platform/db/client';

/** The second release (188d27b) shipped migrations 0000 to 0006. */
export const SECOND_RELEASE = '0007';

/** A copy of the migrations folder whose journal stops before `tag` (its migrations with a smaller tag). */
export function migrationsBefore(dir: string, tag: string): string {
  const folder = join(dir, `migrations-before-${tag}`);
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  journal.entries = journal.entries.filter((e) => e.tag < tag);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

/** A new database file in `dir` (fpa.db) migrated as the release before `tag` migrated it; open, for the test to fill. */
export async function databaseBefore(dir: string, tag: string): Promise<Database> {
  const db = await openDatabase({ url: `file:${join(dir, 'fpa.db')}`, backgroundCheckpoint: false });
  await migrate(db.orm, { migrationsFolder: migrationsBefore(dir, tag) });
  return db;
}

/** Writes rows as an earlier release wrote them: table name and its columns' values, in order. */
export async function insertRows(db: Database, rows: readonly (readonly [string, Record<string, InValue>])[]): Promise<void> {
  for (const [table, values] of rows) {
    const columns = Object.keys(values);
    await db.client.execute({
      sql: `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      args: Object.values(values),
    });
  }
}

/**
 * A punch row as earlier releases wrote it, at the instant `at` (UTC wall time, offset 0), of
 * terminal SN1's PIN 10000, person enrollee-1 (E1); `fields` set or add any column (`source`,
 * `voided`, … where the release before the tested migration had them).
 */
export function legacyPunchRow(at: number, fields: Record<string, InValue> = {}): readonly [string, Record<string, InValue>] {
  return [
    'fpa_punches',
    {
      id: `punch-${at}`,
      device_id: 'device-1',
      device_serial: 'SN1',
      device_pin: '10000',
      enrollee_id: 'enrollee-1',
      employee_key: 'E1',
      punched_at: at,
      local_time: new Date(at).toISOString().slice(0, 19).replace('T', ' '),
      utc_offset_minutes: 0,
      state: 0,
      verify_type: 1,
      work_code: '0',
      raw: '',
      flags: '[]',
      received_at: at,
      ...fields,
    },
  ];
}
