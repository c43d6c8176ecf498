/**
 * Terminal clocks across DST changes. A terminal knows no time zone rules: it learns a fixed
 * UTC offset (`TimeZone`) at each handshake, so after a DST change it keeps the old offset
 * until its next handshake, which may be weeks away. The option block records the offset it
 * sent (devices.clockOffsetMinutes); job `sync-device-clocks` queues `check` to every approved
 * terminal whose zone's offset now differs, and the re-handshake tells it the new one
 * (docs/protocol/adms.md §7). A time zone changed by an administrator queues `check` at once; a
 * clock measured drifting gets `set_time` when DEVICE_CLOCK_CORRECTION is on (reactions.ts).
 */

import { timeZoneOffsetMinutes, usableZoneOrUtc } from '../../platform/time/zone';
import type { CommandService, NewCommand } from '../commands';
import type { DeviceRow, DeviceService } from '../devices';
import type { TerminalRuntime } from './runtime';

export type ClockSyncResult = { approved: number; queued: number };

export const check = (deviceId: string): NewCommand => ({ deviceId, kind: 'check', payload: {}, supersedeKey: 'check' });

export class ClockSync {
  constructor(
    private readonly ctx: TerminalRuntime,
    private readonly devices: DeviceService,
    private readonly commands: CommandService,
  ) {}

  /** The device's IANA zone; an unusable one falls back to UTC, as the option block does. */
  zoneOf(device: DeviceRow): string {
    return usableZoneOrUtc(this.devices.timeZoneOf(device));
  }

  /** The offset a terminal should be told right now. */
  offsetNow(device: DeviceRow): number {
    return timeZoneOffsetMinutes(this.zoneOf(device), new Date(this.ctx.clock.now()));
  }

  /**
   * Job `sync-device-clocks`: queues `check` to each approved terminal told another offset than
   * its zone's current one, or never told one since this was recorded. A terminal that still has
   * an unanswered `check` is skipped, so an offline terminal collects one, not one per run.
   */
  async syncDeviceClocks(): Promise<ClockSyncResult> {
    const approved = await this.devices.withStatus('approved');
    const stale = approved.filter((d) => d.clockOffsetMinutes !== this.offsetNow(d));
    if (stale.length === 0) return { approved: approved.length, queued: 0 };
    const queued = await this.ctx.db.write(async (w) => {
      const busy = await this.commands.lookups.devicesWaitingFor(w.tx, 'check');
      const due = stale.filter((d) => !busy.has(d.id));
      await this.commands.enqueue(
        w,
        due.map((d) => check(d.id)),
      );
      return due.length;
    });
    return { approved: approved.length, queued };
  }
}
