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
import { type DeviceDetail, type DeviceRow, type DeviceUserRow, newestLogEntryOf, noteOnDevice } from '../devices';
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

  /**
   * What the terminal should hold against what it reports (the device detail's `sync_check`),
   * each count of the same set on both sides: `users`, every user the terminal reports
   * (`UserCount`) against the people of its areas the service placed there plus every other user
   * it knows there (its own users, people adopted or enrolled there from other areas, people on
   * their way off it); `fingerprints` (and faces, palms, veins), every body part the terminal
   * reports against the service's templates it holds or should hold plus the parts the terminal
   * reported for any of its users (its own users' included). `unknown_users`: users whose parts
   * the terminal never reported nor the service sent (its inventory names users, not fingers):
   * their fingers are in `reported` only, so while there are such users the fingerprints agree
   * when the terminal holds at least what is expected.
   */
  async syncCheck(q: Queryable, device: DeviceRow): Promise<DeviceDetail['sync_check']> {
    const { devices, enrollees, enrollment } = this.deps;
    const people = await enrollees.membership.activeInAreas(q, await devices.areaIdsOf(q, device.id));
    const held = await devices.users.of(q, device.id);
    const byPin = new Map(held.map((u) => [u.pin, u]));
    const inScope = new Set(people.map((p) => p.id));
    const placed = people.filter((p) => {
      const u = byPin.get(p.devicePin);
      return !u || u.enrolleeId === p.id;
    }).length;
    const others = held.filter((u) => u.enrolleeId === null || !inScope.has(u.enrolleeId));
    const users = { expected: placed + others.length, reported: device.userCount };
    const parts = partsOf(await enrollment.sync.expectedParts(q, device.id), held);
    const count = (kinds: readonly BiometricType[], reported: number | null) => ({
      expected: kinds.reduce((n, k) => n + (parts.byKind.get(k)?.size ?? 0), 0),
      reported,
    });
    const fingerprints = { ...count(['fingerprint'], device.fingerprintCount), unknown_users: parts.unknownUsers };
    const kinds = {
      faces: count(['face', 'visible_face'], reportedCount(device, 'FaceCount')),
      palms: count(['palm'], reportedCount(device, 'PvCount')),
      finger_veins: count(['finger_vein'], reportedCount(device, 'FvCount')),
    };
    const agree = (c: { expected: number; reported: number | null }) =>
      c.expected === c.reported || (parts.unknownUsers > 0 && c.reported !== null && c.reported >= c.expected);
    // Faces, palms and veins count where the terminal reports them; older firmware does not.
    const inSync = users.expected === users.reported && [fingerprints, ...Object.values(kinds).filter((c) => c.reported !== null)].every(agree);
    return { users, fingerprints, ...kinds, in_sync: users.reported !== null && fingerprints.reported !== null ? inSync : null };
  }
}

/**
 * The body parts expected on a terminal by kind, each once: the service's templates there (by
 * enrollee and part) and the parts the terminal reported for its users (a linked user's by their
 * enrollee, so a template it holds is not counted twice; its own users' by PIN). `unknownUsers`:
 * users none of whose parts it reported nor the service sent (its own users from its inventory,
 * a user adopted there whose fingers were not fetched).
 */
function partsOf(expected: readonly { enrolleeId: string; type: string; fingerIndex: number }[], held: readonly DeviceUserRow[]) {
  const byKind = new Map<string, Set<string>>();
  const add = (type: string, key: string) => byKind.set(type, (byKind.get(type) ?? new Set()).add(key));
  for (const p of expected) add(p.type, `${p.enrolleeId}:${p.fingerIndex}`);
  for (const u of held) {
    for (const [type, indexes] of Object.entries(u.biometrics)) for (const i of indexes) add(type, u.enrolleeId ? `${u.enrolleeId}:${i}` : `pin ${u.pin}:${i}`);
  }
  const withParts = new Set(expected.map((p) => p.enrolleeId));
  const unknownUsers = held.filter(
    (u) => Object.keys(u.biometrics).length === 0 && (u.enrolleeId === null || (u.source === 'reported' && !withParts.has(u.enrolleeId))),
  ).length;
  return { byKind, unknownUsers };
}

/** The device log's entries of a terminal that lost its users, and of its getting them back (the diagnostics read them). */
export const USERS_LOST = 'users_lost';

/** A count the terminal reported among its parameters (options, INFO reply), or null. */
function reportedCount(device: DeviceRow, key: string): number | null {
  const value = device.parameters?.[key]?.trim() ?? '';
  return /^\d{1,9}$/.test(value) ? Number(value) : null;
}
