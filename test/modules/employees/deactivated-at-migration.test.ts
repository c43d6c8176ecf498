/**
 * Migration 0041 on a directory kept before it: each employee gets `deactivated_at`, when they
 * became inactive. Before it, an employee was inactive only by being created so (`POST employees/
 * {"active": false}`; nothing changed `active` later): those are inactive since their creation,
 * the active ones have none. Retention's erasure of leavers counts from it.
 */
import { describe, expect, test } from 'bun:test';
import { migrateDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { databaseBefore, insertRows } from '../../support/old-database';

describe('migration 0041 on the employees kept before it', () => {
  test('an inactive employee is inactive since it was created; an active one has no date', async () => {
    const tmp = tempDir('fpa-employees-0041-');
    const db = await databaseBefore(tmp.dir, '0041');
    try {
      await insertRows(db, [
        ['fpa_employees', { id: 'A1', name: 'Ada Active', active: 1, created_at: Date.parse('2026-01-05T09:00:00Z') }],
        ['fpa_employees', { id: 'L1', name: 'Lea Left', active: 0, created_at: Date.parse('2026-02-07T10:30:00Z') }],
      ]);
      await migrateDatabase(db);
      const rows = await db.client.execute('select id, active, created_at, deactivated_at from fpa_employees order by id');
      expect(rows.rows.map((r) => [r.id, r.active, r.deactivated_at])).toEqual([
        ['A1', 1, null],
        ['L1', 0, Date.parse('2026-02-07T10:30:00Z')],
      ]);
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
