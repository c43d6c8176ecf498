/**
 * Migration 0040 on punches stored before it: the punches of a terminal clock that started over
 * (flagged `clock_reset` as they were stored, in every release) join the partial index of the
 * punches whose day is to be reviewed, so attendance marks their day (`countedIn`'s `reset`).
 */
import { describe, expect, test } from 'bun:test';
import { counted } from '../../../src/modules/punches/counted';
import { migrateDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { databaseBefore, insertRows, legacyPunchRow } from '../../support/old-database';

const Y2K = Date.parse('2000-01-01T00:03:12Z');

function punch(id: string, at: number, flags: string[]) {
  return legacyPunchRow(at, { id, device_pin: '10020', flags: JSON.stringify(flags), received_at: Date.parse('2026-11-19T07:00:00Z'), source: 'device' });
}

describe('migration 0040 on punches stored before it', () => {
  test('puts the clock_reset punches on the index of punches to review, and attendance reads them as such', async () => {
    const tmp = tempDir('fpa-reset-0040-');
    const db = await databaseBefore(tmp.dir, '0040');
    try {
      await insertRows(db, [punch('reset', Y2K, ['clock_reset']), punch('plain', Y2K + 3_600_000, [])]);
      await migrateDatabase(db);
      const index = await db.client.execute("select sql from sqlite_master where type = 'index' and name = 'fpa_punches_to_review'");
      expect(String(index.rows[0]?.sql)).toContain('"clock_reset"');
      const rows = await counted.countedIn((s) => db.client.execute(s), ['enrollee-1'], Y2K - 3_600_000, Y2K + 86_400_000);
      expect(rows.map((r) => [r.at - Y2K, r.reset]).sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual([
        [0, true],
        [3_600_000, false],
      ]);
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
