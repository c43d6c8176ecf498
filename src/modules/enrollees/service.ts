/**
 * Enrollees link one employee of the host to a device PIN. The PIN is numeric, sequential,
 * at most 9 digits (the oldest terminals' limit) and never reused: it comes from a counter
 * row in the database, so several instances never hand out the same one.
 *
 * What follows from a change on the terminals (user records, templates, deletes) and on
 * sessions is done by the modules that react to this module's events.
 */

import type { InValue } from '@libsql/client';
import { and, asc, eq, getTableName, inArray, lt, ne, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Execute, Queryable, Tx, WriteContext } from '../../platform/db/client';
import { selectAsJson } from '../../platform/db/json-results';
import { placeholders } from '../../platform/db/placeholders';
import { FpaError } from '../../platform/errors';
import type { Page } from '../../platform/http/paging';
import type { Runtime } from '../../platform/runtime';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import { areasWithin, resolveAreas } from '../areas';
import { audit } from '../audit';
import type { DeviceRef } from '../devices';
import type { Employee, EmployeeDirectory } from '../employees';
import type { EventChannel, EventLog } from '../events';
import * as membership from './area-membership';
import * as cardRules from './card-rules';
import type { EnrolleeChanges, EnrolleeEvents } from './events';
import * as retention from './retention';
import { type EnrolleeListFilters, type ListFilter, searchEnrollees } from './search';
import { counters, type EnrolleeRow, enrollees } from './tables';
import { type EnrolleePatch, type EnrolleeView, enrolleeRef, type ViewPart } from './view-shapes';

export type { EnrolleeRow } from './tables';

const MAX_PIN = 999_999_999;

export class EnrolleeService {
  readonly events: EventChannel<EnrolleeEvents>;
  private readonly viewParts: ViewPart[] = [];
  private readonly listFilters = new Map<string, ListFilter>();

  constructor(
    private readonly ctx: Runtime,
    log: EventLog,
    private readonly directory: EmployeeDirectory,
    /** Whether a terminal holds a user with this PIN (the devices module knows). */
    private readonly pinTaken: (q: Queryable, pin: string) => Promise<boolean>,
  ) {
    this.events = log.channel<EnrolleeEvents>();
    // The deleted person's name, PIN and card are not kept in the log: the event says who (id,
    // employee key) and by whom. Reactors and in-process listeners still get the whole record.
    this.events.storeAs('enrollee_deleted', {
      store: ({ enrollee, by }) => ({ enrollee: { id: enrollee.id, employee: enrollee.employee }, by }),
      show: async (_q, stored) => [...stored],
    });
  }

  addViewPart(part: ViewPart): void {
    this.viewParts.push(part);
  }

  /**
   * Creates an enrollee with the next free device PIN, or with `pin` (adopting a terminal's own
   * user, who keeps the PIN they type); a PIN an enrollee holds, or once held, is `conflict`.
   * `onCreated` runs in the same transaction before `enrollee_created` is announced (adoption
   * links the terminal's user first, so the terminals that react see them as this enrollee).
   */
  async createEnrollee(
    employee: string,
    options: {
      areas?: string[];
      by?: string;
      /** The caller's areas: a limited caller puts people only in its own areas (its own by default). */
      scope?: AreaScope;
      pin?: string;
      card?: string | null;
      onCreated?: (w: WriteContext, row: EnrolleeRow) => Promise<void>;
    } = {},
  ): Promise<EnrolleeRow> {
    const areaNames = areasWithin(options.scope ?? EVERYWHERE, options.areas);
    const found = await this.directory.find(employee);
    if (!found) throw new FpaError('unknown_employee', 'no employee has that key', { employee });
    return this.ctx.db.write((w) => this.createIn(w, found, { ...options, areas: areaNames }));
  }

