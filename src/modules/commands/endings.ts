/**
 * How a command ends (succeeded, failed, expired, cancelled): its row closed and the end
 * announced (`device_command_finished`), so template sync and remote sessions follow from it.
 * Every end of a command goes through here, whoever closes it: a result, a job, an operator.
 */
import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { WriteContext } from '../../platform/db/client';
import { type DeviceRef, type DeviceService, deviceRef } from '../devices';
import type { EventChannel } from '../events';
import type { CommandEvents } from './events';
import type { CommandOutcome, CommandRow } from './kinds';
import type { CommandRuntime } from './runtime';
import { deviceCommands } from './tables';

export class CommandEndings {
  constructor(
    private readonly ctx: CommandRuntime,
    private readonly events: EventChannel<CommandEvents>,
    private readonly devices: DeviceService,
  ) {}

  /** Closes the unfinished commands matching `where` inside the caller's transaction; returns how many. */
  async closeMatching(w: WriteContext, where: SQL, outcome: 'expired' | 'cancelled', reason: string): Promise<number> {
    const now = this.ctx.clock.now();
    // All closed first, in one statement: a handler (a remote session failing) that expires
    // more commands then finds these already closed and does not finish them twice.
    const rows = await w.tx
      .update(deviceCommands)
      .set({ status: outcome, completedAt: now, returnCode: null, result: { reason } })
      .where(and(inArray(deviceCommands.status, ['pending', 'sent']), where))
      .returning();
    await this.finished(w, rows, outcome, null);
    return rows.length;
  }

  async close(w: WriteContext, command: CommandRow, outcome: CommandOutcome, now: number, code: number | null, result: Record<string, unknown>): Promise<void> {
    await w.tx.update(deviceCommands).set({ status: outcome, completedAt: now, returnCode: code, result }).where(eq(deviceCommands.id, command.id));
    await this.finished(w, [{ ...command, status: outcome, completedAt: now, returnCode: code, result }], outcome, code);
  }

  /** Announces closed commands: template sync status and remote sessions follow from it. */
  async finished(w: WriteContext, commands: readonly CommandRow[], outcome: CommandOutcome, code: number | null): Promise<void> {
    if (commands.length === 0) return;
    const refs = new Map<string, DeviceRef>();
    for (const id of new Set(commands.map((c) => c.deviceId))) {
      const device = await this.devices.findById(w.tx, id);
      refs.set(id, device ? deviceRef(device) : { id, serial_number: '' });
    }
    await this.events.recordMany(
      w,
      'device_command_finished',
      commands.map((c) => ({
        data: {
          device: refs.get(c.deviceId)!,
          command: { id: c.id, kind: c.kind, payload: c.payload, session: c.sessionId },
          status: outcome,
          return_code: code ?? c.returnCode,
        },
      })),
    );
  }
}
