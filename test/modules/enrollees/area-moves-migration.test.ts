/**
 * Migration 0028 on the area moves an earlier release recorded: their terminals let go of the
 * person when the move was made (that release took them off at once), so each is marked followed
 * at its `changed_at`: none is left for job `follow-area-moves`, nor keeps the areas it left in
 * the person's terminals' scope.
 */
import { describe, expect, test } from 'bun:test';
import { migrateDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { databaseBefore, insertRows } from '../../support/old-database';

const movedAt = Date.parse('2026-10-01T08:00:00Z');

describe('migration 0028 on moves recorded before it', () => {
  test('marks each followed when it was made: none is pending', async () => {
    const tmp = tempDir('fpa-moves-0028-');
    const db = await databaseBefore(tmp.dir, '0028');
    try {
      await insertRows(db, [
        ['fpa_employees', { id: 'E1', name: 'Person 1', active: 1, created_at: movedAt }],
        ['fpa_enrollees', { id: 'enrollee-1', employee_key: 'E1', device_pin: '10000', display_name: 'Person 1', created_at: movedAt, updated_at: movedAt }],
        ['fpa_enrollee_areas', { enrollee_id: 'enrollee-1', area_id: 'area-b' }],
        // A move of 0025's time (with its date) and one from before it (without).
        ['fpa_enrollee_area_changes', { enrollee_id: 'enrollee-1', changed_at: movedAt - 86_400_000, areas_before: '["area-c"]' }],
        ['fpa_enrollee_area_changes', { enrollee_id: 'enrollee-1', changed_at: movedAt, areas_before: '["area-a"]', effective_from: '2026-10-02' }],
      ]);
      await migrateDatabase(db);
      const rs = await db.client.execute('select changed_at, terminals_left_at from fpa_enrollee_area_changes order by changed_at');
      expect(rs.rows.map((r) => [Number(r.changed_at), Number(r.terminals_left_at)])).toEqual([
        [movedAt - 86_400_000, movedAt - 86_400_000],
        [movedAt, movedAt],
      ]);
      const pending = await db.client.execute('select count(*) as n from fpa_enrollee_area_changes where terminals_left_at is null');
      expect(Number(pending.rows[0]?.n)).toBe(0);
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
