/**
 * When people's users left each terminal (`fpa_device_user_departures`): written as the user
 * goes from the terminal's list (DeviceUsers `removed`, `clear`), read when a terminal uploads a
 * punch under the PIN of a person it no longer holds (punches/service.ts `whose`): one it made
 * before they left is still theirs. Only the PINs no terminal user answers for are looked up, so
 * an ordinary upload never reads this.
 */
import { getTableName, lt, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Execute, Tx } from '../../platform/db/client';
import { selectAsJson } from '../../platform/db/json-results';
import { deleteInBatches } from '../../platform/db/purge';
import type { DeviceRuntime } from './runtime';
import { deviceUserDepartures } from './tables';

export class UserDepartures {
  constructor(private readonly ctx: DeviceRuntime) {}

  /** These people's users left the terminal now (a later departure replaces an earlier one). */
  async record(tx: Tx, deviceId: string, enrolleeIds: readonly string[]): Promise<void> {
    const leftAt = this.ctx.clock.now();
    for (const chunk of chunks(enrolleeIds, 100)) {
      await tx
        .insert(deviceUserDepartures)
        .values(chunk.map((enrolleeId) => ({ deviceId, enrolleeId, leftAt })))
        .onConflictDoUpdate({ target: [deviceUserDepartures.deviceId, deviceUserDepartures.enrolleeId], set: { leftAt: sql`excluded.left_at` } });
    }
  }

  /** Of these people, those whose user left this terminal: when, by person. */
  async of(execute: Execute, deviceId: string, enrolleeIds: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const chunk of chunks(enrolleeIds, 500)) {
      const rows = await selectAsJson<[string, number]>(
        execute,
        ['enrollee_id', 'left_at'],
        `select enrollee_id, left_at from ${getTableName(deviceUserDepartures)} where device_id = ? and enrollee_id in (select value from json_each(?))`,
        [deviceId, JSON.stringify(chunk)],
      );
      for (const [enrollee, leftAt] of rows) out.set(enrollee, leftAt);
    }
    return out;
  }

  /** Retention: a departure before the punch horizon decides no punch still kept or accepted. */
  purgeBefore(cutoff: number): Promise<number> {
    return deleteInBatches(this.ctx.db, deviceUserDepartures, lt(deviceUserDepartures.leftAt, cutoff));
  }
}
