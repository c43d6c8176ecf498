/**
 * The spans of stored punches, read from the edges of the enrollee index (its first and last
 * day bucket, buckets.ts) rather than from every punch: the first and last instant or local
 * date of the attributed ones (attendance), and the first and last bucket holding any punch
 * (the open ends of a listing's range, listing.ts).
 */

import { and, eq, getTableName, gte, isNotNull, lt, sql } from 'drizzle-orm';
import type { Execute, Queryable } from '../../platform/db/client';
import { BUCKET_SQL } from './buckets';
import { punches } from './tables';

const DAY_MS = 86_400_000;

/**
 * First and last instant of an enrollee's punches, or of every enrollee's (null without any).
 * For one enrollee this reads the whole table (the enrollee index is by day): only events an
 * earlier version logged without their span ask it.
 */
export async function spanOf(q: Queryable, enrolleeId?: string): Promise<{ first: number; last: number } | null> {
  if (enrolleeId === undefined) return attributedSpan(q);
  const [row] = await q
    .select({ first: sql<number | null>`min(${punches.punchedAt})`, last: sql<number | null>`max(${punches.punchedAt})` })
    .from(punches)
    .where(eq(punches.enrolleeId, enrolleeId));
  return row && row.first !== null && row.last !== null ? { first: row.first, last: row.last } : null;
}

/**
 * The first and last instant of any attributed punch, from the edges of the enrollee index:
 * its first and last day bucket holding one, then the extreme instant inside that bucket. A
 * plain min()/max() of `punched_at` would read every punch (no index leads with it).
 */
async function attributedSpan(q: Queryable): Promise<{ first: number; last: number } | null> {
  const bucket = sql.raw(BUCKET_SQL);
  const edge = async (end: 'first' | 'last'): Promise<number | null> => {
    const found = await edgeBucket(q, end);
    if (found === null) return null;
    const extreme = end === 'first' ? sql<number | null>`min(${punches.punchedAt})` : sql<number | null>`max(${punches.punchedAt})`;
    const [row] = await q
      .select({ at: extreme })
      .from(punches)
      .where(and(sql`${bucket} = ${found}`, isNotNull(punches.enrolleeId)));
    return row?.at ?? null;
  };
  const first = await edge('first');
  const last = first === null ? null : await edge('last');
  return first !== null && last !== null ? { first, last } : null;
}

/** The first or last day bucket of the enrollee index holding an attributed punch (an index edge: a short scan from its end). */
async function edgeBucket(q: Queryable, end: 'first' | 'last'): Promise<number | null> {
  const bucket = sql.raw(BUCKET_SQL);
  const [found] = await q
    .select({ bucket: sql<number>`${bucket}` })
    .from(punches)
    .where(isNotNull(punches.enrolleeId))
    .orderBy(end === 'first' ? sql`${bucket} asc` : sql`${bucket} desc`)
    .limit(1);
  return found ? Number(found.bucket) : null;
}

/**
 * The local dates of the first and last attributed punch (null without any), from the edges
 * of the enrollee index alone where it can: the first and last day bucket holding one (a UTC
 * day) covers one local date, or two; only then is the bucket asked whether a punch lies on
 * the first of them (a probe that stops at the first match). The exact instants (spanOf) need
 * a min() over every punch of the bucket: 50,000 people's day at 10M punches, in the writer's
 * transaction on every calendar change.
 */
export async function datedSpan(
  q: Queryable,
  dateOf: (instant: number) => string,
  startOf: (date: string) => number,
): Promise<{ first: string; last: string } | null> {
  const bucket = sql.raw(BUCKET_SQL);
  const dateIn = async (b: number, end: 'first' | 'last'): Promise<string | null> => {
    // Bucket 0 and below hold instants of two UTC days (integer division truncates toward zero).
    if (b <= 0) {
      const span = await attributedSpan(q);
      return span ? dateOf(end === 'first' ? span.first : span.last) : null;
    }
    const [early, late] = [dateOf(b * DAY_MS), dateOf((b + 1) * DAY_MS - 1)];
    if (early === late) return early;
    const boundary = startOf(late);
    const [probe] = await q
      .select({ one: sql<number>`1` })
      .from(punches)
      .where(and(sql`${bucket} = ${b}`, isNotNull(punches.enrolleeId), end === 'first' ? lt(punches.punchedAt, boundary) : gte(punches.punchedAt, boundary)))
      .limit(1);
    if (end === 'first') return probe ? early : late;
    return probe ? late : early;
  };
  const first = await edgeBucket(q, 'first');
  if (first === null) return null;
  const last = (await edgeBucket(q, 'last')) ?? first;
  const [from, to] = [await dateIn(first, 'first'), await dateIn(last, 'last')];
  return from !== null && to !== null ? { first: from, last: to } : null;
}

/** The first and last day bucket holding any punch (the edges of the enrollee index), or null. */
export async function bucketEdges(execute: Execute): Promise<{ first: number; last: number } | null> {
  const edge = async (order: 'asc' | 'desc'): Promise<number | null> => {
    const found = await execute(
      `select ${BUCKET_SQL} as bucket from ${getTableName(punches)} indexed by fpa_punches_enrollee_day order by ${BUCKET_SQL} ${order} limit 1`,
    );
    const row = found.rows[0];
    return row ? Number(row.bucket) : null;
  };
  const first = await edge('asc');
  const last = first === null ? null : await edge('desc');
  return first !== null && last !== null ? { first, last } : null;
}
