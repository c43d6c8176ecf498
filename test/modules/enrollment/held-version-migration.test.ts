/**
 * Migration 0035: a template `present` on a terminal in a database of an earlier release is held
 * there in the version of its row; the other rows had not kept a version the terminal confirmed.
 */
import { describe, expect, test } from 'bun:test';
import { migrateDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { databaseBefore, insertRows } from '../../support/old-database';

const now = Date.parse('2026-11-20T06:00:00Z');

describe('migration 0035', () => {
  test('a present row is held in its version; pending, failed and incompatible ones hold none known', async () => {
    const tmp = tempDir('fpa-held-');
    const db = await databaseBefore(tmp.dir, '0035');
    try {
      const rows: [string, string, number][] = [
        ['t-present', 'present', 3],
        ['t-pending', 'pending', 2],
        ['t-failed', 'failed', 2],
        ['t-incompatible', 'incompatible', 1],
      ];
      await insertRows(
        db,
        rows.map(([id, status, version], i) => [
          'fpa_template_sync',
          { template_id: id, device_id: 'dev-1', status, template_version: version, updated_at: now + i },
        ]),
      );
      await migrateDatabase(db);
      const rs = await db.client.execute('select template_id, status, template_version, held_version from fpa_template_sync order by updated_at');
      expect(rs.rows.map((r) => [r.template_id, r.status, r.template_version, r.held_version])).toEqual([
        ['t-present', 'present', 3, 3],
        ['t-pending', 'pending', 2, null],
        ['t-failed', 'failed', 2, null],
        ['t-incompatible', 'incompatible', 1, null],
      ]);
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
