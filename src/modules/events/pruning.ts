/**
 * Retention of the event log: personal data in old events redacted in place, and old events
 * purged, both behind the slowest reader (the log's followers, by their positions: `floor`;
 * webhook endpoints and messages queued by hand, by `held`). The log's sequence never has a
 * hole a reader has not passed. The log's `pruning` (LogPruning) is what retention calls.
 */
import { and, asc, eq, getTableName, gt, gte, inArray, lt, lte, or, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Database } from '../../platform/db/client';
import { jsonRows } from '../../platform/db/json-rows';
import { yieldToOthers } from '../../platform/event-loop';
import { eventLog, logFollowers } from './tables';

/** Which of these events a reader still owes (a webhook endpoint has not handed them off). */
export type HeldEvents = (events: readonly { sequence: number; type: string }[]) => Promise<Set<number>>;

/** How retention redacts one event type (redactOldEvents). */
export interface RedactionRule {
  type: string;
  /** Events recorded before this instant are old. */
  recordedBefore: number;
  /** Also old: events whose data has, at this JSON path, text sorting before `before`. */
  dated?: { path: string; before: string };
  /** The data kept (ids, no personal data); the stored form's data for a type kept in one. */
  redact(data: Record<string, unknown>): Record<string, unknown>;
}

/** Retention of the log (`events.pruning`), behind the positions of the followers that named themselves. */
export class LogPruning {
  /** Names of the log's followers (their positions are in fpa_log_followers). */
  private readonly followers = new Set<string>();

  constructor(
    private readonly db: Database,
    /** The log's last sequence: the floor when no follower named itself. */
    private readonly lastSequence: () => Promise<number>,
  ) {}

  /** A follower of the log (follower.ts) names itself, so retention never rewrites what it has not applied. */
  followedBy(name: string): void {
    this.followers.add(name);
  }

  /**
   * Retention: rewrites old events of the rules' types in place, never past a follower's
   * position nor one `held` names (`redactOldEvents`). Returns how many.
   */
  async redactOld(rules: readonly RedactionRule[], held: HeldEvents): Promise<number> {
    return redactOldEvents(this.db, await this.followersFloor(), rules, held);
  }

  /**
   * Retention (RETENTION_EVENTS_DAYS): deletes the events recorded before `cutoff` that every
   * reader has processed (`purgeOldEvents`). Returns how many.
   */
  async purgeBefore(cutoff: number, held: HeldEvents): Promise<number> {
    return purgeOldEvents(this.db, await this.followersFloor(), cutoff, held);
  }

  /** The lowest position of the followers (one that never ran stands at 0); the head when there are none. */
  private async followersFloor(): Promise<number> {
    if (this.followers.size === 0) return this.lastSequence();
    const rows = await this.db.orm
      .select({ name: logFollowers.name, position: logFollowers.position })
      .from(logFollowers)
      .where(inArray(logFollowers.name, [...this.followers]));
    const positions = new Map(rows.map((r) => [r.name, r.position]));
    return Math.min(...[...this.followers].map((name) => positions.get(name) ?? 0));
  }
}

/** Events read and rewritten per transaction by redactOldEvents. */
const REDACT_BATCH = 500;
/** Sequences of the log looked through per statement by redactOldEvents. */
const REDACT_WINDOW = 20_000;

/** Events looked at and deleted per transaction by purgeOldEvents. */
const PURGE_EVENTS_BATCH = 2000;

/**
 * Retention: rewrites the stored data of old events that carry personal data, in place. An
 * event keeps its sequence, id, type and time (the log stays gap-free and every reader's
 * position stays valid); its data becomes what `rule.redact` keeps (ids), marked
 * `redacted: true`. An event is old when recorded before `rule.recordedBefore`, or when the
 * text at `rule.dated.path` of its data sorts before `rule.dated.before` (an attendance day
 * of a purged date, recorded lately). Only events at or before every log follower's position
 * are rewritten, and none that `held` names (a webhook endpoint has not handed it off yet):
 * no follower ever misses the data it has not processed. Batches of REDACT_BATCH, each its
 * own write transaction, so terminals' uploads never wait long behind it. Returns how many.
 */
