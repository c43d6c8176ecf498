/**
 * What the command queue does when other modules' events are recorded (wired in
 * src/app/reactions.ts; each runs inside the transaction that recorded the event).
 */
import type { DetailPart, DeviceEvents } from '../devices';
import type { ReactionTo } from '../events';
import type { CommandService } from './service';

/** device_disabled: nothing more goes to the terminal but deletes, which wait for a re-approval. */
export const expireQueuedOfDisabledTerminal =
  (commands: CommandService): ReactionTo<DeviceEvents, 'device_disabled'> =>
  async (w, disabled) => {
    for (const { data } of disabled) await commands.closeAllButDeletes(w, data.device.id, 'expired', 'device disabled');
  };

/**
 * device_removed: its unfinished commands are cancelled, except deletes: the terminal still holds
 * the data they remove, and gets them if it comes back (under its old id, devices/registration.ts).
 */
export const cancelQueuedOfRemovedTerminal =
  (commands: CommandService): ReactionTo<DeviceEvents, 'device_removed'> =>
  async (w, removed) => {
    for (const { data } of removed) await commands.closeAllButDeletes(w, data.device.id, 'cancelled', 'terminal removed');
  };

/** A terminal's detail shows how many commands wait for it. */
export const pendingCommandsOfTerminal =
  (commands: CommandService): DetailPart =>
  async (q, device) => ({ pending_commands: await commands.lookups.countPending(q, device.id) });
