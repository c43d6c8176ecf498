/**
 * The day buckets of the punch table's enrollee index (punches/buckets.ts): the buckets a query
 * names for [start, end) are exactly those SQLite computes for the instants in it, so a punch is
 * never missed by a read that goes through the index.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { count } from 'drizzle-orm';
import fc from 'fast-check';
import { BUCKET_SQL, bucketGroups, punchedWithin } from '../../../src/modules/punches/buckets';
import { punches } from '../../../src/modules/punches/tables';
import { type Database, migrateDatabase, openDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { queryPlan } from '../../support/query-plan';

const tmp = tempDir('fpa-buckets-');
let db: Database;

beforeAll(async () => {
  db = await openDatabase({ url: `file:${join(tmp.dir, 'b.db')}` });
  await migrateDatabase(db);
});
afterAll(async () => {
  await db.close();
  tmp.cleanup();
});

const DAY = 86_400_000;
/** Instants from before 1970 to far ahead, with many near a day's edge. */
const instant = fc.oneof(
  fc.integer({ min: -5 * 365 * DAY, max: 200 * 365 * DAY }),
  fc.tuple(fc.integer({ min: -2000, max: 60_000 }), fc.integer({ min: -2, max: 2 })).map(([day, ms]) => day * DAY + ms),
);

describe('bucketGroups', () => {
  test('names every bucket of the range once, ascending, in groups no larger than asked', () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: 1, max: 40 * DAY }), fc.integer({ min: 1, max: 50 }), (start, length, size) => {
        const groups = bucketGroups(start, start + length, size);
        const all = groups.flat();
        expect(groups.every((g) => g.length > 0 && g.length <= size)).toBe(true);
        expect(all[0]).toBe(Math.trunc(start / DAY) || 0);
        expect(all[all.length - 1]).toBe(Math.trunc((start + length - 1) / DAY) || 0);
        all.forEach((b, i) => {
          if (i > 0) expect(b).toBe(all[i - 1]! + 1);
        });
      }),
    );
  });

  test('an empty range names none', () => {
    expect(bucketGroups(5 * DAY, 5 * DAY)).toEqual([]);
    expect(bucketGroups(5 * DAY, DAY)).toEqual([]);
  });

  test("agrees with SQLite's integer division, the index's own expression", async () => {
    await fc.assert(
      fc.asyncProperty(instant, fc.integer({ min: 1, max: 3 * DAY }), async (start, length) => {
        const named = new Set(bucketGroups(start, start + length).flat());
        for (const at of [start, start + length - 1, start + Math.floor(length / 2)]) {
          const { rows } = await db.client.execute({ sql: `select ${BUCKET_SQL.replace('punched_at', 'cast(? as integer)')} as b`, args: [at] });
          expect(named.has(Number(rows[0]!.b))).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  test('a query by enrollee and time goes through the index', async () => {
    const plan = await queryPlan(
      db.filePath,
      `select punched_at from fpa_punches where ${BUCKET_SQL} in (?, ?) and enrollee_id in (?) and punched_at >= ? and punched_at < ? and voided = 0`,
      [1, 2, 'e', DAY, 3 * DAY],
    );
    expect(plan[0]).toContain('fpa_punches_enrollee_day');
  });
});

describe('punchedWithin', () => {
  /** Punch rows at these instants (only what the table requires); answers nothing. */
  async function storeAt(instants: readonly number[]): Promise<void> {
    await db.client.execute('delete from fpa_punches');
    for (const [i, at] of instants.entries()) {
      await db.client.execute({
        sql: `insert into fpa_punches (id, device_id, device_serial, device_pin, punched_at, local_time, utc_offset_minutes, state, verify_type, work_code, raw, flags, received_at)
              values (?, 'd', 'S', ?, ?, '2026-01-01 00:00:00', 0, 0, 0, '', '', '[]', 0)`,
        args: [`p-${i}`, String(i), at],
      });
    }
  }

  test('selects exactly the punches in [start, end), either bound open, across day edges and before 1970', async () => {
    const bound = fc.option(instant, { nil: null });
    await fc.assert(
      fc.asyncProperty(fc.array(instant, { minLength: 1, maxLength: 12 }), bound, bound, async (instants, start, end) => {
        await storeAt(instants);
        const [row] = await db.orm.select({ n: count() }).from(punches).where(punchedWithin(start, end));
        const expected = instants.filter((at) => (start === null || at >= start) && (end === null || at < end)).length;
        expect(row!.n).toBe(expected);
      }),
      { numRuns: 150 },
    );
  });

  test('a range by instant alone goes through the enrollee index (there is no index on punched_at by itself)', async () => {
    const query = db.orm
      .select({ n: count() })
      .from(punches)
      .where(punchedWithin(10 * DAY, 12 * DAY))
      .toSQL();
    expect((await queryPlan(db.filePath, query.sql, query.params as number[]))[0]).toContain('USING COVERING INDEX fpa_punches_enrollee_day');
  });
});
