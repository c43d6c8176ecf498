/**
 * Migration 0039 on people kept before it: the key the sort by name orders by (`name_key`, the
 * name folded as the search folds it) is added; the migration keys the names of plain ASCII (their
 * lower case), and the server's start keys the others (a SQL migration cannot fold accents). The
 * roster triggers of 0013 are kept (no table rebuild). After the start, `enrollees/?sort=name`
 * lists them ignoring case and accents; a tombstone's scrubbed name keeps an empty key.
 */
import { describe, expect, test } from 'bun:test';
import type { InValue } from '@libsql/client';
import { migrateDatabase } from '../../../src/platform/db/client';
import { startTestServer, tempDir } from '../../support/harness';
import { databaseBefore, insertRows } from '../../support/old-database';

const now = Date.parse('2026-10-01T08:00:00Z');

const person = (n: number, name: string, status = 'active') =>
  [
    'fpa_enrollees',
    {
      id: `00000000-0000-4000-8000-00000000000${n}`,
      employee_key: name ? `E${n}` : '',
      device_pin: String(10000 + n),
      display_name: name,
      status,
      created_at: now,
      updated_at: now,
    } satisfies Record<string, InValue>,
  ] as const;

describe('migration 0039 on people kept before it', () => {
  test('ASCII names are keyed by the migration, the others at the start; the sort by name then ignores case and accents', async () => {
    const tmp = tempDir('fpa-name-keys-0039-');
    const db = await databaseBefore(tmp.dir, '0039');
    try {
      await insertRows(db, [
        person(1, 'Zoë Zimmer'),
        person(2, 'Ångström Anders'),
        person(3, 'ada Lovelace'),
        person(4, 'Bruno KELLER'),
        person(5, 'Émile Zola'),
        person(6, '', 'deleted'),
      ]);
      const triggersBefore = (await db.client.execute("select count(*) as n from sqlite_master where type = 'trigger'")).rows[0]?.n;
      await migrateDatabase(db);
      const keys = await db.client.execute('select display_name, name_key from fpa_enrollees order by device_pin');
      expect(keys.rows.map((r) => [r.display_name, r.name_key])).toEqual([
        ['Zoë Zimmer', ''],
        ['Ångström Anders', ''],
        ['ada Lovelace', 'ada lovelace'],
        ['Bruno KELLER', 'bruno keller'],
        ['Émile Zola', ''],
        ['', ''],
      ]);
      expect((await db.client.execute("select count(*) as n from sqlite_master where type = 'trigger'")).rows[0]?.n).toBe(triggersBefore!);
    } finally {
      await db.close();
    }
    const server = await startTestServer({}, { dir: tmp.dir });
    try {
      const list = await server.admin.get('/enrollees/?sort=name');
      expect(list.body.results.map((p: { display_name: string }) => p.display_name)).toEqual([
        'ada Lovelace',
        'Ångström Anders',
        'Bruno KELLER',
        'Émile Zola',
        'Zoë Zimmer',
      ]);
      const keyed = await server.fpa.db.client.execute("select count(*) as n from fpa_enrollees where name_key = '' and display_name <> ''");
      expect(keyed.rows[0]?.n).toBe(0);
    } finally {
      await server.close();
      tmp.cleanup();
    }
  });
});
