/**
 * What an operator may ask of a terminal (`POST devices/{sn}/commands/`), turned into the command
 * queued under the kind asked for: destructive kinds need the serial repeated, raw text needs
 * the setting.
 */
import { FpaError } from '../../platform/errors';
import { requireOrdered } from '../../platform/time/dates';
import type { CommandKind, OperatorCommand } from './kinds';

export function operatorCommand(
  serial: string,
  input: OperatorCommand,
  options: { rawAllowed: boolean },
): { kind: CommandKind; payload: Record<string, unknown> } {
  if ((input.kind === 'clear_logs' || input.kind === 'clear_data') && input.confirm !== serial) {
    throw new FpaError('confirmation_required', `${input.kind} deletes data on the terminal: repeat its serial number in \`confirm\``, { confirm: serial });
  }
  switch (input.kind) {
    case 'raw':
      if (!options.rawAllowed) throw new FpaError('raw_commands_disabled', 'raw commands are off (ADMS_RAW_COMMANDS)', {});
      return { kind: 'raw', payload: { command: input.command ?? '' } };
    case 'reupload_logs': {
      const from = input.from ?? '';
      const to = input.to ?? from;
      requireOrdered(from, to);
      // Wall times of the terminal's own clock: the local dates are the terminal's.
      return { kind: 'reupload_logs', payload: { startTime: `${from} 00:00:00`, endTime: `${to} 23:59:59` } };
    }
    default:
      return { kind: input.kind, payload: {} };
  }
}

/** A terminal as far as an operator's command to it is concerned. */
export interface CommandTarget {
  id: string;
  serialNumber: string;
  status: string;
}

/**
 * An operator's command to a terminal waiting for approval would wait silently: such a terminal
 * is sent only the deletes it owes. Refused instead (409 `device_not_approved`), saying that
 * approving it sends its backfill (its users asked for, then the people of its areas).
 */
export function refuseUntilApproved(device: CommandTarget, what: string): void {
  if (device.status !== 'pending_approval') return;
  throw new FpaError(
    'device_not_approved',
    `the terminal is waiting for approval: it is sent nothing but the deletes it owes until then, so ${what} would only wait; approving it (POST devices/${device.serialNumber}/approve/) asks it for its users and then sends it the people of its areas (its backfill)`,
    { serial_number: device.serialNumber, status: device.status },
  );
}
