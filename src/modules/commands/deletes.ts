/** The deletes a person's PIN is still owed by terminals (for the deletion proofs). */
import { and, inArray, sql } from 'drizzle-orm';
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
