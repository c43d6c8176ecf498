/**
 * What the terminals' edge does when devices' events are recorded (wired in
 * src/app/reactions.ts; each runs inside the transaction that recorded the event).
 */
import type { CommandService } from '../commands';
import type { DeviceEvents } from '../devices';
import type { ReactionTo } from '../events';
import { check } from './clock-sync';

/** device_updated (time zone): the terminal re-reads its options, and so its TimeZone, on CHECK. */
export const recheckOptionsOnNewTimeZone =
  (commands: CommandService): ReactionTo<DeviceEvents, 'device_updated'> =>
  async (w, updates) => {
    const due = updates.filter(({ data }) => data.changes.time_zone && data.status === 'approved');
    await commands.enqueue(
      w,
      due.map(({ data }) => check(data.device.id)),
    );
  };

/** device_clock_drifting: the clock is set again when DEVICE_CLOCK_CORRECTION allows it. */
export const setDriftingClock =
  (commands: CommandService, correction: boolean): ReactionTo<DeviceEvents, 'device_clock_drifting'> =>
  async (w, drifting) => {
    if (!correction) return;
    await commands.enqueue(
      w,
      drifting.map(({ data }) => ({ deviceId: data.device.id, kind: 'set_time', payload: {}, supersedeKey: 'set-time' })),
    );
  };
