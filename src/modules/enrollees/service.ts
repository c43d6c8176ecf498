/**
 * Enrollees link one employee of the host to a device PIN. The PIN is numeric, sequential,
 * at most 9 digits (the oldest terminals' limit) and never reused: it comes from a counter
 * row in the database, so several instances never hand out the same one.
 *
 * What follows from a change on the terminals (user records, templates, deletes) and on
 * sessions is done by the modules that react to this module's events.
 */

import type { InValue } from '@libsql/client';
import type { Static } from '@sinclair/typebox';
import { and, asc, eq, getTableName, gt, inArray, lt, ne, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Execute, Queryable, Tx, WriteContext } from '../../platform/db/client';
import { placeholders } from '../../platform/db/placeholders';
import { FpaError } from '../../platform/errors';
import { type Page, pageOf, readCursor } from '../../platform/http/paging';
import type { Runtime } from '../../platform/runtime';
import { namesByMember, resolveAreas } from '../areas';
import { audit } from '../audit';
import type { DeviceRef } from '../devices';
import type { EmployeeDirectory } from '../employees';
import type { EventChannel, EventLog } from '../events';
import { CARD_MAX, normaliseCard } from './cards';
import type { EnrolleeChanges, EnrolleeEvents, EnrolleeRef } from './events';
import type { Enrollee } from './model';
import { counters, enrolleeAreas, enrollees } from './tables';

export type EnrolleeRow = typeof enrollees.$inferSelect;
const MAX_PIN = 999_999_999;

export type EnrolleeView = Static<typeof Enrollee>;

/** The fields of the enrollee view that modules above this one (biometrics) contribute. */
export type ViewParts = Pick<EnrolleeView, 'consent' | 'fingers'>;

/** Parts of the enrollee view contributed by modules above this one. */
export type ViewPart = (q: Queryable, ids: readonly string[]) => Promise<Map<string, Partial<ViewParts>>>;

