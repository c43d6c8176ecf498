/**
 * A feed's `after` against the highest sequence ever handed out (platform/db/sequences.ts), on a
 * real libSQL file: purged rows do not lower the head, an `after` beyond it is refused with the
 * head, and an embedded replica a moment behind its primary syncs before it decides.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { type Database, openDatabase } from '../../src/platform/db/client';
import { headBehind, issuedUpTo, refuseCursorAhead } from '../../src/platform/db/sequences';
import { FpaError } from '../../src/platform/errors';
import { tempDir } from '../support/harness';

const tmp = tempDir('fpa-sequences-');
let db: Database;

beforeAll(async () => {
  db = await openDatabase({ url: `file:${join(tmp.dir, 'feed.db')}`, backgroundCheckpoint: false });
  await db.client.execute('create table feed (sequence integer primary key autoincrement, n integer)');
});
afterAll(async () => {
  await db.close();
  tmp.cleanup();
});

const append = async (count: number) => {
  for (let i = 0; i < count; i++) await db.client.execute('insert into feed (n) values (1)');
};

/** The database as a replica sees it: `sync` brings `behind` rows from the primary first. */
const replica = (behind: number) => ({
  client: db.client,
  syncs: 0,
  async sync() {
    this.syncs++;
    await append(behind);
    return true;
  },
});

describe('the head of a feed', () => {
  test('is 0 before the first row, and the highest ever handed out after (purged rows included)', async () => {
    expect(await issuedUpTo(db, 'feed')).toBe(0);
    expect(await headBehind(db, 'feed', 0)).toBeNull();
    expect(await headBehind(db, 'feed', 1)).toBe(0);
    await append(5);
    await db.client.execute('delete from feed where sequence > 2');
    expect(await issuedUpTo(db, 'feed')).toBe(5);
    expect(await headBehind(db, 'feed', 5)).toBeNull();
  });

  test('an after beyond it is refused with 409 cursor_ahead and the head', async () => {
    const refused = await refuseCursorAhead(db, 'feed', 999_999).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(FpaError);
    expect(refused).toMatchObject({ status: 409, code: 'cursor_ahead', details: { after: 999_999, last_sequence: 5 } });
    expect(await refuseCursorAhead(db, 'feed', 5)).toBeUndefined();
  });

  test('a replica behind its primary syncs before deciding: a cursor another instance gave is not refused', async () => {
    const behind = replica(2);
    expect(await headBehind(behind, 'feed', 7)).toBeNull();
    expect(behind.syncs).toBe(1);
    // Still beyond after the sync: refused with the synced head.
    const lost = replica(1);
    expect(await headBehind(lost, 'feed', 100)).toBe(8);
    // Within the head it never syncs.
    const current = replica(1);
    expect(await headBehind(current, 'feed', 8)).toBeNull();
    expect(current.syncs).toBe(0);
  });
});
