/**
 * Parts of a terminal's user that the walk-up refused as an enrollee's and left on the terminal
 * (DELETE_REJECTED_DEVICE_TEMPLATES off: enrollment/walk-up.ts `reject`): kept on the user
 * (`refused_for`, `refused`), so that enrollee's withdrawal, deactivation or deletion deletes
 * those parts there and nothing else (enrollment/fan-out.ts `deleteRefused`). A user that merely
 * has an enrollee's PIN is not them on that terminal (punches/service.ts `whose`).
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Queryable, Tx } from '../../platform/db/client';
import { deviceUsers } from './tables';
import type { DeviceUserRow } from './users';

/**
 * The walk-up refused this part of the terminal's user (which exists: the refusal noted the
 * biometric on it) as this enrollee's. A refusal for someone else replaces the record: one PIN is
 * one enrollee at a time.
 */
export async function noteRefused(tx: Tx, deviceId: string, pin: string, enrolleeId: string, part: { type: string; index: number }): Promise<void> {
  const where = and(eq(deviceUsers.deviceId, deviceId), eq(deviceUsers.pin, pin));
  const [existing] = await tx.select({ refusedFor: deviceUsers.refusedFor, refused: deviceUsers.refused }).from(deviceUsers).where(where);
  if (!existing) return;
  const before = existing.refusedFor === enrolleeId ? existing.refused : {};
  const held = before[part.type] ?? [];
  if (existing.refusedFor === enrolleeId && held.includes(part.index)) return;
  await tx
    .update(deviceUsers)
    .set({ refusedFor: enrolleeId, refused: { ...before, [part.type]: [...held, part.index].sort((a, b) => a - b) } })
    .where(where);
}

/** Terminal users linked to nobody that hold parts the walk-up refused as this enrollee's. */
export async function usersRefusedFor(q: Queryable, enrolleeId: string): Promise<DeviceUserRow[]> {
  const rows = await q
    .select()
    .from(deviceUsers)
    .where(and(eq(deviceUsers.refusedFor, enrolleeId), isNull(deviceUsers.enrolleeId)));
  return rows.filter((u) => Object.values(u.refused).some((indexes) => indexes.length > 0));
}