async function redactOldEvents(db: Database, floor: number, rules: readonly RedactionRule[], held: HeldEvents): Promise<number> {
  if (rules.length === 0) return 0;
  const byType = new Map(rules.map((r) => [r.type, r]));
  const old = or(
    ...rules.map((r) =>
      and(
        eq(eventLog.type, r.type),
        or(lt(eventLog.at, r.recordedBefore), r.dated ? sql`json_extract(${eventLog.data}, ${r.dated.path}) < ${r.dated.before}` : undefined),
      ),
    ),
  );
  let total = 0;
  let after = (await firstSequence(db)) - 1;
  while (after < floor) {
    // Within a window of the log at a time: the last look for old events would otherwise read
    // the whole rest of the log in one statement (0.4 s at 1M punches, on the thread that
    // answers requests).
    const windowEnd = Math.min(floor, after + REDACT_WINDOW);
    const rows = await db.orm
      .select()
      .from(eventLog)
      .where(and(gt(eventLog.sequence, after), lte(eventLog.sequence, windowEnd), old, sql`json_extract(${eventLog.data}, '$.redacted') is null`))
      .orderBy(asc(eventLog.sequence))
      .limit(REDACT_BATCH);
    if (rows.length < REDACT_BATCH) after = windowEnd;
    else after = rows[rows.length - 1]!.sequence;
    if (rows.length === 0) {
      await yieldToOthers();
      continue;
    }
    const keep = await held(rows);
    const rewrites = rows
      .filter((r) => !keep.has(r.sequence))
      .map((r) => ({
        sequence: r.sequence,
        data: JSON.stringify({ ...byType.get(r.type)!.redact(JSON.parse(r.data) as Record<string, unknown>), redacted: true }),
      }));
    if (rewrites.length > 0) {
      // One statement for the batch: an update per event took about 30 ms for 500 (measured at
      // 1M punches), held on the thread that answers requests.
      await db.write(({ execute }) =>
        execute({
          sql: `update ${getTableName(eventLog)} set data = rewrite.value ->> 1 from json_each(?) as rewrite where sequence = rewrite.value ->> 0`,
          args: [jsonRows(rewrites.map((r) => [r.sequence, r.data]))],
        }),
      );
    }
    total += rewrites.length;
    await yieldToOthers();
  }
  return total;
}

/** The oldest sequence in the log (1 when it is empty). */
async function firstSequence(db: Database): Promise<number> {
  const [row] = await db.orm.select({ sequence: eventLog.sequence }).from(eventLog).orderBy(asc(eventLog.sequence)).limit(1);
  return row?.sequence ?? 1;
}

/**
 * Retention (RETENTION_EVENTS_DAYS): deletes the events recorded before `cutoff` that every
 * reader has processed: only at or before every log follower's position, and none that `held`
 * names (a webhook endpoint, active or disabled, has not handed it off; a message queued by
 * hand). The oldest events go first, by ranges of the primary key: a batch reads and deletes
 * only its own rows, whatever the size of the log, and is its own short write transaction.
 * A reader asking `after=` a purged position is answered from the oldest event kept (the
 * sequence only grows: AUTOINCREMENT never hands a purged one out again). Returns how many.
 */
async function purgeOldEvents(db: Database, floor: number, cutoff: number, held: HeldEvents): Promise<number> {
  let total = 0;
  let after = 0;
  for (;;) {
    const rows = await db.orm
      .select({ sequence: eventLog.sequence, type: eventLog.type, at: eventLog.at })
      .from(eventLog)
      .where(and(gt(eventLog.sequence, after), lte(eventLog.sequence, floor)))
      .orderBy(asc(eventLog.sequence))
      .limit(PURGE_EVENTS_BATCH);
    // The log is in recording order: the first event at or past the cutoff ends the purge.
    const end = rows.findIndex((r) => r.at >= cutoff);
    const old = end < 0 ? rows : rows.slice(0, end);
    if (old.length === 0) return total;
    after = old[old.length - 1]!.sequence;
    const keep = await held(old);
    const gone = old.filter((r) => !keep.has(r.sequence)).map((r) => r.sequence);
    if (gone.length > 0) {
      await db.write(async ({ tx }) => {
        if (keep.size === 0) {
          await tx.delete(eventLog).where(and(gte(eventLog.sequence, gone[0]!), lte(eventLog.sequence, gone[gone.length - 1]!)));
        } else {
          for (const chunk of chunks(gone, 500)) await tx.delete(eventLog).where(inArray(eventLog.sequence, chunk));
        }
      });
    }
    total += gone.length;
    if (old.length < rows.length || rows.length < PURGE_EVENTS_BATCH) return total;
    await yieldToOthers();
  }
}
