/**
 * A real fleet: what each terminal holds, and keeping it what the service expects. The users a
 * terminal reports are listed per terminal (the devices module keeps them, devices/users.ts); a
 * terminal's own user is adopted as an enrollee (keeping the PIN people already type) or removed;
 * `resync` queues every in-scope user and template to a terminal again (`full` also removes the
 * users outside its scope). The automatic parts (resync on return, retries, clear data) are in
 * reconcile.ts; people moved to other areas leave the old areas' terminals in area-moves.ts.
 */
import { isNull, or } from 'drizzle-orm';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { type Page, pageOf, textCursor } from '../../platform/http/paging';
import { type AreaScope, EVERYWHERE, isLimited } from '../../platform/scope';
import { areaNames } from '../areas';
import { audit } from '../audit';
import { type CommandView, refuseUntilApproved } from '../commands';
import { type DeviceRow, type DeviceUserRow, deviceRef } from '../devices';
import { checkPinCarried, type EnrolleeRow, normaliseCard, type PinHolder } from '../enrollees';
import { hasConsent, templateQuery } from '../enrollment';
import type { EventChannel, EventLog } from '../events';
import { AreaMoves } from './area-moves';
import type { FleetEvents } from './events';
import type { TerminalUserView } from './model';
import { FleetReconciler } from './reconcile';
import { type FleetDeps, Resync, removal } from './resync';
import type { FleetRuntime } from './runtime';

export class Fleet {
  readonly events: EventChannel<FleetEvents>;
  readonly reconciler: FleetReconciler;
  /** People moved to other areas taken off the old areas' terminals on the move's date (area-moves.ts). */
  readonly areaMoves: AreaMoves;
  private readonly resyncs: Resync;

  constructor(
    private readonly ctx: FleetRuntime,
    log: EventLog,
    readonly deps: FleetDeps,
  ) {
    this.events = log.channel<FleetEvents>();
    this.resyncs = new Resync(ctx, this.events, deps);
    this.reconciler = new FleetReconciler(ctx, this.resyncs, deps);
    this.areaMoves = new AreaMoves(ctx, deps);
  }

  /**
   * The users a terminal holds, as it last reported them or as the service put them there, a page
   * at a time in numeric PIN order. For a caller limited to areas, the people of other areas on a
   * shared terminal are left out (as from every list), and a conflict with one of them is told,
   * not who they are.
   */
  async users(serial: string, scope: AreaScope = EVERYWHERE, page: { cursor?: string; limit: number } = { limit: 100 }): Promise<Page<TerminalUserView>> {
    const q = this.ctx.db.orm;
    const after = textCursor('device-users', page.cursor);
    const device = await this.deps.devices.get(serial, q);
    const { enrollees } = this.deps;
    const rows = await this.deps.devices.users.of(q, device.id, {
      after,
      limit: page.limit + 1,
      visible: (enrollee) => {
        const member = enrollees.membership.enrolleeInScope(enrollee, scope);
        return member && or(isNull(enrollee), member);
      },
    });
    const shown = rows.slice(0, page.limit);
    // A deleted person's PIN is held too (their tombstone keeps it): a user under it is a conflict, not adoptable.
    const holders = await enrollees.byPins(
      (statement) => this.ctx.db.client.execute(statement),
      shown.map((r) => r.pin),
    );
    // Who holds a conflicting PIN is named only to a caller of that person's areas.
    const named = new Set(
      await enrollees.keepInScope(
        q,
        [...holders.values()].map((h) => h.id),
        scope,
      ),
    );
    return pageOf(
      'device-users',
      rows,
      page.limit,
      (r) => r.pin,
      (users) => users.map((r) => terminalUserView(r, holders.get(r.pin) ?? null, named)),
    );
  }

