/**
 * Migration 0035: a template `present` on a terminal in a database of an earlier release is held
 * there in the version of its row; one whose later version the terminal refused itself is taken
 * to hold the version before (deleted on a withdrawal, the proof waiting for it); the other rows
 * had not kept a version the terminal confirmed.
 */
import { describe, expect, test } from 'bun:test';
import { migrateDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { databaseBefore, insertRows } from '../../support/old-database';

const now = Date.parse('2026-11-20T06:00:00Z');

describe('migration 0035', () => {
  test('a present row is held in its version, a refused later version holds the one before; the others hold none known', async () => {
    const tmp = tempDir('fpa-held-');
    const db = await databaseBefore(tmp.dir, '0035');
    try {
      const rows: [string, string, number, number | null][] = [
        ['t-present', 'present', 3, null],
        ['t-pending', 'pending', 2, null],
        ['t-failed', 'failed', 2, null],
        ['t-incompatible', 'incompatible', 1, null],
        ['t-refused-v2', 'incompatible', 2, -30],
        ['t-refused-v1', 'incompatible', 1, -30],
        ['t-never-sent-v2', 'incompatible', 2, null],
      ];
      await insertRows(
        db,
        rows.map(([id, status, version, refused], i) => [
          'fpa_template_sync',
          { template_id: id, device_id: 'dev-1', status, template_version: version, refused_code: refused, updated_at: now + i },
        ]),
      );
      await migrateDatabase(db);
      const rs = await db.client.execute('select template_id, status, template_version, held_version from fpa_template_sync order by updated_at');
      expect(rs.rows.map((r) => [r.template_id, r.status, r.template_version, r.held_version])).toEqual([
        ['t-present', 'present', 3, 3],
        ['t-pending', 'pending', 2, null],
        ['t-failed', 'failed', 2, null],
        ['t-incompatible', 'incompatible', 1, null],
        ['t-refused-v2', 'incompatible', 2, 1],
        ['t-refused-v1', 'incompatible', 1, null],
        ['t-never-sent-v2', 'incompatible', 2, null],
      ]);
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