  /** `createEnrollee` inside the caller's write (the employee import adds the employee in the same one). */
  async createIn(
    w: WriteContext,
    found: Employee,
    options: { areas?: string[]; by?: string; pin?: string; card?: string | null; onCreated?: (w: WriteContext, row: EnrolleeRow) => Promise<void> } = {},
  ): Promise<EnrolleeRow> {
    if (!found.active) throw new FpaError('employee_inactive', 'the employee is inactive in the employee directory', { employee: found.key });
    const by = options.by ?? 'system';
    const { tx } = w;
    const now = this.ctx.clock.now();
    const [existing] = await tx
      .select({ id: enrollees.id })
      .from(enrollees)
      .where(and(eq(enrollees.employeeKey, found.key), ne(enrollees.status, 'deleted')))
      .limit(1);
    if (existing) throw new FpaError('conflict', 'this employee is already enrolled', { enrollee: existing.id });
    const pin = options.pin ?? (await this.nextPin(tx));
    if (options.pin !== undefined) {
      const [holder] = await tx.select({ id: enrollees.id }).from(enrollees).where(eq(enrollees.devicePin, options.pin)).limit(1);
      if (holder) throw new FpaError('conflict', 'another enrollee holds (or held) this PIN', { device_pin: options.pin, enrollee: holder.id });
    }
    const card = options.card ? cardRules.cardOrRefusal(options.card) : null;
    if (card) await this.checkCardFree(tx, card, null);
    const row: EnrolleeRow = {
      id: crypto.randomUUID(),
      employeeKey: found.key,
      devicePin: pin,
      displayName: found.displayName,
      card,
      pinAllocated: options.pin === undefined,
      status: 'active',
      deactivatedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await tx.insert(enrollees).values(row);
    const areaIds = await resolveAreas(tx, options.areas, now, this.ctx.settings.AREAS_CREATED_ON_USE);
    await membership.setEnrolleeAreas(tx, row.id, areaIds);
    await audit(tx, now, {
      actor: by,
      action: 'enrollee.created',
      targetType: 'enrollee',
      targetId: row.id,
      details: { employee: found.key, device_pin: pin },
    });
    await options.onCreated?.(w, row);
    await this.events.record(w, 'enrollee_created', { enrollee: enrolleeRef(row), areas: areaIds, by });
    return row;
  }

  /**
   * The next device PIN: from the database counter (several instances never hand out the same
   * one), at least ENROLLEE_PIN_START, skipping every PIN a terminal is known to hold and every
   * PIN an enrollee holds (an adopted terminal user keeps theirs).
   */
  private async nextPin(tx: Tx): Promise<string> {
    const start = Math.max(1, this.ctx.settings.ENROLLEE_PIN_START);
    await tx
      .insert(counters)
      .values({ name: 'device_pin', value: start - 1 })
      .onConflictDoNothing();
    for (let tries = 0; tries < 100_000; tries++) {
      const [row] = await tx
        .update(counters)
        .set({ value: sql`max(${counters.value}, ${start - 1}) + 1` })
        .where(eq(counters.name, 'device_pin'))
        .returning({ value: counters.value });
      const value = row!.value;
      if (value > MAX_PIN) throw new FpaError('conflict', 'device PINs are exhausted (9 digits)', {});
      const pin = String(value);
      const [enrollee] = await tx.select({ id: enrollees.id }).from(enrollees).where(eq(enrollees.devicePin, pin)).limit(1);
      if (!enrollee && !(await this.pinTaken(tx, pin))) return pin;
    }
    throw new FpaError('conflict', 'no free device PIN was found', {});
  }

  /** The enrollee (not deleted) and, for a limited scope, in one of its areas; else `not_found`. */
  async get(id: string, q: Queryable = this.ctx.db.orm, scope: AreaScope = EVERYWHERE): Promise<EnrolleeRow> {
    const row = await this.find(q, id);
    if (!row || row.status === 'deleted' || !(await this.inScope(q, id, scope))) throw new FpaError('not_found', 'enrollee not found', { enrollee: id });
    return row;
  }

  /** Those of these enrollee ids in one of the scope's areas (all of them, for an unlimited scope). */
  async keepInScope(q: Queryable, ids: readonly string[], scope: AreaScope): Promise<string[]> {
    const member = membership.enrolleeInScope(enrollees.id, scope);
    if (!member) return [...ids];
    const kept = new Set<string>();
    for (const chunk of chunks([...new Set(ids)], 500)) {
      for (const r of await q
        .select({ id: enrollees.id })
        .from(enrollees)
        .where(and(inArray(enrollees.id, chunk), member)))
        kept.add(r.id);
    }
    return ids.filter((id) => kept.has(id));
  }

  /** Whether the enrollee is in one of the scope's areas (always, for an unlimited scope). */
  async inScope(q: Queryable, id: string, scope: AreaScope): Promise<boolean> {
    const member = membership.enrolleeInScope(enrollees.id, scope);
    if (!member) return true;
    const [row] = await q
      .select({ one: sql<number>`1` })
      .from(enrollees)
      .where(and(eq(enrollees.id, id), member))
      .limit(1);
    return row !== undefined;
  }

  /** The enrollee, active, or `not_found` / `enrollee_inactive`. */
  async requireActive(q: Queryable, id: string): Promise<EnrolleeRow> {
    const row = await this.get(id, q);
    if (row.status !== 'active') throw new FpaError('enrollee_inactive', 'the enrollee is deactivated', { enrollee: id });
    return row;
  }

  /** Any enrollee row, deleted ones included (tombstones keep their PIN). */
  async find(q: Queryable, id: string): Promise<EnrolleeRow | null> {
    const [row] = await q.select().from(enrollees).where(eq(enrollees.id, id)).limit(1);
    return row ?? null;
  }

  /** Finds an enrollee by UUID or by device PIN (the agent API accepts either). */
  async findByIdOrPin(q: Queryable, value: string): Promise<EnrolleeRow | null> {
    const [row] = await q
      .select()
      .from(enrollees)
      .where(and(sql`(${enrollees.id} = ${value} or ${enrollees.devicePin} = ${value})`, ne(enrollees.status, 'deleted')))
      .limit(1);
    return row ?? null;
  }

  /** The enrollee (not deleted) holding this device PIN. */
  async findByPin(q: Queryable, pin: string): Promise<EnrolleeRow | null> {
    const [row] = await q
      .select()
      .from(enrollees)
      .where(and(eq(enrollees.devicePin, pin), ne(enrollees.status, 'deleted')))
      .limit(1);
    return row ?? null;
  }

  /**
   * Of these PINs, those the service handed out to an enrollee (not deleted): the enrollee id of
   * each. Such a PIN is that enrollee on every terminal it appears on (walk-up.ts).
   */
  async allocatedPins(execute: Execute, pins: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const chunk of chunks(pins, 500)) {
      const rows = await execute({
        sql: `select id, device_pin from ${getTableName(enrollees)} where device_pin in (${placeholders(chunk.length)}) and status != 'deleted' and pin_allocated = 1`,
        args: chunk as InValue[],
      });
      for (const e of rows.rows) out.set(String(e.device_pin), String(e.id));
    }
    return out;
  }

