/**
 * The punches attendance counts (`punches.counted`): those of some enrollees in a span, raw (it
 * runs with every batch), the enrollees who punched in one, and the span of the stored punches
 * (spans.ts).
 */

import { and, getTableName, isNotNull } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Execute, Queryable } from '../../platform/db/client';
import { placeholders } from '../../platform/db/placeholders';
import { BUCKET_SQL, bucketGroups, punchedWithin } from './buckets';
import { datedSpan, spanOf } from './spans';
import { punches } from './tables';

/**
 * The punches that count for attendance (not voided) of these enrollees in [start, end), raw:
 * attendance runs this with every batch. `corrected` marks manual and imported ones.
 */
async function countedIn(
  execute: Execute,
  enrolleeIds: readonly string[],
  start: number,
  end: number,
): Promise<{ enrolleeId: string; at: number; corrected: boolean }[]> {
  const out: { enrolleeId: string; at: number; corrected: boolean }[] = [];
  for (const buckets of bucketGroups(start, end)) {
    for (const chunk of chunks(enrolleeIds, 400)) {
      const found = await execute({
        sql: `select enrollee_id, punched_at, source from ${getTableName(punches)} where ${BUCKET_SQL} in (${placeholders(buckets.length)}) and enrollee_id in (${placeholders(chunk.length)}) and punched_at >= ? and punched_at < ? and voided = 0`,
        args: [...buckets, ...chunk, start, end],
      });
      for (const f of found.rows) out.push({ enrolleeId: String(f.enrollee_id), at: Number(f.punched_at), corrected: f.source !== 'device' });
    }
  }
  return out;
}

/** The enrollees with punches (voided ones too: a void may empty a day) in [start, end). */
async function enrolleesWithPunches(q: Queryable, start: number, end: number): Promise<string[]> {
  const rows = await q
    .selectDistinct({ id: punches.enrolleeId })
    .from(punches)
    .where(and(punchedWithin(start, end), isNotNull(punches.enrolleeId)));
  return rows.map((r) => r.id!);
}

/** What attendance reads of the punches: `punches.counted`. */
export const counted = { countedIn, enrolleesWithPunches, spanOf, datedSpan };
