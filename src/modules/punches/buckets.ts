/**
 * The day buckets of the punch table's enrollee index (`fpa_punches_enrollee_day` in tables.ts):
 * a punch's bucket is `punched_at / 86400000` in SQLite's integer division (its UTC day). A query
 * by enrollee names the buckets its time range covers, so SQLite seeks each (enrollee, day)
 * instead of scanning; the expression must be written exactly as the index has it.
 */
import { chunks } from '../../platform/chunks';

const BUCKET_MS = 86_400_000;

/** The SQL of a punch's bucket, as the index is built on it. */
export const BUCKET_SQL = 'punched_at / 86400000';

/** SQLite's integer division truncates toward zero; so does this. */
function bucketOf(instant: number): number {
  return Math.trunc(instant / BUCKET_MS) || 0; // never -0
}

/**
 * The buckets of instants in [start, end), in groups small enough to bind (a long range is read
 * group by group).
 */
export function bucketGroups(start: number, end: number, size = 400): number[][] {
  if (!(end > start)) return [];
  const buckets: number[] = [];
  for (let b = bucketOf(start); b <= bucketOf(end - 1); b++) buckets.push(b);
  return chunks(buckets, size);
}