  /**
   * Enrollees (not deleted) by device PIN, with a raw statement of the caller's transaction:
   * this runs for every attendance batch, where the query builder costs more than the query
   * (and reading the rows one by one more than finding them: platform/db/json-results.ts).
   */
  async byPins(execute: Execute, pins: readonly string[]): Promise<Map<string, { id: string; employee: string }>> {
    const out = new Map<string, { id: string; employee: string }>();
    // Chunked: a 10 MB upload can carry more distinct PINs than SQLite takes bind variables.
    for (const chunk of chunks(pins, 500)) {
      const known = await selectAsJson<[string, string, string]>(
        execute,
        ['device_pin', 'id', 'employee_key'],
        `select device_pin, id, employee_key from ${getTableName(enrollees)} where device_pin in (select value from json_each(?)) and status != 'deleted'`,
        [JSON.stringify(chunk)],
      );
      for (const [pin, id, employee] of known) out.set(pin, { id, employee });
    }
    return out;
  }

  /** Enrollees (not deleted) by employee key (punch imports name people by their employee key). */
  async byEmployeeKeys(q: Queryable, keys: readonly string[]): Promise<Map<string, EnrolleeRow>> {
    const out = new Map<string, EnrolleeRow>();
    for (const chunk of chunks([...new Set(keys)], 500)) {
      const rows = await q
        .select()
        .from(enrollees)
        .where(and(inArray(enrollees.employeeKey, chunk), ne(enrollees.status, 'deleted')));
      for (const row of rows) out.set(row.employeeKey, row);
    }
    return out;
  }