  /**
   * Adopts a terminal's own user: as a new enrollee of `employee` with that PIN (in the
   * terminal's areas unless `areas` says otherwise), or as the existing `enrollee` who has that
   * PIN (the conflict was the same person). The user's earlier punches on this terminal become
   * the enrollee's; the fingerprints it holds are fetched once the enrollee has consent. A PIN
   * the fleet cannot carry (not 1 to 9 digits) is refused (`invalid_pin`), nothing created.
   */
  async adopt(
    serial: string,
    pin: string,
    body: { employee?: string; enrollee?: string; areas?: string[] },
    by: string,
    scope: AreaScope = EVERYWHERE,
  ): Promise<EnrolleeRow> {
    if ((body.employee === undefined) === (body.enrollee === undefined)) {
      throw new FpaError('validation_error', 'give either employee (a new enrollee) or enrollee (the one with this PIN)', { fields: ['employee', 'enrollee'] });
    }
    const { devices, enrollees } = this.deps;
    const device = await devices.get(serial);
    const user = await this.ownUser(this.ctx.db.orm, device, pin);
    // The enrollee goes to every terminal of their areas: a PIN some of them cannot hold is not adopted.
    checkPinCarried(pin);
    if (body.enrollee !== undefined) {
      const enrolleeId = body.enrollee;
      return this.ctx.db.write(async (w) => {
        await this.ownUser(w.tx, device, pin);
        // A person outside the caller's areas does not exist for it (nor their PIN, nor their templates).
        const person = await enrollees.get(enrolleeId, w.tx, scope);
        if (person.devicePin !== pin) {
          throw new FpaError('conflict', 'the enrollee has another PIN; a terminal user is adopted as the enrollee with the same PIN', {
            device_pin: person.devicePin,
            pin,
          });
        }
        await this.refuseOutOfScope(w.tx, device, person.id);
        await this.deps.devices.users.link(w.tx, device.id, user.pin, person.id);
        // They were left off this terminal while it was a conflict: their record and templates go
        // now, BEFORE it is asked for the fingers it holds of them (adopted). A terminal runs a
        // batch in order: asked first, it would upload its own capture of a finger (a new version,
        // sent everywhere) and then take the service's older one over it, holding what the service
        // no longer records there. Asked after, it answers with what it was given (no new version)
        // and its other fingers.
        await this.deps.enrollment.fanOut.backfillDevice(w, device, [person]);
        await this.adopted(w, device, user, person, by);
        return person;
      });
    }
    // By default the terminal's areas: those of a limited caller's own (the terminal shares one with it).
    const terminalAreas = [...(await areaNames(this.ctx.db.orm, await devices.areaIdsOf(this.ctx.db.orm, device.id))).values()];
    const areas = body.areas ?? (isLimited(scope) ? terminalAreas.filter((a) => scope.areas.includes(a)) : terminalAreas);
    const card = user.card ? normaliseCard(user.card) : null;
    return enrollees.changes.create(body.employee!, {
      pin,
      areas,
      scope,
      // The card they badge with on that terminal, unless an enrollee already holds it.
      card: card?.ok && (await this.cardIsFree(card.card)) ? card.card : null,
      by,
      // The user is linked before enrollee_created (the terminals that react see them as this
      // enrollee); their punches and the adoption are announced after it, about someone the log knows.
      onCreated: async (w, person) => {
        await this.ownUser(w.tx, device, pin);
        await devices.users.link(w.tx, device.id, pin, person.id);
      },
      onAnnounced: (w, person) => this.adopted(w, device, user, person, by),
    });
  }

  /**
   * Removes a terminal's own user from it (`delete_user`); the user leaves the list when the
   * terminal confirms. An enrollee with that PIN who belongs on the terminal is sent then.
   */
  async removeUser(serial: string, pin: string, by: string): Promise<CommandView> {
    return this.ctx.db.write(async (w) => {
      const device = await this.deps.devices.get(serial, w.tx);
      await this.ownUser(w.tx, device, pin);
      const [id] = await this.deps.commands.enqueue(w, [removal(device.id, pin)]);
      await audit(w.tx, this.ctx.clock.now(), { actor: by, action: 'device.user_removed', targetType: 'device', targetId: serial, details: { pin } });
      return this.deps.commands.operator.viewOf(w.tx, device.id, id!);
    });
  }

  /** `POST devices/{sn}/resync/`. */
  async resync(serial: string, options: { full?: boolean }, by: string): Promise<{ queued: number }> {
    return this.ctx.db.write(async (w) => {
      const device = await this.deps.devices.get(serial, w.tx);
      refuseUntilApproved(device, 'a resync');
      if (device.status !== 'approved')
        throw new FpaError('conflict', `the terminal is ${device.status}; only an approved terminal is resynced`, { status: device.status });
      const queued = await this.resyncs.device(w, device, { full: options.full ?? false, reason: 'requested' });
      await audit(w.tx, this.ctx.clock.now(), {
        actor: by,
        action: 'device.resynced',
        targetType: 'device',
        targetId: serial,
        details: { full: options.full ?? false, queued },
      });
      return { queued };
    });
  }

