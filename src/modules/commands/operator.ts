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
