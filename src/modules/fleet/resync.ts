/**
 * Putting a terminal back in line with the service: every in-scope enrollee's user record and
 * templates queued again (a terminal user that is someone else keeps their PIN: a conflict, not
 * an overwrite); the service's people outside its scope are taken off it (as an area change takes
 * them off); `full` also deletes every other user on it. When the terminal's users are not
 * known or may have changed (approval, back after a long absence) the service first asks it for
 * them and backfills when it answers (`afterUserQuery`). Used on request (service.ts) and by the
 * reconciliation (reconcile.ts).
 */
import type { WriteContext } from '../../platform/db/client';
import { counted } from '../../platform/words';
import { type CommandService, type NewCommand, QUERY_USERS_KEY } from '../commands';
import { type DeviceRow, type DeviceService, type DeviceUserRow, deviceRef, noteOnDevice } from '../devices';
import type { EnrolleeService } from '../enrollees';
import { type Enrollment, templateQuery } from '../enrollment';
import type { EventChannel } from '../events';
import type { PunchService } from '../punches';
import type { FleetEvents } from './events';
import type { FleetRuntime } from './runtime';

export interface FleetDeps {
  devices: DeviceService;
  commands: CommandService;
  enrollees: EnrolleeService;
  enrollment: Enrollment;
  punches: PunchService;
}

export type ResyncReason = FleetEvents['device_resynced']['reason'];

export class Resync {
  constructor(
    private readonly ctx: FleetRuntime,
    private readonly events: EventChannel<FleetEvents>,
    private readonly deps: FleetDeps,
  ) {}

  /**
   * Queues the resync of one terminal inside the caller's transaction, from the users it is known
   * to hold (and a fresh query of them); returns the commands queued.
   */
  async device(w: WriteContext, device: DeviceRow, options: { full: boolean; reason: ResyncReason }): Promise<number> {
    const queued = await this.queue(w, device, options);
    // Last: the answer then tells what the terminal holds after the writes and deletes.
    await this.deps.commands.enqueue(w, [userQuery(device.id, null)]);
    return queued + 1;
  }

  /** The terminal answered the query of its users: the resync that waited for it. */
  async backfill(w: WriteContext, device: DeviceRow, reason: ResyncReason): Promise<number> {
    return this.queue(w, device, { full: false, reason });
  }

  /**
   * The terminal answered a query of its users sent at `since` (the reconciliation asked because
   * it reported fewer than expected): a user it did not report since is no longer on it (deleted
   * at its menu), so it leaves the terminal's list, and an in-scope enrollee among them is
   * queued again with their templates. Returns the commands queued.
   */
  async missing(w: WriteContext, device: DeviceRow, since: number): Promise<number> {
    const { devices, enrollees, enrollment } = this.deps;
    const held = await devices.users.of(w.tx, device.id);
    // An answer that named nobody from a terminal that says it holds users did not arrive (a
    // firmware that posts the result first): nothing is concluded from it.
    if (held.length > 0 && held.every((u) => u.updatedAt < since) && (device.userCount ?? 0) > 0) return 0;
    const gone = held.filter((u) => u.updatedAt < since);
    for (const u of gone) await devices.users.removed(w.tx, device.id, u.pin);
    const goneEnrollees = new Set(gone.map((u) => u.enrolleeId).filter((id): id is string => id !== null));
    const stillHeld = new Set(held.filter((u) => u.updatedAt >= since).map((u) => u.pin));
    const people = (await enrollees.membership.activeInAreas(w.tx, await devices.areaIdsOf(w.tx, device.id))).filter(
      (p) => goneEnrollees.has(p.id) || !stillHeld.has(p.devicePin),
    );
    const queued = await enrollment.fanOut.backfillDevice(w, device, people);
    await this.events.record(w, 'device_resynced', { device: deviceRef(device), full: false, queued, reason: 'drift' });
    await noteOnDevice(
      w.tx,
      device.id,
      'resync',
      `${counted(gone.length, 'person was', 'people were')} no longer on the terminal: ${counted(queued, 'command')} queued to send them again`,
      { reason: 'drift', full: false, queued, gone: gone.map((u) => u.pin) },
      this.ctx.clock.now(),
    );
    return queued;
  }

