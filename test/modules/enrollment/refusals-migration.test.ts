/**
 * Migration 0018: the refusals standing in a database of an earlier release (read from the sync
 * status and its detail, as the diagnostics read them then) are kept beside the status, so a retry
 * of the reconciliation no longer wipes them; the other rows have none.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { migrateDatabase, openDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { migrationsBefore } from '../../support/old-database';

const now = Date.parse('2026-03-20T06:00:00Z');

describe('migration 0018', () => {
  test('keeps the refusals standing (the algorithm, by the terminal or before sending; a full terminal), and no other', async () => {
    const tmp = tempDir('fpa-refusals-');
    const db = await openDatabase({ url: `file:${join(tmp.dir, 'fpa.db')}`, backgroundCheckpoint: false });
    try {
      await migrate(db.orm, { migrationsFolder: migrationsBefore(tmp.dir, '0018') });
      const rows: [string, string, string | null][] = [
        ['t-refused', 'incompatible', 'Return=-30 (unknown code)'],
        ['t-judged', 'incompatible', 'device algorithm 12 does not accept 10'],
        ['t-full', 'failed', 'Return=-1001 (the terminal is full)'],
        ['t-expired', 'failed', 'the command expired before the terminal answered'],
        ['t-pending', 'pending', null],
        ['t-present', 'present', null],
      ];
      for (const [i, [id, status, detail]] of rows.entries()) {
        await db.client.execute({
          sql: 'insert into fpa_template_sync (template_id, device_id, status, template_version, detail, updated_at) values (?, ?, ?, 1, ?, ?)',
          args: [id, 'dev-1', status, detail, now + i],
        });
      }
      await migrateDatabase(db);
      const rs = await db.client.execute('select template_id, refusal, refused_at, refused_code from fpa_template_sync order by updated_at');
      expect(rs.rows.map((r) => [r.template_id, r.refusal, r.refused_at, r.refused_code])).toEqual([
        ['t-refused', 'incompatible', now, -30],
        ['t-judged', 'incompatible', now + 1, null],
        ['t-full', 'full', now + 2, -1001],
        ['t-expired', null, null, null],
        ['t-pending', null, null, null],
        ['t-present', null, null, null],
      ]);
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
