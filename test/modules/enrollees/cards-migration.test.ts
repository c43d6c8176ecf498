/**
 * Migration 0007 on the cards a second-release database holds (that release took any 1 to 20
 * digits): leading zeros go where the number is one a terminal can hold (1 to 4294967295) and no
 * two people then share it; a card past 32 bits, a colliding one, zero and anything not decimal
 * digits are left as they were (README "Cards"), for an administrator to fix.
 */
import { describe, expect, test } from 'bun:test';
import { migrateDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { databaseBefore, insertRows, SECOND_RELEASE } from '../../support/old-database';

const now = Date.parse('2026-10-01T08:00:00Z');

/** Stored card → what migration 0007 leaves. */
const CARDS: readonly [string, string][] = [
  ['00042', '42'],
  ['04294967295', '4294967295'],
  ['0000999999999', '999999999'],
  ['0004294967296', '0004294967296'],
  ['09999999999', '09999999999'],
  ['000000000000012345678901', '000000000000012345678901'],
  ['007', '007'],
  ['0007', '0007'],
  ['0000', '0000'],
  ['0A1', '0A1'],
  ['5000000000', '5000000000'],
];

describe('migration 0007 on second-release cards', () => {
  test('normalises leading zeros only where the number fits 32 bits and no one else holds it', async () => {
    const tmp = tempDir('fpa-cards-0007-');
    const db = await databaseBefore(tmp.dir, SECOND_RELEASE);
    try {
      await insertRows(
        db,
        CARDS.flatMap(([card], i) => [
          ['fpa_employees', { id: `E${i}`, name: `Person ${i}`, active: 1, created_at: now }] as const,
          [
            'fpa_enrollees',
            { id: `enrollee-${i}`, employee_key: `E${i}`, device_pin: String(10_000 + i), display_name: `Person ${i}`, card, created_at: now, updated_at: now },
          ] as const,
        ]),
      );
      await migrateDatabase(db);
      const rs = await db.client.execute('select id, card from fpa_enrollees');
      const stored = new Map(rs.rows.map((r) => [String(r.id), String(r.card)]));
      expect(CARDS.map(([card], i) => [card, stored.get(`enrollee-${i}`)])).toEqual(CARDS.map(([card, after]) => [card, after]));
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