  private async cardIsFree(card: string): Promise<boolean> {
    return this.deps.enrollees.changes.checkCardFree(this.ctx.db.orm, card, null).then(
      () => true,
      () => false,
    );
  }

  /**
   * Linked out of their areas, the service would send a person to the terminal and then refuse
   * what it holds of them as out of scope (its own template among it): they are given one of the
   * terminal's areas first, as everywhere else a person reaches a terminal.
   */
  private async refuseOutOfScope(q: Queryable, device: DeviceRow, enrolleeId: string): Promise<void> {
    if (device.enrollmentStation) return;
    if (await this.deps.enrollees.membership.sharesArea(q, enrolleeId, await this.deps.devices.areaIdsOf(q, device.id))) return;
    throw new FpaError(
      'conflict',
      "the enrollee is not in this terminal's areas and it is not an enrollment station: give them one of its areas first (PATCH enrollees/{id}/), then adopt",
      { enrollee: enrolleeId, reason: 'not_in_scope' },
    );
  }

  /** A user of the terminal that is not (yet) an enrollee: 404 when the terminal has no such user, 409 when it is an enrollee. */
  private async ownUser(q: Queryable, device: DeviceRow, pin: string): Promise<DeviceUserRow> {
    const user = await this.deps.devices.users.one(q, device.id, pin);
    if (!user) throw new FpaError('not_found', 'the terminal has no user with this PIN (as far as it reported)', { pin });
    if (user.enrolleeId !== null) {
      // A deleted person's user not yet deleted there names no one (terminalUserView).
      if ((await this.deps.enrollees.find(q, user.enrolleeId))?.status === 'deleted') {
        throw new FpaError(
          'conflict',
          'a deleted person held this PIN, and it is never given to anyone else: give this user another PIN at the terminal, then adopt them under it',
          { device_pin: pin },
        );
      }
      throw new FpaError('conflict', 'this terminal user is already an enrollee', { pin, enrollee: user.enrolleeId });
    }
    return user;
  }

  /** The user is linked: their punches on the terminal become the person's, their templates are fetched (with consent), and the adoption is announced. */
  private async adopted(w: WriteContext, device: DeviceRow, user: DeviceUserRow, person: EnrolleeRow, by: string): Promise<void> {
    const { punches, commands } = this.deps;
    const attributed = await punches.attributeFromDevice(w, device.id, user.pin, { id: person.id, employee: person.employeeKey });
    if (await hasConsent(w.tx, person.id)) {
      await commands.enqueue(w, [templateQuery(device.id, user.pin)]);
    }
    await audit(w.tx, this.ctx.clock.now(), {
      actor: by,
      action: 'device.user_adopted',
      targetType: 'device',
      targetId: device.serialNumber,
      details: { pin: user.pin, enrollee: person.id, punches: attributed },
    });
    await this.events.record(w, 'terminal_user_adopted', { device: deviceRef(device), pin: user.pin, enrollee: person.id, punches: attributed, by });
  }
}

/**
 * A terminal's user as the list shows it. A deleted person's PIN names no one from the moment of
 * the deletion, whatever still arrives under it (a terminal that has not run the delete yet, a
 * USB file): their user there shows neither their name nor their card nor a link to them, and
 * the PIN is held (a conflict naming no one: it is never given to anyone else). The link stays
 * in the database until the terminal confirms the delete: what it uploads under the PIN meanwhile
 * is still refused as theirs (enrollment/walk-up.ts).
 */
function terminalUserView(row: DeviceUserRow, holder: PinHolder | null, named: ReadonlySet<string>): TerminalUserView {
  const deleted = holder?.deletedAt !== undefined;
  const theirs = deleted && row.enrolleeId === holder?.id;
  const conflict = holder && (deleted || holder.id !== row.enrolleeId) ? holder : null;
  return {
    pin: row.pin,
    name: theirs ? null : row.name,
    card: theirs ? null : row.card,
    privilege: row.privilege,
    enrollee: theirs ? null : row.enrolleeId,
    conflict: conflict && (named.has(conflict.id) && !deleted ? { enrollee: conflict.id, employee: conflict.employee } : { enrollee: null, employee: null }),
    biometrics: Object.fromEntries(Object.entries(row.biometrics).map(([type, indexes]) => [type, indexes.length])),
  };
}
