/**
 * The fleet converges without an administrator: a terminal back after longer than its commands
 * live is resynced; a change in what it can take (algorithm, firmware) and the periodic job send
 * again what failed or was incompatible; a terminal cleared with `clear_data` is filled again
 * with its in-scope users; a user an administrator removed makes room for the enrollee with that
 * PIN; consent given to an adopted user fetches the fingerprints their terminals hold. The
 * device detail shows the counts the terminal reports against what is expected (`sync_check`).
 */
import type { Queryable, WriteContext } from '../../platform/db/client';
import type { Runtime } from '../../platform/runtime';
import type { DeviceDetail, DeviceRow } from '../devices';
import type { FleetDeps, Resync, ResyncReason } from './resync';

export class FleetReconciler {
  constructor(
    private readonly ctx: Runtime,
    private readonly resync: Resync,
    private readonly deps: FleetDeps,
  ) {
    this.react();
    deps.devices.addDetail(async (q, device) => ({ sync_check: await this.syncCheck(q, device) }));
  }

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

  private react(): void {
    const { ctx, resync } = this;
    const { devices, commands, enrollees, biometrics } = this.deps;
    const { templates } = biometrics;

    // Approved (or approved again): first who the terminal already holds — it may come from
    // another server, or its menu — then the backfill, so that no enrollee replaces one of its
    // users with the same PIN (the renderer checks again before sending, terminals/render.ts).
    devices.events.react('device_approved', async (w, approved) => {
      for (const { data } of approved) await resync.afterUserQuery(w, data.device.id, 'approved');
    });

    // Back after longer than its commands live (what was queued for it expired), or the first
    // contact of a pre-registered terminal: asked for its users again, then resynced.
    devices.events.react('device_online', async (w, online) => {
      for (const { data } of online) {
        if (data.status !== 'approved') continue;
        if (data.away_seconds === null) await resync.afterUserQuery(w, data.device.id, 'approved');
        else if (data.away_seconds * 1000 > ctx.settings.COMMAND_EXPIRY) await resync.afterUserQuery(w, data.device.id, 'returned');
      }
    });

    devices.events.react('device_updated', async (w, updated) => {
      for (const { data } of updated) {
        if (data.status !== 'approved' || !(data.changes.algorithm_version || data.changes.firmware || data.changes.parameters)) continue;
        const device = await devices.findById(w.tx, data.device.id);
        if (device) await this.retryUnsynced(w, device);
      }
    });

    commands.events.react('device_command_finished', async (w, finished) => {
      for (const { data } of finished) {
        const { kind, payload } = data.command;
        const resyncAfter = kind === 'QUERY_USERS' && typeof payload.resync === 'string' ? (payload.resync as ResyncReason) : null;
        // A terminal that cannot answer the query (it failed) is resynced all the same; one that
        // let it expire is resynced when it is back (device_online).
        if (data.status !== 'succeeded' && !(resyncAfter && data.status === 'failed')) continue;
        const device = await devices.findById(w.tx, data.device.id);
        if (device?.status !== 'approved') continue; // removed or disabled meanwhile
        if (resyncAfter === 'drift') {
          const query = await commands.viewOf(w.tx, device.id, data.command.id);
          // No send time (never sent): nothing to compare the answer with.
          if (query.sent_at !== null) await resync.missing(w, device, Date.parse(query.sent_at));
        } else if (resyncAfter) {
          await resync.backfill(w, device, resyncAfter);
        } else if (kind === 'CLEAR_DATA') {
          // The terminal holds nothing now: it gets its in-scope users and templates again.
          await devices.users.clear(w.tx, device.id);
          await templates.forgetDevice(w.tx, device.id);
          await resync.device(w, device, { full: false, reason: 'cleared' });
        } else if (kind === 'delete_user' && payload.resolves === true && typeof payload.pin === 'string') {
          const person = await enrollees.findByPin(w.tx, payload.pin);
          if (person?.status === 'active' && (await enrollees.sharesArea(w.tx, person.id, await devices.areaIdsOf(w.tx, device.id)))) {
            await templates.backfillDevice(w, device, [person]);
          }
        }
      }
    });

    biometrics.events.react('consent_given', async (w, given) => {
      for (const { data } of given) await resync.fetchTemplatesOf(w, data.enrollee);
    });
  }

  /** Sends again the enrollees whose templates failed or were incompatible on this terminal (still active and in scope). */
  private async retryUnsynced(w: WriteContext, device: DeviceRow): Promise<number> {
    const { devices, enrollees, biometrics } = this.deps;
    const { templates } = biometrics;
    const unsynced = new Set(await templates.unsyncedOn(w.tx, device.id));
    if (unsynced.size === 0) return 0;
    const people = (await enrollees.activeInAreas(w.tx, await devices.areaIdsOf(w.tx, device.id))).filter((p) => unsynced.has(p.id));
    return templates.backfillDevice(w, device, people);
  }

  /** A terminal reporting fewer users than expected is asked for them (drift repaired on its answer); returns the commands queued. */
  private async askIfUsersMissing(w: WriteContext, device: DeviceRow): Promise<number> {
    const { users } = await this.syncCheck(w.tx, device);
    if (users.reported === null || users.reported >= users.expected) return 0;
    await this.resync.afterUserQuery(w, device.id, 'drift');
    return 1;
  }

  private async syncCheck(q: Queryable, device: DeviceRow): Promise<DeviceDetail['sync_check']> {
    const { devices, enrollees, biometrics } = this.deps;
    const people = await enrollees.activeInAreas(q, await devices.areaIdsOf(q, device.id));
    const held = await devices.users.of(q, device.id);
    const byPin = new Map(held.map((u) => [u.pin, u]));
    const placed = people.filter((p) => {
      const u = byPin.get(p.devicePin);
      return !u || u.enrolleeId === p.id;
    }).length;
    const own = held.filter((u) => u.enrolleeId === null);
    const users = { expected: placed + own.length, reported: device.userCount };
    const ownFingers = own.reduce((n, u) => n + (u.biometrics.fingerprint?.length ?? 0), 0);
    const fingerprints = { expected: (await biometrics.templates.countExpected(q, device.id)) + ownFingers, reported: device.fingerprintCount };
    const reported = users.reported !== null && fingerprints.reported !== null;
    return { users, fingerprints, in_sync: reported ? users.expected === users.reported && fingerprints.expected === fingerprints.reported : null };
  }
}