  private async queue(w: WriteContext, device: DeviceRow, options: { full: boolean; reason: ResyncReason }): Promise<number> {
    const { devices, enrollees, commands, enrollment } = this.deps;
    const people = await enrollees.membership.activeInAreas(w.tx, await devices.areaIdsOf(w.tx, device.id));
    const inScope = new Set(people.map((p) => p.id));
    const outside = (await devices.users.of(w.tx, device.id)).filter((u) => u.enrolleeId === null || !inScope.has(u.enrolleeId));
    // The service's people outside its scope leave it first, as an area change takes them off
    // (their template writes there superseded, their sync rows there dropped): a terminal approved
    // again into another area still held the old area's people (README "Removing a terminal").
    const { leaving, fetching } = await this.leaveOutside(w, device, outside, options.full);
    let queued = leaving.length + fetching + (await enrollment.fanOut.backfillDevice(w, device, people));
    if (options.full) {
      const others = outside.filter((u) => !leaving.includes(u));
      await commands.enqueue(
        w,
        others.map((u) => removal(device.id, u.pin)),
      );
      queued += others.length;
    }
    await this.events.record(w, 'device_resynced', { device: deviceRef(device), full: options.full, queued, reason: options.reason });
    await noteOnDevice(
      w.tx,
      device.id,
      'resync',
      `${RESYNC_WORDS[options.reason]}${options.full ? ', and everyone outside its areas removed' : leaving.length > 0 ? `, and ${counted(leaving.length, 'person', 'people')} of other areas removed` : ''}: ${counted(queued, 'command')} queued`,
      { reason: options.reason, full: options.full, queued, ...(leaving.length > 0 ? { removed: leaving.map((u) => u.pin) } : {}) },
      this.ctx.clock.now(),
    );
    return queued;
  }

  /**
   * The service's people outside the terminal's scope leave it, by the one rule of an area change
   * (enrollment/leaving.ts): a user whose fingerprints the terminal may hold alone stays until the
   * service holds them (asked for first). `full`: every user outside its scope goes, the
   * service's people as an area change takes them off (the others by a plain delete, queued by
   * the caller). Returns those taken off that way and the queries of templates queued.
   */
  private async leaveOutside(w: WriteContext, device: DeviceRow, outside: readonly DeviceUserRow[], full: boolean) {
    const { enrollment } = this.deps;
    const linked = outside.filter((u) => u.enrolleeId !== null);
    const people = (users: readonly DeviceUserRow[]) => users.map((u) => ({ id: u.enrolleeId!, devicePin: u.pin }));
    if (full) {
      const leaving = linked.filter((u) => u.source !== 'reported');
      await enrollment.fanOut.removeFromDevices(w, people(leaving), [device.id]);
      return { leaving, fetching: 0 };
    }
    const { staying } = await enrollment.leaving.leave(w, people(linked), [device.id]);
    const stays = new Set(staying.map((s) => s.pin));
    return { leaving: linked.filter((u) => !stays.has(u.pin)), fetching: staying.filter((s) => s.fetching).length };
  }

  /** Asks the terminal for its users; the resync is queued when it answers (reconcile.ts). */
  async afterUserQuery(w: WriteContext, deviceId: string, reason: ResyncReason): Promise<void> {
    await this.deps.commands.enqueue(w, [userQuery(deviceId, reason)]);
  }

  /**
   * Consent given to an enrollee adopted from terminals (or linked by a walk-up there): those
   * terminals are asked for the fingerprints they hold of them, which then arrive as walk-up
   * uploads. Users the service put on a terminal hold nothing it does not have; nor does one
   * whose own user its record went over (`sent` too, devices/users.ts `sent`): the fingers there
   * are that user's, never taken as theirs.
   */
  async fetchTemplatesOf(w: WriteContext, enrolleeId: string): Promise<void> {
    const adopted = (await this.deps.devices.users.linkedTo(w.tx, enrolleeId)).filter((u) => u.source === 'reported');
    // Where they wait to leave (out of their scope), the query is the leave's: the answer is
    // stored, then they leave (enrollment/leaving.ts), instead of being refused as out of scope.
    const leaving = await this.deps.enrollment.leaving.leavingFrom(
      w.tx,
      enrolleeId,
      adopted.map((u) => u.deviceId),
    );
    await this.deps.commands.enqueue(
      w,
      adopted.map((u) => templateQuery(u.deviceId, u.pin, { leave: leaving.has(u.deviceId) })),
    );
  }
}

/** A delete of a terminal's user; `resolves` marks one an administrator asked for (reconcile.ts sends the enrollee with that PIN afterwards). */
export function removal(deviceId: string, pin: string): NewCommand {
  return { deviceId, kind: 'delete_user', payload: { pin, resolves: true }, supersedeKey: `user:${pin}` };
}

/** `DATA QUERY USERINFO`; with a reason, the resync that waits for the answer. */
function userQuery(deviceId: string, resyncAfter: ResyncReason | null): NewCommand {
  return { deviceId, kind: 'query_users', payload: resyncAfter ? { resync: resyncAfter } : {}, supersedeKey: QUERY_USERS_KEY };
}

/** Why a terminal was sent its people again, as its event list says it. */
const RESYNC_WORDS: Record<ResyncReason, string> = {
  requested: 'Sent its people again (asked by an administrator)',
  approved: 'Sent the people of its areas after approval',
  returned: 'Sent its people again after a long absence',
  cleared: 'Sent its people again after its data was cleared',
  drift: 'Sent again the people it no longer held',
};
