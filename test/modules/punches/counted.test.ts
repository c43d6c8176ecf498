/**
 * What attendance reads of the punches (punches/counted.ts `countedIn`): the counted punches of
 * some people in a span, each marked `corrected` (manual, imported) and `unconfirmed` (flagged
 * `new_address`: sent from an address its terminal is not pinned to), on two indexes: the
 * enrollee index, read alone (no row of a punch read), and the small partial index of the flagged.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { NEW_ADDRESS_FLAG } from '../../../src/modules/devices';
import { counted } from '../../../src/modules/punches/counted';
import { NEW_ADDRESS_SQL } from '../../../src/modules/punches/tables';
import { type Database, migrateDatabase, openDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { queryPlan } from '../../support/query-plan';

const tmp = tempDir('fpa-counted-');
let db: Database;
const T = Date.parse('2026-11-16T08:00:00Z');

/** A punch row (only what the table requires, and what countedIn reads). */
async function store(id: string, p: { device: string; enrollee: string; at: number; flags?: string[]; source?: string; voided?: boolean }): Promise<void> {
  await db.client.execute({
    sql: `insert into fpa_punches (id, device_id, device_serial, device_pin, enrollee_id, punched_at, local_time, utc_offset_minutes, state, verify_type, work_code, raw, flags, received_at, source, voided)
          values (?, ?, 'S', ?, ?, ?, ?, 0, 0, 0, '', '', ?, 0, ?, ?)`,
    args: [
      id,
      p.device,
      id,
      p.enrollee,
      p.at,
      new Date(p.at).toISOString().slice(0, 19).replace('T', ' '),
      JSON.stringify(p.flags ?? []),
      p.source ?? 'device',
      p.voided ? 1 : 0,
    ],
  });
}

beforeAll(async () => {
  db = await openDatabase({ url: `file:${join(tmp.dir, 'c.db')}` });
  await migrateDatabase(db);
});
afterAll(async () => {
  await db.close();
  tmp.cleanup();
});

describe('countedIn', () => {
  test('marks each punch flagged new_address unconfirmed, and only that punch', async () => {
    await store('a1', { device: 'front', enrollee: 'A', at: T });
    // The same person at the same instant on another terminal, from an unconfirmed address.
    await store('a2', { device: 'back', enrollee: 'A', at: T, flags: ['dst_overlap', NEW_ADDRESS_FLAG] });
    await store('a3', { device: '', enrollee: 'A', at: T + 8 * 3_600_000, source: 'manual' });
    await store('b1', { device: 'back', enrollee: 'B', at: T + 60_000, flags: [NEW_ADDRESS_FLAG] });
    // Voided: not counted, flag or not.
    await store('b2', { device: 'back', enrollee: 'B', at: T + 120_000, flags: [NEW_ADDRESS_FLAG], voided: true });
    // Someone else's, and one outside the span.
    await store('c1', { device: 'back', enrollee: 'C', at: T, flags: [NEW_ADDRESS_FLAG] });
    await store('a4', { device: 'back', enrollee: 'A', at: T + 3 * 86_400_000, flags: [NEW_ADDRESS_FLAG] });
    const rows = await counted.countedIn((s) => db.client.execute(s), ['A', 'B'], T - 3_600_000, T + 86_400_000);
    const shown = rows.map((r) => [r.enrolleeId, r.at - T, r.corrected, r.unconfirmed]).sort((x, y) => String(x).localeCompare(String(y)));
    expect(shown).toEqual([
      ['A', 0, false, false],
      ['A', 0, false, true],
      ['A', 8 * 3_600_000, true, false],
      ['B', 60_000, false, true],
    ]);
  });

  test('the flagged are found on their partial index; the counted punches on the enrollee index alone', async () => {
    // The index's condition names the flag the terminals' trust gives (devices/identity.ts).
    expect(NEW_ADDRESS_SQL).toContain(JSON.stringify(NEW_ADDRESS_FLAG));
    const seen: string[] = [];
    await counted.countedIn(
      (s) => {
        seen.push(typeof s === 'string' ? s : s.sql);
        return db.client.execute(s);
      },
      ['A'],
      T,
      T + 86_400_000,
    );
    expect(seen).toHaveLength(2);
    const args = (sql: string) => Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 1);
    expect((await queryPlan(db.filePath, seen[0]!, args(seen[0]!))).join(' ')).toContain('USING INDEX fpa_punches_new_address');
    expect((await queryPlan(db.filePath, seen[1]!, args(seen[1]!))).join(' ')).toContain('USING COVERING INDEX fpa_punches_enrollee_day');
  });
});
