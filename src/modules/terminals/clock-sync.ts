/**
 * Terminal clocks across DST changes. A terminal knows no time zone rules: it learns a fixed
 * UTC offset (`TimeZone`) at each handshake, so after a DST change it keeps the old offset
 * until its next handshake — which may be weeks away. The option block records the offset it
 * sent (devices.clockOffsetMinutes); job `sync-device-clocks` queues `CHECK` to every approved
 * terminal whose zone's offset now differs, and the re-handshake tells it the new one
 * (ADMS.md §7).
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Core } from '../../app/core';
import { deviceCommands, devices } from '../../app/schema';
import type { DeviceRow } from '../devices/service';
import { isValidTimeZone, timeZoneOffsetMinutes } from '../../protocol/adms';

/** The device's IANA zone; an unusable one falls back to UTC, as the option block does. */
export function deviceZone(core: Core, device: DeviceRow): string {
  const zone = core.devices.timeZoneOf(device);
  return isValidTimeZone(zone) ? zone : 'UTC';
}

/** The offset a terminal should be told right now. */
export function deviceOffsetNow(core: Core, device: DeviceRow): number {
  return timeZoneOffsetMinutes(deviceZone(core, device), new Date(core.ctx.clock.now()));
}

export type ClockSyncResult = { approved: number; queued: number };

/**
 * Queues `CHECK` (supersede key `check`) to each approved terminal told another offset than
 * its zone's current one, or never told one since this was recorded. A terminal that still has
 * an unanswered CHECK is skipped, so an offline terminal collects one, not one per run.
 */
export async function syncDeviceClocks(core: Core): Promise<ClockSyncResult> {
  const approved = await core.ctx.db.orm.select().from(devices).where(eq(devices.status, 'approved'));
  const stale = approved.filter((d) => d.clockOffsetMinutes !== deviceOffsetNow(core, d));
  if (stale.length === 0) return { approved: approved.length, queued: 0 };
  const queued = await core.ctx.db.write(async ({ tx, afterCommit }) => {
    const waiting = await tx
      .select({ deviceId: deviceCommands.deviceId })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.kind, 'CHECK'), inArray(deviceCommands.status, ['pending', 'sent'])));
    const busy = new Set(waiting.map((w) => w.deviceId));
    const due = stale.filter((d) => !busy.has(d.id));
    await core.commands.enqueue(
      tx,
      due.map((d) => ({ deviceId: d.id, kind: 'CHECK' as const, payload: {}, supersedeKey: 'check' })),
      afterCommit,
    );
    return due.length;
  });
  return { approved: approved.length, queued };
}
