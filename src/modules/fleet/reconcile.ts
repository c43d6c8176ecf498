/**
 * The fleet converges without an administrator: a terminal back after longer than its commands
 * live is resynced; a change in what it can take (algorithm, firmware) and the periodic job send
 * again what failed or was incompatible; a terminal cleared with `clear_data` is filled again
 * with its in-scope users; a user an administrator removed makes room for the enrollee with that
 * PIN; consent given to an adopted user fetches the fingerprints their terminals hold (the
 * reactions are in reactions.ts). The device detail shows the counts the terminal reports
 * against what is expected (`sync_check`).
 */
import type { Queryable, WriteContext } from '../../platform/db/client';
import { counted } from '../../platform/words';
import type { BiometricType } from '../../protocol/adms';
import { type DeviceDetail, type DeviceRow, newestLogEntryOf, noteOnDevice } from '../devices';
import type { FleetDeps, Resync } from './resync';
import type { FleetRuntime } from './runtime';

export class FleetReconciler {
  constructor(
    private readonly ctx: FleetRuntime,
    readonly resync: Resync,
    private readonly deps: FleetDeps,
  ) {}

  /**
   * Job `reconcile-devices`: every approved terminal gets again what failed or was incompatible
   * there; one that reports fewer users than `sync_check` expects (a user deleted at its menu) is
   * asked for its users, and those it no longer holds are queued again when it answers.
   */
  async retryAll(): Promise<{ terminals: number; queued: number }> {
    let queued = 0;
    let terminals = 0;
    for (const device of await this.deps.devices.withStatus('approved')) {
      const n = await this.ctx.db.write(async (w) => (await this.retryUnsynced(w, device)) + (await this.askIfUsersMissing(w, device)));
      if (n > 0) terminals++;
      queued += n;
    }
    return { terminals, queued };
  }

  /** Sends again the enrollees whose templates failed or were incompatible on this terminal (still active and in scope). */
  async retryUnsynced(w: WriteContext, device: DeviceRow): Promise<number> {
    const { devices, enrollees, enrollment } = this.deps;
    const unsynced = new Set(await enrollment.sync.unsyncedOn(w.tx, device.id));
    if (unsynced.size === 0) return 0;
    const people = (await enrollees.membership.activeInAreas(w.tx, await devices.areaIdsOf(w.tx, device.id))).filter((p) => unsynced.has(p.id));
    return enrollment.fanOut.backfillDevice(w, device, people);
  }

  /** A terminal reporting fewer users than expected is asked for them (drift repaired on its answer); returns the commands queued. */
  private async askIfUsersMissing(w: WriteContext, device: DeviceRow): Promise<number> {
    // A terminal not done with the inventory of its approval holds fewer than expected until its
    // backfill: asking again would take that query's place, and what it is for.
    if ((await this.deps.commands.lookups.inventorySince(w.tx, device.id)) !== null) return 0;
    const { users } = await this.syncCheck(w.tx, device);
    if (users.reported === null || users.reported >= users.expected) return 0;
    await this.resync.afterUserQuery(w, device.id, 'drift');
    return 1;
  }

  /**
   * A terminal reported how many users it holds (its options, INFO): fewer than half of those it
   * is known to hold (none, after a factory reset or a wiped memory) is asked for them at once,
   * as the hourly job asks (`drift`: those it lost are sent again when it answers), and its log
   * says so (`users_lost`, which the diagnostics show) until it reports the users expected there
   * again. The count alone takes nobody off its list: only its answer says who it holds.
   */
  async usersReported(w: WriteContext, device: DeviceRow, count: number): Promise<void> {
    if (device.status !== 'approved') return;
    // Not done with the inventory of its approval: it is being filled, not emptied.
    if ((await this.deps.commands.lookups.inventorySince(w.tx, device.id)) !== null) return;
    const now = this.ctx.clock.now();
    const noted = await newestLogEntryOf(w.tx, device.id, USERS_LOST);
    const open = noted?.details?.lost === true;
    // The usual change (a user more or fewer) reads no more: only a count fallen below half of the
    // one reported before (or a loss said and not yet over) is weighed against who it holds.
    if (!open && device.userCount !== null && count * 2 >= device.userCount) return;
    const held = (await this.deps.devices.users.of(w.tx, device.id)).length;
    if (count * 2 < held) {
      if (!open) {
        const { users } = await this.syncCheck(w.tx, { ...device, userCount: count });
        await noteOnDevice(
          w.tx,
          device.id,
          USERS_LOST,
          `the terminal reports ${counted(count, 'user')} where it held ${held} (reset to factory settings, or its memory wiped?): asked for its users, to send again the people it lost`,
          { lost: true, reported: count, held, expected: users.expected },
          now,
        );
      }
      await this.resync.afterUserQuery(w, device.id, 'drift');
      return;
    }
    if (!open) return;
    const { users } = await this.syncCheck(w.tx, { ...device, userCount: count });
    if (count < users.expected) return;
    await noteOnDevice(
      w.tx,
      device.id,
      USERS_LOST,
      `the terminal holds its people again: it reports ${counted(count, 'user')}`,
      { lost: false, reported: count, expected: users.expected },
      now,
    );
  }

  /** What the terminal should hold against what it reports (the device detail's `sync_check`). */
  async syncCheck(q: Queryable, device: DeviceRow): Promise<DeviceDetail['sync_check']> {
    const { devices, enrollees, enrollment } = this.deps;
    const people = await enrollees.membership.activeInAreas(q, await devices.areaIdsOf(q, device.id));
    const held = await devices.users.of(q, device.id);
    const byPin = new Map(held.map((u) => [u.pin, u]));
    const placed = people.filter((p) => {
      const u = byPin.get(p.devicePin);
      return !u || u.enrolleeId === p.id;
    }).length;
    const own = held.filter((u) => u.enrolleeId === null);
    const users = { expected: placed + own.length, reported: device.userCount };
    const expected = await enrollment.sync.expectedByKind(q, device.id);
    // Each of the terminal's counts against its own kinds: FPCount counts fingers, not faces or palm parts.
    const count = (kinds: readonly BiometricType[], reported: number | null) => ({
      expected: kinds.reduce((n, k) => n + (expected[k] ?? 0) + own.reduce((m, u) => m + (u.biometrics[k]?.length ?? 0), 0), 0),
      reported,
    });
    const fingerprints = count(['fingerprint'], device.fingerprintCount);
    const others = {
      faces: count(['face', 'visible_face'], reportedCount(device, 'FaceCount')),
      palms: count(['palm'], reportedCount(device, 'PvCount')),
      finger_veins: count(['finger_vein'], reportedCount(device, 'FvCount')),
    };
    const agree = (c: { expected: number; reported: number | null }) => c.expected === c.reported;
    // Faces, palms and veins count where the terminal reports them; older firmware does not.
    const inSync = [users, fingerprints, ...Object.values(others).filter((c) => c.reported !== null)].every(agree);
    return { users, fingerprints, ...others, in_sync: users.reported !== null && fingerprints.reported !== null ? inSync : null };
  }
}

/** The device log's entries of a terminal that lost its users, and of its getting them back (the diagnostics read them). */
export const USERS_LOST = 'users_lost';

/** A count the terminal reported among its parameters (options, INFO reply), or null. */
function reportedCount(device: DeviceRow, key: string): number | null {
  const value = device.parameters?.[key]?.trim() ?? '';
  return /^\d{1,9}$/.test(value) ? Number(value) : null;
}
