/**
 * The punches attendance counts (`punches.counted`): those of some enrollees in a span, raw (it
 * runs with every batch), the enrollees who punched in one, and the span of the stored punches
 * (spans.ts).
 */

import { and, getTableName, isNotNull } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Execute, Queryable } from '../../platform/db/client';
import { placeholders } from '../../platform/db/placeholders';
import { NEW_ADDRESS_FLAG } from '../devices';
import { BUCKET_SQL, bucketGroups, punchedWithin } from './buckets';
import { datedSpan, spanOf } from './spans';
import { CLOCK_AHEAD_FLAG, CLOCK_RESET_FLAG, punches, TO_REVIEW_SQL } from './tables';

/** A punch attendance counts. */
interface CountedRow {
  enrolleeId: string;
  at: number;
  /** A manual or imported punch. */
  corrected: boolean;
  /** Sent from an address its terminal is not pinned to (flagged `new_address`). */
  unconfirmed: boolean;
  /** Dated after it arrived: the terminal's clock ran ahead (flagged `clock_ahead`). */
  ahead: boolean;
  /** At a wall time the fall-back night showed twice (flagged `dst_overlap`). */
  ambiguous: boolean;
  /** Dated by a clock that started over (flagged `clock_reset`): the date is wrong. */
  reset: boolean;
}

/** What a punch to review is flagged with, by its sequence. */
type ToReview = Map<number, Pick<CountedRow, 'unconfirmed' | 'ahead' | 'ambiguous' | 'reset'>>;

/** The punches to review (TO_REVIEW_SQL) of these enrollees in [start, end), on their own small index. */
async function toReviewIn(execute: Execute, enrolleeIds: readonly string[], start: number, end: number): Promise<ToReview> {
  const out: ToReview = new Map();
  for (const chunk of chunks(enrolleeIds, 400)) {
    const flagged = await execute({
      sql: `select sequence, flags from ${getTableName(punches)} where ${TO_REVIEW_SQL} and enrollee_id in (${placeholders(chunk.length)}) and punched_at >= ? and punched_at < ?`,
      args: [...chunk, start, end],
    });
    for (const f of flagged.rows) {
      const flags = JSON.parse(String(f.flags)) as string[];
      out.set(Number(f.sequence), {
        unconfirmed: flags.includes(NEW_ADDRESS_FLAG),
        ahead: flags.includes(CLOCK_AHEAD_FLAG),
        ambiguous: flags.includes('dst_overlap'),
        reset: flags.includes(CLOCK_RESET_FLAG),
      });
    }
  }
  return out;
}

/**
 * The punches that count for attendance (not voided) of these enrollees in [start, end), raw:
 * attendance runs this with every batch. `corrected` marks manual and imported ones;
 * `unconfirmed`, `ahead`, `ambiguous` and `reset` those flagged `new_address`, `clock_ahead`,
 * `dst_overlap` and `clock_reset` (found on their own small index: the enrollee index read here has no flags, and
 * reading every punch's row for them would cost every batch).
 */
async function countedIn(execute: Execute, enrolleeIds: readonly string[], start: number, end: number): Promise<CountedRow[]> {
  const table = getTableName(punches);
  const toReview = await toReviewIn(execute, enrolleeIds, start, end);
  const out: CountedRow[] = [];
  for (const buckets of bucketGroups(start, end)) {
    for (const chunk of chunks(enrolleeIds, 400)) {
      const found = await execute({
        sql: `select sequence, enrollee_id, punched_at, source from ${table} where ${BUCKET_SQL} in (${placeholders(buckets.length)}) and enrollee_id in (${placeholders(chunk.length)}) and punched_at >= ? and punched_at < ? and voided = 0`,
        args: [...buckets, ...chunk, start, end],
      });
      for (const f of found.rows) {
        const review = toReview.size > 0 ? toReview.get(Number(f.sequence)) : undefined;
        out.push({
          enrolleeId: String(f.enrollee_id),
          at: Number(f.punched_at),
          corrected: f.source !== 'device',
          unconfirmed: review?.unconfirmed ?? false,
          ahead: review?.ahead ?? false,
          ambiguous: review?.ambiguous ?? false,
          reset: review?.reset ?? false,
        });
      }
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
