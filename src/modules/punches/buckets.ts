/**
 * The day buckets of the punch table's enrollee index (`fpa_punches_enrollee_day` in tables.ts):
 * a punch's bucket is `punched_at / 86400000` in SQLite's integer division (its UTC day). A query
 * by enrollee names the buckets its time range covers, so SQLite seeks each (enrollee, day)
 * instead of scanning; the expression must be written exactly as the index has it.
 */
import { and, gte, lt, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import { punches } from './tables';

const BUCKET_MS = 86_400_000;

/** The SQL of a punch's bucket, as the index is built on it. */
export const BUCKET_SQL = 'punched_at / 86400000';

/** SQLite's integer division truncates toward zero; so does this. */
export function bucketOf(instant: number): number {
  return Math.trunc(instant / BUCKET_MS) || 0; // never -0
}

/**
 * The buckets of instants in [start, end), in groups small enough to bind (a long range is read
 * group by group).
 */
export function bucketGroups(start: number, end: number, size = 400): number[][] {
  if (!(end > start)) return [];
  return bucketsBetween(bucketOf(start), bucketOf(end - 1), size);
}

/** The buckets from `first` to `last` (both included), in groups small enough to bind. */
export function bucketsBetween(first: number, last: number, size = 400): number[][] {
  const buckets: number[] = [];
  for (let b = first; b <= last; b++) buckets.push(b);
  return chunks(buckets, size);
}

/**
 * Punches in [start, end) by instant alone (either bound may be open), through the leading
 * bucket of the enrollee index: the table has no index on `punched_at` by itself, one index
 * fewer for every punch stored. The buckets narrow the scan to the days the range covers, and
 * `punched_at` (in the index too) to the range itself.
 */
export function punchedWithin(start: number | null, end: number | null): SQL | undefined {
  const bucket = sql.raw(BUCKET_SQL);
  const conditions: SQL[] = [];
  if (start !== null) conditions.push(sql`${bucket} >= ${bucketOf(start)}`, gte(punches.punchedAt, start));
  if (end !== null) conditions.push(sql`${bucket} <= ${bucketOf(end - 1)}`, lt(punches.punchedAt, end));
  return and(...conditions);
}
