/**
 * Migration 0037 on punches stored before it: a terminal's punch dated more than the default drift
 * tolerance (2 minutes) after it arrived gets the flag `clock_ahead` that ingest now gives, beside
 * the flags it had; one ahead by less, one of a terminal's log uploaded after its time, and a
 * punch entered by hand are left as they were. The punches whose day is to review (that flag,
 * `new_address`, `dst_overlap`) are then on one partial index, which replaces 0034's.
 */
import { describe, expect, test } from 'bun:test';
import { migrateDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { databaseBefore, insertRows, legacyPunchRow } from '../../support/old-database';

const received = Date.parse('2026-11-16T06:58:00Z');

function punch(id: string, p: { aheadMs: number; source?: string; flags?: string[] }) {
  const manual = p.source === 'manual';
  return legacyPunchRow(received + p.aheadMs, {
    id,
    device_id: manual ? '' : 'device-1',
    device_serial: manual ? '' : 'SN1',
    device_pin: id,
    flags: JSON.stringify(p.flags ?? []),
    received_at: received,
    source: p.source ?? 'device',
  });
}

describe('migration 0037 on punches stored before it', () => {
  test('flags clock_ahead the terminals’ punches dated more than 2 minutes after they arrived, and only those', async () => {
    const tmp = tempDir('fpa-ahead-0037-');
    const db = await databaseBefore(tmp.dir, '0037');
    try {
      await insertRows(db, [
        punch('hour-fast', { aheadMs: 3_600_000 }),
        punch('hour-fast-unknown', { aheadMs: 3_600_000, flags: ['unknown_pin'] }),
        punch('days-ahead', { aheadMs: 3 * 86_400_000, flags: ['future_time'] }),
        punch('slightly-fast', { aheadMs: 90_000 }),
        punch('backlog', { aheadMs: -3 * 3_600_000 }),
        punch('by-hand', { aheadMs: 3_600_000, source: 'manual' }),
      ]);
      await migrateDatabase(db);
      const rs = await db.client.execute('select id, flags from fpa_punches order by id');
      expect(Object.fromEntries(rs.rows.map((r) => [r.id, JSON.parse(String(r.flags))]))).toEqual({
        backlog: [],
        'by-hand': [],
        'days-ahead': ['future_time', 'clock_ahead'],
        'hour-fast': ['clock_ahead'],
        'hour-fast-unknown': ['unknown_pin', 'clock_ahead'],
        'slightly-fast': [],
      });
      const indexes = await db.client.execute("select name from sqlite_master where type = 'index' and tbl_name = 'fpa_punches' and name like 'fpa_punches_%'");
      const names = indexes.rows.map((r) => String(r.name));
      expect(names).toContain('fpa_punches_to_review');
      expect(names).not.toContain('fpa_punches_new_address');
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
