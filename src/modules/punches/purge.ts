/**
 * Retention of punches: the oldest ones deleted in batches, each batch in the table's own order.
 * Most are found by walking the table from its start (`purgeFromTheStart`), the rest through the
 * enrollee index (`purgeByDay`).
 *
 * The rows of a day are found through the enrollee index, whose leading column is the day
 * (buckets.ts), index only. Deleting them in that order (person by person) put nearly every row of
 * a batch on a page of its own in the table and the `id` index, whose pages are in upload order:
 * a page holds the punches of one terminal's upload, about ten people, so a day's pages were
 * rewritten once per batch that reached them (at 1M punches, about 3.5 MB of WAL for 1,000 rows,
 * and a batch's commit cost more than its deletes). Sorted by sequence (the rowid), a batch
 * empties whole table and `id` pages instead. The other two indexes lead with the day: a
 * terminal's day is one run of the dedupe index (terminal, then its local date), and a day is one
 * corner of the enrollee index, so a day's deletes empty runs of both instead of taking a few
 * entries out of every person's pages of all history.
 */
import { getTableName } from 'drizzle-orm';
import type { Database } from '../../platform/db/client';
import { PurgePace } from '../../platform/db/purge';
import { yieldToOthers } from '../../platform/event-loop';
import { BUCKET_SQL, bucketOf } from './buckets';
import { punches, RESET_CLOCK_DATED_BEFORE } from './tables';

/** Rows of the first batch; the next ones are sized by PurgePace. */
const FIRST_BATCH = 1000;

/**
 * Rows read per statement: a window of the table walked from its start, or sequences read and
 * sorted through the index (index only), each a few milliseconds of the thread that answers
 * requests.
 */
const PIECE = 25_000;

/** The punch table's name, for the raw statements. */
const TABLE = getTableName(punches);

/**
 * A window of the walk in the table's order that finds fewer old punches than this share of its
 * rows ends the walk: the table's oldest rows are behind it, and the rest are found by the index.
 */
const WALK_DENSITY = 0.5;

/**
 * The punches a purge up to `cutoff` deletes, as SQL with two arguments (the floor, the cutoff):
 * dated before it, and not dated by a clock that started over (those go by when they came:
 * `purgeResetClockReceivedBefore`).
 */
const OLD = 'punched_at >= ? and punched_at < ?';

/**
 * Deletes the punches recorded before `cutoff` (an instant), but those of a clock that started
 * over; returns how many. `piece`: PIECE, smaller in tests.
 */
export async function purgePunchesBefore(db: Database, cutoff: number, piece = PIECE): Promise<number> {
  const pace = new PurgePace(FIRST_BATCH, 50);
  return (await purgeFromTheStart(db, cutoff, piece, pace)) + (await purgeByDay(db, cutoff, piece, pace));
}

/**
 * Deletes the punches of a clock that started over (dated before RESET_CLOCK_DATED_BEFORE) that
 * arrived before `cutoff`; returns how many. A few rows, found on the enrollee index's first days.
 */
export async function purgeResetClockReceivedBefore(db: Database, cutoff: number): Promise<number> {
  return db.write(async ({ execute }) => {
    const done = await execute({
      sql: `delete from ${TABLE} where ${BUCKET_SQL} <= ? and punched_at < ? and received_at < ?`,
      args: [bucketOf(RESET_CLOCK_DATED_BEFORE), RESET_CLOCK_DATED_BEFORE, cutoff],
    });
    return done.rowsAffected;
  });
}

/**
 * Terminals upload as they punch, so the oldest punches are mostly the table's first rows. The
 * table is walked from its start, a window of `piece` rows at a time, and each window's old
 * punches deleted: every table page of the oldest days is emptied once. Read through the
 * enrollee index instead, a day larger than a piece (at 10M punches a day is 200,000) came in
 * pieces spread over all of the day's pages, each page rewritten by every piece (on a copy of
 * 10M punches: 17-20 µs a row, against 10 µs a day at a time). Ends at the first window that
 * is mostly recent punches; what is older still (a late upload, an import) is left to `purgeByDay`.
 */
async function purgeFromTheStart(db: Database, cutoff: number, piece: number, pace: PurgePace): Promise<number> {
  let after = 0;
  let total = 0;
  for (;;) {
    const { rows } = await db.client.execute({
      sql: `select json_group_array(sequence) filter (where ${OLD}) as found, count(*) as seen, max(sequence) as last from (select sequence, punched_at from ${TABLE} where sequence > ? order by sequence limit ?)`,
      args: [RESET_CLOCK_DATED_BEFORE, cutoff, after, piece],
    });
    const seen = Number(rows[0]?.seen ?? 0);
    if (seen === 0) return total;
    after = Number(rows[0]?.last);
    const sequences = JSON.parse(String(rows[0]?.found ?? '[]')) as number[];
    await yieldToOthers();
    total += await deleteSequences(db, cutoff, sequences, pace);
    if (sequences.length < seen * WALK_DENSITY) return total;
  }
}

/** What is left before the cutoff, found day by day through the enrollee index (index only) and deleted in the table's order. */
async function purgeByDay(db: Database, cutoff: number, piece: number, pace: PurgePace): Promise<number> {
  const last = bucketOf(cutoff - 1);
  let total = 0;
  for (;;) {
    // The oldest punches left (the oldest day first), as one sorted JSON array.
    const { rows } = await db.client.execute({
      sql: `select json_group_array(sequence) as found from (select sequence from (select sequence from ${TABLE} where ${BUCKET_SQL} >= ? and ${BUCKET_SQL} <= ? and ${OLD} order by ${BUCKET_SQL} limit ?) order by sequence)`,
      args: [bucketOf(RESET_CLOCK_DATED_BEFORE), last, RESET_CLOCK_DATED_BEFORE, cutoff, piece],
    });
    const sequences = JSON.parse(String(rows[0]?.found ?? '[]')) as number[];
    if (sequences.length === 0) return total;
    // The read is a piece of work of its own: requests go first before the first batch.
    await yieldToOthers();
    total += await deleteSequences(db, cutoff, sequences, pace);
  }
}

/** Deletes these punches (sorted by sequence) in batches sized by `pace`; the cutoff is checked again by each delete. */
async function deleteSequences(db: Database, cutoff: number, sequences: readonly number[], pace: PurgePace): Promise<number> {
  let total = 0;
  for (let from = 0; from < sequences.length; ) {
    const batch = sequences.slice(from, from + pace.size);
    from += batch.length;
    total += await pace.write(db, async ({ execute }) => {
      const done = await execute({
        sql: `delete from ${TABLE} where sequence in (select value from json_each(?)) and ${OLD}`,
        args: [JSON.stringify(batch), RESET_CLOCK_DATED_BEFORE, cutoff],
      });
      return done.rowsAffected;
    });
    await yieldToOthers();
  }
  return total;
}