  /**
   * The ids of every enrollee an employee key names, deleted ones too (their punches are still
   * theirs): `punches/?employee=` reads the punch index by these ids. A tombstone scrubbed by
   * retention no longer names anyone.
   */
  async idsOfEmployee(employeeKey: string): Promise<string[]> {
    const rows = await this.ctx.db.orm.select({ id: enrollees.id }).from(enrollees).where(eq(enrollees.employeeKey, employeeKey));
    return rows.map((r) => r.id);
  }

  /** Enrollee rows by id, tombstones included (reports name people who have since left). */
  async byIds(q: Queryable, ids: readonly string[]): Promise<Map<string, EnrolleeRow>> {
    const out = new Map<string, EnrolleeRow>();
    for (const chunk of chunks([...new Set(ids)], 500)) {
      for (const row of await q.select().from(enrollees).where(inArray(enrollees.id, chunk))) out.set(row.id, row);
    }
    return out;
  }

  /**
   * Changes areas, display name or activity. What the terminals and sessions must do about it
   * (remove, backfill, rename, cancel) follows from `enrollee_updated`.
   */
  update(id: string, patch: EnrolleePatch, by: string, scope: AreaScope = EVERYWHERE): Promise<EnrolleeRow> {
    const within = patch.areas === undefined ? patch : { ...patch, areas: areasWithin(scope, patch.areas) };
    return this.ctx.db.write((w) => this.updateIn(w, id, within, by, scope));
  }