export class EnrolleeService {
  readonly events: EventChannel<EnrolleeEvents>;
  private readonly viewParts: ViewPart[] = [];

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
    options: { areas?: string[]; by?: string; pin?: string; card?: string | null; onCreated?: (w: WriteContext, row: EnrolleeRow) => Promise<void> } = {},
  ): Promise<EnrolleeRow> {
    const found = await this.directory.find(employee);
    if (!found) throw new FpaError('unknown_employee', 'no employee has that key', { employee });
    if (!found.active) throw new FpaError('employee_inactive', 'the employee is inactive in the employee directory', { employee });
    const by = options.by ?? 'system';
    return this.ctx.db.write(async (w) => {
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
      const card = options.card ? cardOrRefusal(options.card) : null;
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
      const areaIds = await resolveAreas(tx, options.areas, now);
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
      return row;
    });
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

  async get(id: string, q: Queryable = this.ctx.db.orm): Promise<EnrolleeRow> {
    const row = await this.find(q, id);
    if (!row || row.status === 'deleted') throw new FpaError('not_found', 'enrollee not found', { enrollee: id });
    return row;
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
   * this runs for every attendance batch, where the query builder costs more than the query.
   */
  async byPins(execute: Execute, pins: readonly string[]): Promise<Map<string, { id: string; employee: string }>> {
    const out = new Map<string, { id: string; employee: string }>();
    // Chunked: a 10 MB upload can carry more distinct PINs than SQLite takes bind variables.
    for (const chunk of chunks(pins, 500)) {
      const known = await execute({
        sql: `select id, device_pin, employee_key from ${getTableName(enrollees)} where device_pin in (${placeholders(chunk.length)}) and status != 'deleted'`,
        args: chunk as InValue[],
      });
      for (const e of known.rows) out.set(String(e.device_pin), { id: String(e.id), employee: String(e.employee_key) });
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
  async update(id: string, patch: { areas?: string[]; display_name?: string; card?: string | null; active?: boolean }, by: string): Promise<EnrolleeRow> {
    return this.ctx.db.write(async (w) => {
      const { tx } = w;
      const now = this.ctx.clock.now();
      const row = await this.get(id, tx);
      const set: Partial<EnrolleeRow> = { updatedAt: now };
      const changes: EnrolleeChanges = {};
      const card = patch.card === undefined || patch.card === null ? patch.card : cardOrRefusal(patch.card);
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
        const to = await resolveAreas(tx, patch.areas, now);
        await setEnrolleeAreas(tx, id, to);
        changes.areas = { from, to };
      }
      const updated: EnrolleeRow = { ...row, ...set };
      await audit(tx, now, { actor: by, action: 'enrollee.updated', targetType: 'enrollee', targetId: id, details: patch });
      await this.events.record(w, 'enrollee_updated', { enrollee: enrolleeRef(updated), changes, by });
      return updated;
    });
  }

  /**
   * Deletion: the row is kept as a tombstone so the PIN is never reused; templates, consent,
   * terminal users and sessions follow from `enrollee_deleted`.
   */
  async deleteEnrollee(enrolleeId: string, options: { by: string }): Promise<void> {
    await this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const enrollee = await this.get(enrolleeId, w.tx);
      // The tombstone keeps the PIN for ever, but lets go of the card.
      await w.tx.update(enrollees).set({ status: 'deleted', card: null, updatedAt: now }).where(eq(enrollees.id, enrollee.id));
      await audit(w.tx, now, { actor: options.by, action: 'enrollee.deleted', targetType: 'enrollee', targetId: enrollee.id });
      await this.events.record(w, 'enrollee_deleted', { enrollee: enrolleeRef(enrollee), by: options.by });
    });
  }

  /**
   * Retention: deleted enrollees whose tombstone still names them, deleted before `cutoff`. The
   * caller keeps those whose PIN a terminal may still hold (`scrubDeleted`).
   */
  async deletedBefore(cutoff: number, limit: number): Promise<{ id: string; devicePin: string }[]> {
    return this.ctx.db.orm
      .select({ id: enrollees.id, devicePin: enrollees.devicePin })
      .from(enrollees)
      .where(and(eq(enrollees.status, 'deleted'), lt(enrollees.updatedAt, cutoff), ne(enrollees.displayName, '')))
      .orderBy(asc(enrollees.updatedAt))
      .limit(limit);
  }

  /**
   * Retention: the tombstones of these deleted enrollees lose the person's name, employee key and
   * PIN (`~<id>` takes its place: unique, and no terminal PIN). The PIN counter only moves forward,
   * so the PIN is still never handed out again; only an explicit `pin` could take it again, once
   * nothing of the person is known on any terminal (the caller checks). Returns how many.
   */
  async scrubDeleted(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.ctx.db.write(async ({ tx }) => {
      let n = 0;
      for (const chunk of chunks(ids, 500)) {
        const rows = await tx
          .update(enrollees)
          .set({ displayName: '', employeeKey: '', devicePin: sql`'~' || ${enrollees.id}`, card: null })
          .where(and(inArray(enrollees.id, [...chunk]), eq(enrollees.status, 'deleted')))
          .returning({ id: enrollees.id });
        n += rows.length;
      }
      return n;
    });
  }

  /** `GET enrollees/`: by id, cursor-paged. */
  async list(filters: { employee?: string; device_pin?: string; cursor?: string; limit: number }): Promise<Page<EnrolleeView>> {
    const after = readCursor(filters.cursor);
    const conditions = [ne(enrollees.status, 'deleted')];
    if (filters.employee) conditions.push(eq(enrollees.employeeKey, filters.employee));
    if (filters.device_pin) conditions.push(eq(enrollees.devicePin, filters.device_pin));
    if (after !== null) conditions.push(gt(enrollees.id, String(after)));
    const rows = await this.ctx.db.orm
      .select()
      .from(enrollees)
      .where(and(...conditions))
      .orderBy(asc(enrollees.id))
      .limit(filters.limit + 1);
    const views = await this.view(this.ctx.db.orm, rows.slice(0, filters.limit));
    return pageOf(
      rows,
      filters.limit,
      (r) => r.id,
      () => views,
    );
  }

  async view(q: Queryable, rows: EnrolleeRow[]): Promise<EnrolleeView[]> {
    const ids = rows.map((r) => r.id);
    const areaNames = await this.areaNamesOf(q, ids);
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

  // ---------------------------------------------------------------- scope

  /** Enrollees (not deleted) in an area (an area in use is not deleted). */
  async countInArea(q: Queryable, areaId: string): Promise<number> {
    const [row] = await q
      .select({ n: sql<number>`count(*)` })
      .from(enrolleeAreas)
      .innerJoin(enrollees, eq(enrollees.id, enrolleeAreas.enrolleeId))
      .where(and(eq(enrolleeAreas.areaId, areaId), ne(enrollees.status, 'deleted')));
    return row?.n ?? 0;
  }

  async areaIdsOf(q: Queryable, enrolleeId: string): Promise<string[]> {
    const rows = await q.select({ areaId: enrolleeAreas.areaId }).from(enrolleeAreas).where(eq(enrolleeAreas.enrolleeId, enrolleeId));
    return rows.map((r) => r.areaId);
  }

  /** Area ids of many enrollees at once (the calendar resolves area holidays, shifts and weekends). */
  async areaIdsByEnrollee(q: Queryable, enrolleeIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const ids of chunks([...new Set(enrolleeIds)], 500)) {
      const pairs = await q
        .select({ member: enrolleeAreas.enrolleeId, areaId: enrolleeAreas.areaId })
        .from(enrolleeAreas)
        .where(inArray(enrolleeAreas.enrolleeId, ids));
      for (const p of pairs) out.set(p.member, [...(out.get(p.member) ?? []), p.areaId]);
    }
    return out;
  }

  /** Enrollees (not deleted) in any of these areas, by id. */
  async idsInAreas(q: Queryable, areaIds: readonly string[]): Promise<string[]> {
    if (areaIds.length === 0) return [];
    const rows = await q
      .selectDistinct({ id: enrolleeAreas.enrolleeId })
      .from(enrolleeAreas)
      .innerJoin(enrollees, eq(enrollees.id, enrolleeAreas.enrolleeId))
      .where(and(inArray(enrolleeAreas.areaId, [...areaIds]), ne(enrollees.status, 'deleted')));
    return rows.map((r) => r.id);
  }

  async areaNamesOf(q: Queryable, enrolleeIds: readonly string[]): Promise<Map<string, string[]>> {
    const pairs: { member: string; areaId: string }[] = [];
    for (const ids of chunks(enrolleeIds, 500)) {
      pairs.push(
        ...(await q
          .select({ member: enrolleeAreas.enrolleeId, areaId: enrolleeAreas.areaId })
          .from(enrolleeAreas)
          .where(inArray(enrolleeAreas.enrolleeId, ids))),
      );
    }
    return namesByMember(q, pairs);
  }

  /** Active enrollees in any of these areas (a terminal's scope). */
  async activeInAreas(q: Queryable, areaIds: readonly string[]): Promise<EnrolleeRow[]> {
    if (areaIds.length === 0) return [];
    return (
      q
        .select()
        .from(enrollees)
        .where(
          and(
            eq(enrollees.status, 'active'),
            inArray(
              enrollees.id,
              q
                .selectDistinct({ id: enrolleeAreas.enrolleeId })
                .from(enrolleeAreas)
                .where(inArray(enrolleeAreas.areaId, [...areaIds])),
            ),
          ),
        )
        // Oldest first: a backfill sends people in the order they were enrolled.
        .orderBy(asc(enrollees.createdAt), asc(enrollees.id))
    );
  }

  /** A card (normalised) another enrollee holds is refused (`conflict`): one card, one person. */
  async checkCardFree(q: Queryable, card: string, self: string | null): Promise<void> {
    const [holder] = await q
      .select({ id: enrollees.id })
      .from(enrollees)
      .where(and(eq(enrollees.card, card), ne(enrollees.status, 'deleted')));
    if (holder && holder.id !== self) throw new FpaError('conflict', 'another enrollee holds this card', { card, enrollee: holder.id });
  }

  /**
   * A terminal reports a card (normalised, cards.ts) for its user who is this enrollee (badged at
   * its menu). An administrator's card wins: the terminal fills the card only of an enrollee who
   * has none (`filled`, announced as `enrollee_card_changed`, and sent to their other terminals),
   * never replaces one (`kept`: the caller puts the enrollee's own card back on that terminal),
   * nor takes one another enrollee holds (`taken`).
   */
  async cardFromTerminal(w: WriteContext, enrolleeId: string, card: string, device: DeviceRef): Promise<'filled' | 'same' | 'kept' | 'taken' | 'gone'> {
    const row = await this.find(w.tx, enrolleeId);
    if (!row || row.status === 'deleted') return 'gone';
    if (row.card === card) return 'same';
    if (row.card !== null) return 'kept';
    const [holder] = await w.tx
      .select({ id: enrollees.id })
      .from(enrollees)
      .where(and(eq(enrollees.card, card), ne(enrollees.status, 'deleted')));
    if (holder) return 'taken';
    const now = this.ctx.clock.now();
    const by = `device:${device.serial_number}`;
    await w.tx.update(enrollees).set({ card, updatedAt: now }).where(eq(enrollees.id, enrolleeId));
    await audit(w.tx, now, {
      actor: by,
      action: 'enrollee.card_filled',
      targetType: 'enrollee',
      targetId: enrolleeId,
      details: { device: device.serial_number },
    });
    await this.events.record(w, 'enrollee_card_changed', { enrollee: enrolleeId, device, by });
    return 'filled';
  }

  /** Those of these enrollees who share an area with these areas (raw SQL: asked with every upload). */
  async sharingAreas(execute: Execute, enrolleeIds: readonly string[], areaIds: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    if (areaIds.length === 0) return out;
    const areas = placeholders(areaIds.length);
    for (const ids of chunks(enrolleeIds, 400)) {
      const rows = await execute({
        sql: `select distinct enrollee_id from ${getTableName(enrolleeAreas)} where enrollee_id in (${placeholders(ids.length)}) and area_id in (${areas})`,
        args: [...ids, ...areaIds],
      });
      for (const r of rows.rows) out.add(String(r.enrollee_id));
    }
    return out;
  }

  /** Whether the enrollee shares an area with these areas. */
  async sharesArea(q: Queryable, enrolleeId: string, areaIds: readonly string[]): Promise<boolean> {
    if (areaIds.length === 0) return false;
    const [row] = await q
      .select({ one: sql<number>`1` })
      .from(enrolleeAreas)
      .where(and(eq(enrolleeAreas.enrolleeId, enrolleeId), inArray(enrolleeAreas.areaId, [...areaIds])))
      .limit(1);
    return row !== undefined;
  }

  /** Those of `among` deactivated before `cutoff` (retention). */
  async deactivatedBefore(q: Queryable, cutoff: number, among: readonly string[]): Promise<EnrolleeRow[]> {
    const out: EnrolleeRow[] = [];
    for (const ids of chunks(among, 500)) {
      out.push(
        ...(await q
          .select()
          .from(enrollees)
          .where(and(inArray(enrollees.id, ids), eq(enrollees.status, 'deactivated'), lt(enrollees.deactivatedAt, cutoff)))),
      );
    }
    return out;
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

/** The card as terminals hold it, or a 422 naming why it cannot be one. */
function cardOrRefusal(raw: string): string {
  const checked = normaliseCard(raw);
  if (checked.ok) return checked.card;
  throw new FpaError('invalid_card', `card must be a number from 1 to ${CARD_MAX} (a terminal keeps cards as unsigned 32-bit numbers)`, {
    field: 'card',
    reason: checked.reason,
    max: CARD_MAX,
  });
}

export function enrolleeRef(row: EnrolleeRow): EnrolleeRef {
  return { id: row.id, employee: row.employeeKey, device_pin: row.devicePin, display_name: row.displayName, card: row.card };
}

async function setEnrolleeAreas(q: Queryable, enrolleeId: string, areaIds: string[]): Promise<void> {
  await q.delete(enrolleeAreas).where(eq(enrolleeAreas.enrolleeId, enrolleeId));
  if (areaIds.length > 0) await q.insert(enrolleeAreas).values(areaIds.map((areaId) => ({ enrolleeId, areaId })));
}
