/**
 * Retention of punches: the oldest ones deleted in batches, each batch in the table's own order.
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
import { PurgePace, yieldToOthers } from '../../platform/db/purge';
import { BUCKET_SQL, bucketOf } from './buckets';
import { punches } from './tables';

/** Rows of the first batch; the next ones are sized by PurgePace. */
const FIRST_BATCH = 1000;

/**
 * Sequences read and sorted per statement (index only): about 5 ms of the thread that answers
 * requests. A day at 1M punches (10,000 people) is about 40,000, so a table page of a day is
 * reached by about two pieces (each page holds one upload, some ten people).
 */
const PIECE = 25_000;

/** Deletes the punches recorded before `cutoff` (an instant); returns how many. `piece`: PIECE, smaller in tests. */
export async function purgePunchesBefore(db: Database, cutoff: number, piece = PIECE): Promise<number> {
  const table = getTableName(punches);
  const last = bucketOf(cutoff - 1);
  const pace = new PurgePace(FIRST_BATCH, 50);
  let total = 0;
  for (;;) {
    // The oldest punches left (the oldest day first), as one sorted JSON array.
    const { rows } = await db.client.execute({
      sql: `select json_group_array(sequence) as found from (select sequence from (select sequence from ${table} where ${BUCKET_SQL} <= ? and punched_at < ? order by ${BUCKET_SQL} limit ?) order by sequence)`,
      args: [last, cutoff, piece],
    });
    const sequences = JSON.parse(String(rows[0]?.found ?? '[]')) as number[];
    if (sequences.length === 0) return total;
    // The read is a piece of work of its own: requests go first before the first batch.
    await yieldToOthers();
    for (let from = 0; from < sequences.length; ) {
      const batch = sequences.slice(from, from + pace.size);
      from += batch.length;
      total += await pace.write(db, async ({ execute }) => {
        const done = await execute({ sql: `delete from ${table} where sequence in (select value from json_each(?))`, args: [JSON.stringify(batch)] });
        return done.rowsAffected;
      });
      await yieldToOthers();
    }
  }
}