  /** `update` inside the caller's write (the employee import). */
  async updateIn(w: WriteContext, id: string, patch: EnrolleePatch, by: string, scope: AreaScope = EVERYWHERE): Promise<EnrolleeRow> {
    const { tx } = w;
    const now = this.ctx.clock.now();
    const row = await this.get(id, tx, scope);
    const set: Partial<EnrolleeRow> = { updatedAt: now };
    const changes: EnrolleeChanges = {};
    const card = patch.card === undefined || patch.card === null ? patch.card : cardRules.cardOrRefusal(patch.card);
    if (card !== undefined && card !== row.card) {
      if (card !== null) await this.checkCardFree(tx, card, id);
      set.card = card;
      changes.card = { from: row.card, to: card };
    }
    if (patch.display_name !== undefined && patch.display_name !== row.displayName) {
      set.displayName = patch.display_name;
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
    await tx.update(enrollees).set(set).where(eq(enrollees.id, id));
    if (patch.areas !== undefined) {
      const from = await this.areaIdsOf(tx, id);
      const to = await resolveAreas(tx, patch.areas, now, this.ctx.settings.AREAS_CREATED_ON_USE);
      await membership.setEnrolleeAreas(tx, id, to);
      changes.areas = { from, to };
    }
    const updated: EnrolleeRow = { ...row, ...set };
    await audit(tx, now, { actor: by, action: 'enrollee.updated', targetType: 'enrollee', targetId: id, details: { ...patch } });
    await this.events.record(w, 'enrollee_updated', { enrollee: enrolleeRef(updated), changes, by });
    return updated;
  }

  /**
   * Deletion: the row is kept as a tombstone so the PIN is never reused; templates, consent,
   * terminal users and sessions follow from `enrollee_deleted`.
   */
  async deleteEnrollee(enrolleeId: string, options: { by: string; scope?: AreaScope }): Promise<void> {
    await this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const enrollee = await this.get(enrolleeId, w.tx, options.scope);
      // The tombstone keeps the PIN for ever, but lets go of the card.
      await w.tx.update(enrollees).set({ status: 'deleted', card: null, updatedAt: now }).where(eq(enrollees.id, enrollee.id));
      await audit(w.tx, now, { actor: options.by, action: 'enrollee.deleted', targetType: 'enrollee', targetId: enrollee.id });
      await this.events.record(w, 'enrollee_deleted', { enrollee: enrolleeRef(enrollee), by: options.by });
    });
  }

  /** Retention (retention.ts): tombstones that still name someone, and scrubbing them. */
  deletedBefore(cutoff: number, limit: number): Promise<{ id: string; devicePin: string }[]> {
    return retention.deletedBefore(this.ctx.db.orm, cutoff, limit);
  }

  async scrubDeleted(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.ctx.db.write(({ tx }) => retention.scrubDeleted(tx, ids));
  }

  readonly deactivatedBefore = retention.deactivatedBefore;

  /** `GET enrollees/`: searched, filtered and sorted (./search.ts), cursor-paged. */
  async list(filters: Omit<EnrolleeListFilters, 'scope'>, scope: AreaScope = EVERYWHERE): Promise<Page<EnrolleeView>> {
    const { rows, next_cursor } = await searchEnrollees(this.ctx.db.orm, { ...filters, scope: scope.areas ?? undefined }, this.listFilters);
    return { results: await this.view(this.ctx.db.orm, rows), next_cursor };
  }

  /** A condition of `enrollees/` answered by a module above this one (`consent`, `biometrics`). */
  addListFilter(name: 'consent' | 'biometrics', filter: ListFilter): void {
    this.listFilters.set(name, filter);
  }

  async view(q: Queryable, rows: EnrolleeRow[]): Promise<EnrolleeView[]> {
    const ids = rows.map((r) => r.id);
    const areaNames = await membership.areaNamesOf(q, ids);
    const parts = await Promise.all(this.viewParts.map((part) => part(q, ids)));
    return rows.map((r) => {
      let view: EnrolleeView = {
        id: r.id,
        employee: r.employeeKey,
        device_pin: r.devicePin,
        display_name: r.displayName,
        card: r.card,
        status: r.status,
        areas: areaNames.get(r.id) ?? [],
        created_at: new Date(r.createdAt).toISOString(),
        consent: null,
        fingers: [],
      };
      for (const part of parts) view = { ...view, ...(part.get(r.id) ?? {}) };
      return view;
    });
  }

  async viewOne(row: EnrolleeRow): Promise<EnrolleeView> {
    const [view] = await this.view(this.ctx.db.orm, [row]);
    return view!;
  }

  // ---------------------------------------------------------------- scope (area-membership.ts)

  readonly countInArea = membership.countInArea;
  readonly areaIdsOf = membership.areaIdsOf;
  readonly areaIdsByEnrollee = membership.areaIdsByEnrollee;
  readonly areaNamesOf = membership.areaNamesOf;
  readonly idsInAreas = membership.idsInAreas;
  readonly activeInAreas = membership.activeInAreas;
  readonly sharingAreas = membership.sharingAreas;
  readonly sharesArea = membership.sharesArea;
  readonly enrolleeInScope = membership.enrolleeInScope;
  readonly idsInScope = membership.idsInScope;
  readonly employeeInScope = membership.employeeInScope;
  readonly roster = membership.roster;

  // ---------------------------------------------------------------- cards (card-rules.ts)

  readonly checkCardFree = cardRules.checkCardFree;

  cardFromTerminal(w: WriteContext, enrolleeId: string, card: string, device: DeviceRef): Promise<'filled' | 'same' | 'kept' | 'taken' | 'gone'> {
    return cardRules.cardFromTerminal(w, { clock: this.ctx.clock, events: this.events }, enrolleeId, card, device);
  }

  /** Active enrollees created before `instant`, by id (absences). */
  async activeCreatedBefore(q: Queryable, instant: number): Promise<{ id: string; employeeKey: string }[]> {
    return q
      .select({ id: enrollees.id, employeeKey: enrollees.employeeKey })
      .from(enrollees)
      .where(and(eq(enrollees.status, 'active'), lt(enrollees.createdAt, instant)))
      .orderBy(asc(enrollees.id));
  }
}
