/** What the commands module announces. */
import type { DeviceRef } from '../devices';
import type { CommandKind } from './tables';

export interface CommandEvents {
  /** A device command ended: `succeeded`, `failed` or `expired` (with the terminal's return code, if any). */
  device_command_finished: {
    device: DeviceRef;
    /** The command: its payload holds references (PIN, finger, template id and version), never template bytes. */
    command: { id: number; kind: CommandKind; payload: Record<string, unknown>; session: string | null };
    status: 'succeeded' | 'failed' | 'expired' | 'cancelled';
    return_code: number | null;
  };
}
