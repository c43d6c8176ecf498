/** The device log: what happened on a terminal's line (malformed data, rejections, health). */
import type { Tx } from '../../platform/db/client';
import { deviceEvents } from './tables';

export async function noteOnDevice(
  tx: Tx,
  deviceId: string,
  kind: string,
  message: string,
  details: Record<string, unknown> | undefined,
  now: number,
): Promise<void> {
  await tx.insert(deviceEvents).values({ deviceId, kind, message, details: details ?? null, createdAt: now });
}
