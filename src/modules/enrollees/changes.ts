/**
 * Changes to enrollees: created (with the next free PIN, or a terminal user's own), changed
 * (areas, name, card, active) and deleted (a tombstone keeps the PIN), and the card a terminal
 * fills. Each is audited and announced in its transaction.
 *
 * What follows from a change on the terminals (user records, templates, deletes) and on
 * sessions is done by the modules that react to this module's events.
 */

import { and, eq, ne } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { nameKey } from '../../platform/name-key';
import { type AreaScope, EVERYWHERE, isLimited } from '../../platform/scope';
import { addDays, localDateOf } from '../../platform/time/dates';
import { areasAfterSetting, areasToSet, areasWithin, assertWhollyWithin, resolveAreas } from '../areas';
import { audit } from '../audit';
import type { DeviceRef } from '../devices';
import type { Employee, EmployeeDirectory } from '../employees';
import type { EventChannel } from '../events';
import { areaIdsOf, areaNamesOf, recordAreaChange, setEnrolleeAreas } from './area-membership';
import * as cardRules from './card-rules';
import type { EnrolleeChanges, EnrolleeEvents } from './events';
import { checkPinFree, nextPin } from './pin-allocation';
import type { EnrolleeRuntime } from './runtime';
import { type EnrolleeRow, enrollees } from './tables';
import { type EnrolleePatch, enrolleeRef } from './view-shapes';

interface CreateOptions {
  areas?: string[];
  by?: string;
  pin?: string;
  card?: string | null;
  /** The caller's areas: a limited caller puts people only in its own areas (its own by default), and learns nothing of others. */
  scope?: AreaScope;
  /**
   * In the same transaction, before `enrollee_created` is recorded: what its reactions must see
   * (adoption links the terminal's user, so the terminals that react see them as this enrollee).
   * Records no event: nothing may be announced before the person it is about.
   */
  onCreated?: (w: WriteContext, row: EnrolleeRow) => Promise<void>;
  /** In the same transaction, after `enrollee_created`: what follows from the person (adoption's punches attributed, the adoption announced). */
  onAnnounced?: (w: WriteContext, row: EnrolleeRow) => Promise<void>;
}

export class ChangesToEnrollees {
  constructor(
    private readonly ctx: EnrolleeRuntime,
    private readonly events: EventChannel<EnrolleeEvents>,
    private readonly directory: EmployeeDirectory,
    /** Whether a terminal holds a user with this PIN (the devices module knows). */
    private readonly pinTaken: (q: Queryable, pin: string) => Promise<boolean>,
    /** The enrollee (not deleted) in the scope, else `not_found` (EnrolleeService.get). */
    private readonly get: (id: string, q: Queryable, scope?: AreaScope) => Promise<EnrolleeRow>,
  ) {}

  /**
   * Creates an enrollee with the next free device PIN, or with `pin` (adopting a terminal's own
   * user, who keeps the PIN they type); a PIN an enrollee holds, or once held, is `conflict`.
   * `onCreated` runs in the same transaction before `enrollee_created` is recorded, `onAnnounced`
   * after it: a reaction comes after what it reacts to in the log.
   */
  async create(employee: string, options: CreateOptions = {}): Promise<EnrolleeRow> {
    const areaNames = areasWithin(options.scope ?? EVERYWHERE, options.areas);
    const found = await this.directory.find(employee);
    if (!found) throw new FpaError('unknown_employee', 'no employee has that key', { employee });
    return this.ctx.db.write((w) => this.createIn(w, found, { ...options, areas: areaNames }));
  }

