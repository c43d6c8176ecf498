/**
 * `events/?order=desc`: the log read back from its head (or from `before`), newest first, for
 * the console's "Recent events" and anyone who wants the last events without walking the whole
 * log forward (1.3 million events at 10,000 people: the console read 20 pages of 1,000 from the
 * start and showed the oldest). The caller's areas are a condition of the query, on the columns
 * that say whom each event is about (tables.ts `aboutEnrollee`, `aboutDevice`), so a limited
 * caller's page is found on the primary key from the end, as an unlimited caller's is.
 */
import { and, asc, desc, gt, inArray, lt, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../../platform/db/client';
import { yieldToOthers } from '../../platform/event-loop';
import type { ScopeMembers } from '../../platform/scope';
import { eventLog } from './tables';

/**
 * Sequences of the log looked through per statement: a caller whose areas (or types) are rare
 * reads the log back a window at a time, each a short statement on the thread that answers
 * requests (a whole log of 1.3 million events in one statement held it 0.85 s).
 */
const WINDOW = 20_000;
/** Sequences one read looks through at most; it then answers with where it stopped (`last_sequence`). */
const READ_BACK_MAX = 200_000;

export interface ReadBack {
  /** Exclusive: the events before this sequence. */
  before: number;
  /** Exclusive: the events after this sequence only (`after`; 0 for the whole log). */
  floor: number;
  limit: number;
  types?: readonly string[];
  /** The people and terminals a limited caller sees; null for an unlimited one. */
  members: ScopeMembers | null;
}

/**
 * The newest rows of the log before `before` (and after `floor`) that the query matches, newest
 * first, and where the read stopped: the oldest row returned when `limit` were found; `floor`
 * when the read reached the start of the log (or `floor`), nothing being left before it; else,
 * after READ_BACK_MAX sequences, the oldest sequence looked at, to read on from.
 */
export async function readBack(
  db: Database,
  query: ReadBack,
  sizes: { window: number; max: number } = { window: WINDOW, max: READ_BACK_MAX },
): Promise<{ rows: (typeof eventLog.$inferSelect)[]; lastSequence: number }> {
  const { before, floor, limit } = query;
  // Below the first event kept (retention purges the oldest) there is nothing to look through.
  const [first] = await db.orm.select({ sequence: eventLog.sequence }).from(eventLog).orderBy(asc(eventLog.sequence)).limit(1);
  const bottom = Math.max(floor, (first?.sequence ?? before) - 1);
  const matches = and(query.types && query.types.length > 0 ? inArray(eventLog.type, [...query.types]) : undefined, seenBy(query.members));
  const rows: (typeof eventLog.$inferSelect)[] = [];
  let top = before;
  for (;;) {
    // The window (low, top): `sizes.window` sequences, none at or below `bottom`.
    const low = Math.max(bottom, top - 1 - sizes.window);
    if (low < top - 1) {
      rows.push(
        ...(await db.orm
          .select()
          .from(eventLog)
          .where(and(lt(eventLog.sequence, top), gt(eventLog.sequence, low), matches))
          .orderBy(desc(eventLog.sequence))
          .limit(limit - rows.length)),
      );
    }
    if (rows.length >= limit) return { rows, lastSequence: rows[rows.length - 1]!.sequence };
    if (low <= bottom) return { rows, lastSequence: floor };
    if (before - 1 - low >= sizes.max) return { rows, lastSequence: low + 1 };
    top = low + 1;
    await yieldToOthers();
  }
}

/**
 * A condition: the event is seen by a caller with these members (src/platform/scope.ts `sees`):
 * through its person when it names one, else through its terminal; one naming neither is for
 * unlimited callers only. Undefined for an unlimited caller. The members are bound as two JSON
 * arrays, each read once per statement. A punch recorded as nobody's may have been attributed
 * since (its terminal user adopted): its columns say who it was about when recorded, so it is let
 * through here and judged as the punch is now, as reading forward judges it (service.ts `pageBack`).
 */
function seenBy(members: ScopeMembers | null): SQL | undefined {
  if (members === null) return undefined;
  const enrollees = JSON.stringify([...members.enrollees]);
  const devices = JSON.stringify([...members.devices]);
  return sql`((${eventLog.aboutEnrollee} is not null and ${eventLog.aboutEnrollee} in (select value from json_each(${enrollees}))) or (${eventLog.aboutEnrollee} is null and (${eventLog.type} in (${PUNCH_EVENTS[0]}, ${PUNCH_EVENTS[1]}) or ${eventLog.aboutDevice} in (select value from json_each(${devices})))))`;
}

/** Events about a punch, shown as the punch is now (its person may have changed since). */
const PUNCH_EVENTS = ['punch_received', 'punch_voided'] as const;
