/** Unfinished commands, read for the deletion proofs and the diagnostics. */
import { and, inArray, lt, sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { DELETE_KINDS } from './kinds';
import { deviceCommands } from './tables';

export interface OpenDelete {
  id: number;
  deviceId: string;
  kind: string;
}

/** Unfinished deletes (`pending`, `sent`) about this PIN, on every terminal. */
export async function openDeletesOf(q: Queryable, pin: string): Promise<OpenDelete[]> {
  return q
    .select({ id: deviceCommands.id, deviceId: deviceCommands.deviceId, kind: deviceCommands.kind })
    .from(deviceCommands)
    .where(
      and(
        inArray(deviceCommands.status, ['pending', 'sent']),
        inArray(deviceCommands.kind, [...DELETE_KINDS]),
        sql`json_extract(${deviceCommands.payload}, '$.pin') = ${pin}`,
      ),
    );
}

/** Commands as they stand now, by id (a proof shows the delete a terminal still owes, with its last answer's code). */
export async function commandStates(
  q: Queryable,
  ids: readonly number[],
): Promise<Map<number, { id: number; kind: string; status: string; returnCode: number | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await q
    .select({ id: deviceCommands.id, kind: deviceCommands.kind, status: deviceCommands.status, returnCode: deviceCommands.returnCode })
    .from(deviceCommands)
    .where(inArray(deviceCommands.id, [...ids]));
  return new Map(rows.map((r) => [r.id, r]));
}

export interface WaitingCommands {
  deviceId: string;
  count: number;
  /** When the oldest of them was queued. */
  since: number;
}

/** Per terminal, its unfinished commands queued before `before` (deletes included). */
export async function waitingSince(q: Queryable, before: number): Promise<WaitingCommands[]> {
  return q
    .select({ deviceId: deviceCommands.deviceId, count: sql<number>`count(*)`, since: sql<number>`min(${deviceCommands.createdAt})` })
    .from(deviceCommands)
    .where(and(inArray(deviceCommands.status, ['pending', 'sent']), lt(deviceCommands.createdAt, before)))
    .groupBy(deviceCommands.deviceId);
}
