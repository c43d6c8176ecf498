/**
 * What attendance reads of the punches (punches/counted.ts `countedIn`): the counted punches of
 * some people in a span, each marked `corrected` (manual, imported), `unconfirmed` (flagged
 * `new_address`: sent from an address its terminal is not pinned to), `ahead` (flagged
 * `clock_ahead`: dated after it arrived) and `ambiguous` (flagged `dst_overlap`: a wall time the
 * fall-back night showed twice), on two indexes: the enrollee index, read alone (no row of a punch
 * read), and the small partial index of the punches to review.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { NEW_ADDRESS_FLAG } from '../../../src/modules/devices';
import { counted } from '../../../src/modules/punches/counted';
import { CLOCK_AHEAD_FLAG, CLOCK_RESET_FLAG, TO_REVIEW_SQL } from '../../../src/modules/punches/tables';
import { type Database, migrateDatabase, openDatabase } from '../../../src/platform/db/client';
import { resolutionFlags } from '../../../src/platform/time/zone';
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
    const shown = rows
      .map((r) => [r.enrolleeId, r.at - T, r.corrected, r.unconfirmed, r.ahead, r.ambiguous])
      .sort((x, y) => String(x).localeCompare(String(y)));
    expect(shown).toEqual([
      ['A', 0, false, false, false, false],
      ['A', 0, false, true, false, true],
      ['A', 8 * 3_600_000, true, false, false, false],
      ['B', 60_000, false, true, false, false],
    ]);
  });

  test('marks each punch flagged clock_ahead ahead and each flagged dst_overlap ambiguous, and only those', async () => {
    await store('d1', { device: 'front', enrollee: 'D', at: T, flags: [CLOCK_AHEAD_FLAG] });
    await store('d2', { device: 'front', enrollee: 'D', at: T + 3_600_000, flags: ['stale_offset', 'dst_overlap'] });
    await store('d3', { device: 'front', enrollee: 'D', at: T + 7_200_000, flags: ['future_time'] });
    await store('d4', { device: 'front', enrollee: 'D', at: T + 9_000_000, flags: ['dst_gap', 'usb_file'] });
    const rows = await counted.countedIn((s) => db.client.execute(s), ['D'], T, T + 86_400_000);
    expect(rows.map((r) => [(r.at - T) / 60_000, r.unconfirmed, r.ahead, r.ambiguous]).sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual([
      [0, false, true, false],
      [60, false, false, true],
      [120, false, false, false],
      [150, false, false, false],
    ]);
  });

  test('marks each punch flagged clock_reset reset, and only those', async () => {
    const Y2K = Date.parse('2000-01-01T00:03:12Z');
    await store('e1', { device: 'front', enrollee: 'E', at: Y2K, flags: [CLOCK_RESET_FLAG] });
    await store('e2', { device: 'front', enrollee: 'E', at: Y2K + 3_600_000 });
    const rows = await counted.countedIn((s) => db.client.execute(s), ['E'], Y2K - 3_600_000, Y2K + 86_400_000);
    expect(rows.map((r) => [r.at - Y2K, r.reset, r.ahead]).sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual([
      [0, true, false],
      [3_600_000, false, false],
    ]);
  });

  test('the flagged are found on their partial index; the counted punches on the enrollee index alone', async () => {
    // The index's condition names the flags their day is flagged for: the terminals' trust gives
    // `new_address` (devices/identity.ts), ingest `clock_ahead` and `clock_reset`, a zone's overlap `dst_overlap`.
    for (const flag of [NEW_ADDRESS_FLAG, CLOCK_AHEAD_FLAG, CLOCK_RESET_FLAG, ...resolutionFlags('overlap')])
      expect(TO_REVIEW_SQL).toContain(JSON.stringify(flag));
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
    expect((await queryPlan(db.filePath, seen[0]!, args(seen[0]!))).join(' ')).toContain('USING INDEX fpa_punches_to_review');
    expect((await queryPlan(db.filePath, seen[1]!, args(seen[1]!))).join(' ')).toContain('USING COVERING INDEX fpa_punches_enrollee_day');
  });
});
