/**
 * What completeness does when something happens elsewhere (wired in src/app/reactions.ts).
 */
import type { CommandEvents } from '../commands';
import type { AttendanceCountListener, DeviceEvents, DeviceService } from '../devices';
import type { ReactionTo } from '../events';
import type { UploadListener } from '../punches';
import type { Completeness } from './service';

/** What the reactions use. */
export interface CompletenessDeps {
  completeness: Completeness;
  devices: DeviceService;
  /** DEVICE_OFFLINE_AFTER: a terminal silent this long had an outage. */
  offlineAfterMs: () => number;
}

/** A terminal's reported record count is kept, in the write that records the report. */
export const keepReportedCount =
  ({ completeness }: CompletenessDeps): AttendanceCountListener =>
  (w, device, count, at) =>
    completeness.countReported(w, device, count, at);

/** The lines of every upload are counted for the terminal's open re-upload, if any. */
export const countReuploadedLines =
  ({ completeness }: CompletenessDeps): UploadListener =>
  (device, lines) =>
    completeness.recoveries.linesUploaded(device.id, lines);

/** device_command_finished (reupload_logs): a re-upload's command ended: its recovery is answered, finished or failed. */
export const followRecoveryCommands =
  ({ completeness, devices }: CompletenessDeps): ReactionTo<CommandEvents, 'device_command_finished'> =>
  async (w, finished) => {
    for (const { data } of finished) {
      const recovery = data.command.payload.recovery;
      if (data.command.kind !== 'reupload_logs' || typeof recovery !== 'string') continue;
      const device = await devices.findBySerial(w.tx, data.device.serial_number);
      if (device) await completeness.recoveryAnswered(w, recovery, device, data.status === 'succeeded', data.return_code);
    }
  };

/** device_online: a terminal heard from again after DEVICE_OFFLINE_AFTER or more is asked to re-upload its silence. */
export const recoverAfterTerminalOutage =
  ({ completeness, devices, offlineAfterMs }: CompletenessDeps): ReactionTo<DeviceEvents, 'device_online'> =>
  async (w, back) => {
    for (const { data, at } of back) {
      if (data.away_seconds === null || data.status !== 'approved' || data.away_seconds * 1000 < offlineAfterMs()) continue;
      const device = await devices.findBySerial(w.tx, data.device.serial_number);
      if (device) await completeness.afterOutage(w, device, 'terminal_outage', at - data.away_seconds * 1000);
    }
  };
