/**
 * What completeness does when something happens elsewhere; each wired once by the composition
 * root (app/modules.ts).
 */
import type { CommandService } from '../commands';
import type { DeviceService } from '../devices';
import type { PunchService } from '../punches';
import type { Completeness } from './service';

/** A terminal's reported record count is kept, in the write that records the report. */
export function keepReportedCounts(devices: DeviceService, completeness: Completeness): void {
  devices.onAttendanceCount((w, device, count, at) => completeness.countReported(w, device, count, at));
}

/** The lines of every upload are counted for the terminal's open re-upload, if any. */
export function countReuploadedLines(punches: PunchService, completeness: Completeness): void {
  punches.onUpload((device, lines) => completeness.recoveries.linesUploaded(device.id, lines));
}

/** A re-upload's command ended: its recovery is answered, finished or failed. */
export function followRecoveryCommands(commands: CommandService, devices: DeviceService, completeness: Completeness): void {
  commands.events.react('device_command_finished', async (w, finished) => {
    for (const { data } of finished) {
      const recovery = data.command.payload.recovery;
      if (data.command.kind !== 'QUERY_ATTLOG' || typeof recovery !== 'string') continue;
      const device = await devices.findBySerial(w.tx, data.device.serial_number);
      if (device) await completeness.recoveryAnswered(w, recovery, device, data.status === 'succeeded', data.return_code);
    }
  });
}

/** A terminal heard from again after DEVICE_OFFLINE_AFTER or more is asked to re-upload its silence. */
export function recoverAfterTerminalOutage(devices: DeviceService, completeness: Completeness, offlineAfterMs: () => number): void {
  devices.events.react('device_online', async (w, back) => {
    for (const { data, at } of back) {
      if (data.away_seconds === null || data.status !== 'approved' || data.away_seconds * 1000 < offlineAfterMs()) continue;
      const device = await devices.findBySerial(w.tx, data.device.serial_number);
      if (device) await completeness.afterOutage(w, device, 'terminal_outage', at - data.away_seconds * 1000);
    }
  });
}