  /** `create` inside the caller's write (the employee import adds the employee in the same one). */
  async createIn(w: WriteContext, found: Employee, options: CreateOptions = {}): Promise<EnrolleeRow> {
    if (!found.active) throw new FpaError('employee_inactive', 'the employee is inactive in the employee directory', { employee: found.key });
    const by = options.by ?? 'system';
    const { tx } = w;
    const now = this.ctx.clock.now();
    const [existing] = await tx
      .select({ id: enrollees.id })
      .from(enrollees)
      .where(and(eq(enrollees.employeeKey, found.key), ne(enrollees.status, 'deleted')))
      .limit(1);
    // Which enrollee holds the employee or the PIN, only to a caller who may see them.
    const named = (id: string) =>
      this.get(id, tx, options.scope).then(
        () => true,
        () => false,
      );
    if (existing) throw new FpaError('conflict', 'this employee is already enrolled', (await named(existing.id)) ? { enrollee: existing.id } : {});
    const pin = options.pin ?? (await nextPin(tx, this.ctx.settings.ENROLLEE_PIN_START, this.pinTaken));
    if (options.pin !== undefined) await checkPinFree(tx, options.pin, named);
    const card = options.card ? cardRules.cardOrRefusal(options.card) : null;
    if (card) await cardRules.checkCardFree(tx, card, null, named);
    const row: EnrolleeRow = {
      id: crypto.randomUUID(),
      employeeKey: found.key,
      devicePin: pin,
      displayName: found.displayName,
      nameKey: nameKey(found.displayName),
      card,
      cardRemoved: false,
      pinAllocated: options.pin === undefined,
      status: 'active',
      deactivatedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await tx.insert(enrollees).values(row);
    const areaIds = await resolveAreas(tx, options.areas, now, this.ctx.settings.AREAS_CREATED_ON_USE);
    await setEnrolleeAreas(tx, row.id, areaIds);
    await audit(tx, now, {
      actor: by,
      action: 'enrollee.created',
      targetType: 'enrollee',
      targetId: row.id,
      details: { employee: found.key, device_pin: pin },
    });
    await options.onCreated?.(w, row);
    await this.events.record(w, 'enrollee_created', { enrollee: enrolleeRef(row), areas: areaIds, by });
    await options.onAnnounced?.(w, row);
    return row;
  }

  /**
   * Changes areas, display name or activity. What the terminals and sessions must do about it
   * (remove, backfill, rename, cancel) follows from `enrollee_updated`.
   */
  async update(id: string, patch: EnrolleePatch, by: string, scope: AreaScope = EVERYWHERE): Promise<EnrolleeRow> {
    if (patch.active === true) {
      // Asked of the directory before the write (a host's directory is the host's code, not this transaction's).
      const row = await this.get(id, this.ctx.db.orm, scope);
      if (row.status === 'deactivated') await this.refuseIfEmployeeInactive(row.employeeKey);
    }
    const within = patch.areas === undefined ? patch : { ...patch, areas: areasToSet(scope, patch.areas) };
    return this.ctx.db.write((w) => this.updateIn(w, id, within, by, scope));
  }

  /** `update` inside the caller's write (the employee import). */
  async updateIn(w: WriteContext, id: string, patch: EnrolleePatch, by: string, scope: AreaScope = EVERYWHERE): Promise<EnrolleeRow> {
    const { tx } = w;
    const now = this.ctx.clock.now();
    const row = await this.get(id, tx, scope);
    if (patch.active === false && row.status === 'active') await refuseIfShared(tx, id, scope, 'deactivate them');
    // Which enrollee holds a card, only to a caller who may see them.
    const named = (holder: string) =>
      this.get(holder, tx, scope).then(
        () => true,
        () => false,
      );
    const { set, changes } = await changesOf(tx, row, patch, now, named);
    await tx.update(enrollees).set(set).where(eq(enrollees.id, id));
    if (patch.areas !== undefined) {
      const from = await areaIdsOf(tx, id);
      // A limited caller sets only its own of the person's areas (areasAfterSetting).
      const current = isLimited(scope) ? ((await areaNamesOf(tx, [id])).get(id) ?? []) : [];
      const to = await resolveAreas(tx, areasAfterSetting(scope, patch.areas, current), now, this.ctx.settings.AREAS_CREATED_ON_USE);
      await setEnrolleeAreas(tx, id, to);
      // A move takes effect on the next local date: the day it is made (hours already worked,
      // a night under way) is judged under the areas it started with.
      const next = addDays(localDateOf(now, this.ctx.settings.ATTENDANCE_TIME_ZONE), 1);
      const effective = await recordAreaChange(tx, id, { at: now, from: next }, from, to);
      changes.areas = effective ? { from, to, effective_from: effective } : { from, to };
    }
    const updated: EnrolleeRow = { ...row, ...set };
    await audit(tx, now, { actor: by, action: 'enrollee.updated', targetType: 'enrollee', targetId: id, details: { ...patch } });
    await this.events.record(w, 'enrollee_updated', { enrollee: enrolleeRef(updated), changes, by });
    return updated;
  }

  /** A person whose employee left (inactive in the directory) is not made active again before the employee is. */
  private async refuseIfEmployeeInactive(employee: string): Promise<void> {
    const found = await this.directory.find(employee);
    if (found && !found.active) {
      throw new FpaError('employee_inactive', 'the employee is inactive in the employee directory: reactivate the employee first', { employee });
    }
  }

  /**
   * Deletion: the row is kept as a tombstone so the PIN is never reused; templates, consent,
   * terminal users and sessions follow from `enrollee_deleted`.
   */
  async delete(enrolleeId: string, options: { by: string; scope?: AreaScope }): Promise<void> {
    await this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const enrollee = await this.get(enrolleeId, w.tx, options.scope);
      await refuseIfShared(w.tx, enrollee.id, options.scope ?? EVERYWHERE, 'delete them');
      // The tombstone keeps the PIN for ever, but lets go of the card.
      await w.tx.update(enrollees).set({ status: 'deleted', card: null, updatedAt: now }).where(eq(enrollees.id, enrollee.id));
      await audit(w.tx, now, { actor: options.by, action: 'enrollee.deleted', targetType: 'enrollee', targetId: enrollee.id });
      // Its reactions (consent ended, templates destroyed, the deletion proof) take the deletion's instant from it.
      await this.events.record(w, 'enrollee_deleted', { enrollee: enrolleeRef(enrollee), by: options.by }, { at: now });
    });
  }

  /** A card (normalised) another enrollee holds is refused (`conflict`): one card, one person (card-rules.ts). */
  readonly checkCardFree = cardRules.checkCardFree;

  /**
   * The name keys of the people stored before migration 0039 (platform/name-key.ts): a SQL
   * migration cannot fold accents, so it keyed only the names of plain ASCII, and each start keys
   * the others here, 1,000 a write in one statement (the keys as one JSON value: a statement per
   * person would be a round trip each to a libSQL server). A name's key is written with the name
   * from then on, and a name renamed meanwhile keeps the key its rename wrote. After the first
   * start: one look-up on the key's index, nothing to key. Returns how many were keyed.
   */
  async keyNames(): Promise<number> {
    const unkeyed = await this.ctx.db.orm
      .select({ id: enrollees.id, displayName: enrollees.displayName })
      .from(enrollees)
      .where(and(eq(enrollees.nameKey, ''), ne(enrollees.displayName, '')));
    for (const part of chunks(unkeyed, 1_000)) {
      const keys = JSON.stringify(part.map(({ id, displayName }) => [id, displayName, nameKey(displayName)]));
      await this.ctx.db.write((w) => w.execute({ sql: KEY_NAMES_SQL, args: [keys] }));
    }
    return unkeyed.length;
  }

  /** A terminal reports its user's card (card-rules.ts `cardFromTerminal`). */
  cardFromTerminal(w: WriteContext, enrolleeId: string, card: string, device: DeviceRef): Promise<cardRules.CardOutcome> {
    return cardRules.cardFromTerminal(w, { clock: this.ctx.clock, events: this.events }, enrolleeId, card, device);
  }
}

