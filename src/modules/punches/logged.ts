/**
 * How the event log keeps `punch_received` and `punch_voided` (a StoredForm, events/service.ts):
 * the punch's sequence, and only what the punch row does not hold (who entered a manual punch,
 * why one was voided). Readers of the log get the punch as it is when they read it: voided or
 * attributed since, it shows so; purged by retention, `punch` is null and the event keeps its
 * place in the log. The terminal that sent it is the punch's own (`device_id`), so it is not
 * kept twice either.
 */
import { inArray } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable } from '../../platform/db/client';
import type { StoredForm } from '../events';
import type { PunchEvents } from './events';
import { NO_DEVICE, punches } from './tables';
import { punchView } from './view';

type PunchRow = typeof punches.$inferSelect;

/** Sequences per query: well under SQLite's limit of bound values. */
const READ_CHUNK = 500;

/** The log's `punch_received`: the punch's sequence, and who entered it when no terminal did. */
export const receivedForm: StoredForm<PunchEvents['punch_received']> = {
  store: ({ punch, by }) => ({ punch_sequence: punch.sequence, ...(by === undefined ? {} : { by }) }),
  async show(q, stored) {
    const rows = await rowsOf(q, stored);
    return stored.map((s) => {
      const row = rows.get(sequenceOf(s));
      const sender = row && row.deviceId !== NO_DEVICE ? { id: row.deviceId, serial_number: row.deviceSerial } : null;
      return { punch: row ? punchView(row) : null, sender, ...(typeof s.by === 'string' ? { by: s.by } : {}) };
    });
  },
};

/** The log's `punch_voided`: the punch's sequence, why and by whom. */
export const voidedForm: StoredForm<PunchEvents['punch_voided']> = {
  store: ({ punch, reason, by }) => ({ punch_sequence: punch.sequence, reason, by }),
  async show(q, stored) {
    const rows = await rowsOf(q, stored);
    return stored.map((s) => {
      const row = rows.get(sequenceOf(s));
      return { punch: row ? punchView(row) : null, reason: s.reason, by: s.by };
    });
  },
};

/**
 * The punch an event refers to. An instance of an earlier version, still running during a
 * rolling upgrade, may log the whole view: its `punch.sequence` is the same reference.
 */
function sequenceOf(stored: Record<string, unknown>): number {
  if (typeof stored.punch_sequence === 'number') return stored.punch_sequence;
  const punch = stored.punch as { sequence?: unknown } | undefined;
  return typeof punch?.sequence === 'number' ? punch.sequence : 0;
}

async function rowsOf(q: Queryable, stored: readonly Record<string, unknown>[]): Promise<Map<number, PunchRow>> {
  const out = new Map<number, PunchRow>();
  const sequences = [...new Set(stored.map(sequenceOf))];
  for (const chunk of chunks(sequences, READ_CHUNK)) {
    for (const row of await q.select().from(punches).where(inArray(punches.sequence, chunk))) out.set(row.sequence, row);
  }
  return out;
}
