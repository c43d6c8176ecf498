/**
 * Migration 0030 on punches voided before it, when a void's reason replaced the punch's
 * `correction_reason`: the void's reason moves to `void_reason`; a voided manual punch gets the
 * reason it was entered with back from its audit entry (null when that entry is gone); a
 * terminal's voided punch keeps no entry reason; punches not voided are left as they were.
 */
import { describe, expect, test } from 'bun:test';
import { migrateDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { databaseBefore, insertRows, legacyPunchRow } from '../../support/old-database';

const now = Date.parse('2026-10-01T08:00:00Z');

function punch(id: string, source: string, voided: boolean, reason: string | null, i: number) {
  const byTerminal = source === 'device';
  return legacyPunchRow(now + i * 60_000, {
    id,
    device_id: byTerminal ? 'device-1' : '',
    device_serial: byTerminal ? 'SN1' : '',
    source,
    voided: voided ? 1 : 0,
    correction_reason: reason,
  });
}

const audit = (targetId: string, action: string, reason: string, i: number) =>
  [
    'fpa_audit_log',
    { actor: 'hr@example.com', action, target_type: 'punch', target_id: targetId, details: JSON.stringify({ reason }), created_at: now + i },
  ] as const;

describe('migration 0030 on punches voided before it', () => {
  test("moves each void's reason to void_reason and gives a voided manual punch its own reason back", async () => {
    const tmp = tempDir('fpa-void-0030-');
    const db = await databaseBefore(tmp.dir, '0030');
    try {
      await insertRows(db, [
        punch('manual-voided', 'manual', true, 'entered twice', 1),
        audit('manual-voided', 'punch.manual', 'forgot to punch', 1),
        audit('manual-voided', 'punch.voided', 'entered twice', 2),
        punch('manual-voided-no-audit', 'manual', true, 'wrong person', 2),
        punch('device-voided', 'device', true, 'tapped twice', 3),
        audit('device-voided', 'punch.voided', 'tapped twice', 3),
        punch('manual-kept', 'manual', false, 'reader was down', 4),
        audit('manual-kept', 'punch.manual', 'reader was down', 4),
        punch('device-kept', 'device', false, null, 5),
      ]);
      await migrateDatabase(db);
      const rs = await db.client.execute('select id, correction_reason, void_reason from fpa_punches order by id');
      expect(rs.rows.map((r) => [r.id, r.correction_reason, r.void_reason])).toEqual([
        ['device-kept', null, null],
        ['device-voided', null, 'tapped twice'],
        ['manual-kept', 'reader was down', null],
        ['manual-voided', 'forgot to punch', 'entered twice'],
        ['manual-voided-no-audit', null, 'wrong person'],
      ]);
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