/** Keys names not keyed yet (keyNames): `?1` a JSON array of `[id, display name as read, key]`; a name changed since is left to its rename's key. */
const KEY_NAMES_SQL = `update fpa_enrollees set name_key = k.value ->> 2
  from json_each(?1) as k
  where fpa_enrollees.id = k.value ->> 0 and fpa_enrollees.display_name = k.value ->> 1 and fpa_enrollees.name_key = ''`;

/** The row's new values and the changes to announce for a patch (areas apart: they need the area ids). */
async function changesOf(
  q: Queryable,
  row: EnrolleeRow,
  patch: EnrolleePatch,
  now: number,
  named: (id: string) => Promise<boolean>,
): Promise<{ set: Partial<EnrolleeRow>; changes: EnrolleeChanges }> {
  const set: Partial<EnrolleeRow> = { updatedAt: now };
  const changes: EnrolleeChanges = {};
  const card = patch.card === undefined || patch.card === null ? patch.card : cardRules.cardOrRefusal(patch.card);
  if (card !== undefined && card !== row.card) {
    if (card !== null) await cardRules.checkCardFree(q, card, row.id, named);
    set.card = card;
    // Removing a card is a decision terminals must not undo; setting one ends it (card-rules.ts).
    set.cardRemoved = card === null;
    changes.card = { from: row.card, to: card };
  }
  if (patch.display_name !== undefined && patch.display_name !== row.displayName) {
    set.displayName = patch.display_name;
    set.nameKey = nameKey(patch.display_name);
    changes.display_name = { from: row.displayName, to: patch.display_name };
  }
  if (patch.active === false && row.status === 'active') {
    set.status = 'deactivated';
    set.deactivatedAt = now;
    changes.status = { from: 'active', to: 'deactivated' };
  }
  if (patch.active === true && row.status === 'deactivated') {
    set.status = 'active';
    set.deactivatedAt = null;
    changes.status = { from: 'deactivated', to: 'active' };
  }
  return { set, changes };
}

/**
 * A caller limited to areas deletes or deactivates only a person wholly within them: one also in
 * another area is that area's person too (either takes them off its terminals), so its
 * administrators decide.
 */
async function refuseIfShared(q: Queryable, enrolleeId: string, scope: AreaScope, change: string): Promise<void> {
  if (!isLimited(scope)) return;
  assertWhollyWithin(scope, (await areaNamesOf(q, [enrolleeId])).get(enrolleeId) ?? [], { member: 'this person', change });
}
