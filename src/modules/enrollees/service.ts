/**
 * Enrollees link one employee of the host to a device PIN. The PIN is numeric, sequential,
 * at most 9 digits (the oldest terminals' limit) and never reused: it comes from a counter
 * row in the database, so several instances never hand out the same one.
 */
import { and, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import { areaNamesOfEnrollees, devicesInScopeOfEnrollee, resolveAreas, setEnrolleeAreas } from '../areas/service';
import { audit } from '../audit/service';
import type { CommandService } from '../commands/service';
import type { Context } from '../../app/context';
import type { Queryable, Tx, WriteContext } from '../../platform/db/client';
import { consents, counters, enrollees, enrollmentSessions, punches, templates } from '../../app/schema';
import { closeSession, OPEN_STATUSES } from '../enrollment/sessions';
import { FpaError } from '../../platform/errors';
import { devicesSharingArea, devicesThatMayHold, userCommand, type TemplateService } from '../biometrics/service';

export type EnrolleeRow = typeof enrollees.$inferSelect;
const MAX_PIN = 999_999_999;

export interface EnrolleeView {
  id: string;
  employee: string;
  device_pin: string;
  display_name: string;
  status: string;
  areas: string[];
  consent: { version: string; method: string; given_by: string; given_at: string } | null;
  fingers: number[];
  created_at: string;
}

/** Runs inside createEnrollee's transaction, after earlier punches of the PIN were linked. */
export type EnrolleeCreatedHook = (tx: Tx, enrollee: EnrolleeRow) => Promise<void>;

export class EnrolleeService {
  private readonly createdHooks: EnrolleeCreatedHook[] = [];

  constructor(
    private readonly ctx: Context,
    private readonly commands: CommandService,
    private readonly templates: TemplateService,
  ) {}

  /** Registers work that must commit with a new enrollee (attendance days of linked punches). */
  onCreated(hook: EnrolleeCreatedHook): void {
    this.createdHooks.push(hook);
  }

  async createEnrollee(employee: string, options: { areas?: string[]; by?: string } = {}): Promise<EnrolleeRow> {
    const found = await this.ctx.employees.find(employee);
    if (!found) throw new FpaError('unknown_employee', 'no employee has that key', { employee });
    if (!found.active) throw new FpaError('employee_inactive', 'the employee is inactive in the employee directory', { employee });
    const by = options.by ?? 'system';
    return this.ctx.db.write(async ({ tx, afterCommit }) => {
      const now = this.ctx.clock.now();
      const existing = await tx.query.enrollees.findFirst({
        where: and(eq(enrollees.employeeKey, found.key), ne(enrollees.status, 'deleted')),
      });
      if (existing) throw new FpaError('conflict', 'this employee is already enrolled', { enrollee: existing.id });
      const pin = await nextPin(tx);
      const row: EnrolleeRow = {
        id: crypto.randomUUID(),
        employeeKey: found.key,
        devicePin: pin,
        displayName: found.displayName,
        status: 'active',
        deactivatedAt: null,
        createdAt: now,
        updatedAt: now,
      };
      await tx.insert(enrollees).values(row);
      await setEnrolleeAreas(tx, row.id, await resolveAreas(tx, options.areas, now));
      // Punches that arrived for this PIN before the enrollee existed are linked now, and their
      // PIN is no longer unknown.
      await tx
        .update(punches)
        .set({
          enrolleeId: row.id,
          employeeKey: row.employeeKey,
          flags: sql`(select coalesce(json_group_array(f.value), '[]') from json_each(${punches.flags}) f where f.value <> 'unknown_pin')`,
        })
        .where(and(eq(punches.devicePin, pin), isNull(punches.enrolleeId)));
      for (const hook of this.createdHooks) await hook(tx, row);
      const targets = await devicesInScopeOfEnrollee(tx, row.id);
      await this.commands.enqueue(tx, targets.map((d) => userCommand(d.id, pin, row.displayName)), afterCommit);
      await audit(tx, now, { actor: by, action: 'enrollee.created', targetType: 'enrollee', targetId: row.id, details: { employee: found.key, device_pin: pin } });
      afterCommit(() => this.ctx.events.emit('enrollee_created', { enrolleeId: row.id, employee: row.employeeKey, devicePin: pin }));
      return row;
    });
  }

  async get(id: string): Promise<EnrolleeRow> {
    const row = await this.ctx.db.orm.query.enrollees.findFirst({ where: eq(enrollees.id, id) });
    if (!row || row.status === 'deleted') throw new FpaError('not_found', 'enrollee not found', { enrollee: id });
    return row;
  }

  /** Finds an enrollee by UUID or by device PIN (the agent API accepts either). */
  async findByIdOrPin(q: Queryable, value: string): Promise<EnrolleeRow | null> {
    const row = await q.query.enrollees.findFirst({
      where: and(sql`(${enrollees.id} = ${value} or ${enrollees.devicePin} = ${value})`, ne(enrollees.status, 'deleted')),
    });
    return row ?? null;
  }

  /**
   * Changes areas, display name or activity, and keeps the terminals in line: terminals that
   * leave the enrollee's scope get `delete_user`, new ones the user and templates; a
   * deactivated enrollee is removed from every terminal (they can no longer punch) and a
   * reactivated one backfilled again.
   */
  async update(id: string, patch: { areas?: string[]; display_name?: string; active?: boolean }, by: string): Promise<EnrolleeRow> {
    return this.ctx.db.write(async (w) => {
      const { tx, afterCommit } = w;
      const now = this.ctx.clock.now();
      const row = await tx.query.enrollees.findFirst({ where: eq(enrollees.id, id) });
      if (!row || row.status === 'deleted') throw new FpaError('not_found', 'enrollee not found', { enrollee: id });
      const set: Partial<EnrolleeRow> = { updatedAt: now };
      if (patch.display_name !== undefined) set.displayName = patch.display_name;
      if (patch.active === false && row.status === 'active') {
        set.status = 'deactivated';
        set.deactivatedAt = now;
      }
      if (patch.active === true && row.status === 'deactivated') {
        set.status = 'active';
        set.deactivatedAt = null;
      }
      await tx.update(enrollees).set(set).where(eq(enrollees.id, id));
      const updated: EnrolleeRow = { ...row, ...set };
      const wasActive = row.status === 'active';
      const isActive = updated.status === 'active';

      // Terminals newly in scope; those that left it lose the user and templates.
      let added: Set<string> | null = null;
      if (patch.areas !== undefined) {
        const before = new Set(await devicesSharingArea(tx, id));
        await setEnrolleeAreas(tx, id, await resolveAreas(tx, patch.areas, now));
        const after = new Set(await devicesSharingArea(tx, id));
        await this.templates.removeFromDevices(w, [updated], [...before].filter((d) => !after.has(d)));
        added = new Set([...after].filter((d) => !before.has(d)));
      }
      if (wasActive && !isActive) {
        await this.closeOpenSessions(w, id, 'enrollee deactivated');
        await this.templates.removeFromDevices(w, [updated], await devicesThatMayHold(tx, id));
      } else if (isActive) {
        // Reactivated: every in-scope terminal; otherwise the ones that just came into scope.
        const inScope = await devicesInScopeOfEnrollee(tx, id);
        const backfill = inScope.filter((d) => !wasActive || added?.has(d.id));
        for (const device of backfill) await this.templates.backfillDevice(w, device, [updated]);
        if (wasActive && patch.display_name !== undefined && patch.display_name !== row.displayName) {
          const rename = inScope.filter((d) => !added?.has(d.id));
          await this.commands.enqueue(tx, rename.map((d) => userCommand(d.id, row.devicePin, updated.displayName)), afterCommit);
        }
      }
      await audit(tx, now, { actor: by, action: 'enrollee.updated', targetType: 'enrollee', targetId: id, details: patch });
      return updated;
    });
  }

  async giveConsent(enrolleeId: string, consent: { version: string; method: string; by: string }) {
    const version = consent.version?.trim();
    const method = consent.method?.trim();
    if (!version || !method) throw new FpaError('validation_error', 'consent needs a version and a method', { fields: ['version', 'method'] });
    return this.ctx.db.write(async ({ tx, afterCommit }) => {
      const now = this.ctx.clock.now();
      const enrollee = await this.activeIn(tx, enrolleeId);
      // A new consent replaces the current one (for example a new version of the notice).
      await tx
        .update(consents)
        .set({ withdrawnAt: now, withdrawnBy: consent.by })
        .where(and(eq(consents.enrolleeId, enrollee.id), isNull(consents.withdrawnAt)));
      const row = { id: crypto.randomUUID(), enrolleeId: enrollee.id, version, method, givenBy: consent.by, givenAt: now, withdrawnAt: null, withdrawnBy: null };
      await tx.insert(consents).values(row);
      await audit(tx, now, { actor: consent.by, action: 'consent.given', targetType: 'enrollee', targetId: enrollee.id, details: { version, method } });
      afterCommit(() => this.ctx.events.emit('consent_given', { enrolleeId: enrollee.id, version, method, by: consent.by }));
      return consentView(row);
    });
  }

  /** Withdrawal destroys every template and staged upload and deletes them from devices. */
  async withdrawConsent(enrolleeId: string, options: { by: string }) {
    return this.ctx.db.write(async (w) => {
      const { tx, afterCommit } = w;
      const now = this.ctx.clock.now();
      const enrollee = await tx.query.enrollees.findFirst({ where: eq(enrollees.id, enrolleeId) });
      if (!enrollee || enrollee.status === 'deleted') throw new FpaError('not_found', 'enrollee not found', { enrollee: enrolleeId });
      const withdrawn = await tx
        .update(consents)
        .set({ withdrawnAt: now, withdrawnBy: options.by })
        .where(and(eq(consents.enrolleeId, enrollee.id), isNull(consents.withdrawnAt)))
        .returning({ id: consents.id });
      await this.closeOpenSessions(w, enrollee.id, 'consent withdrawn');
      const destroyed = await this.templates.destroyTemplatesIn(w, enrollee, 'consent withdrawn', options.by);
      await audit(tx, now, { actor: options.by, action: 'consent.withdrawn', targetType: 'enrollee', targetId: enrollee.id, details: { templates_destroyed: destroyed } });
      afterCommit(() => this.ctx.events.emit('consent_withdrawn', { enrolleeId: enrollee.id, by: options.by }));
      return { withdrawn: withdrawn.length > 0, templates_destroyed: destroyed };
    });
  }

  /** Deletion: templates destroyed, the user removed from every device, the row kept as a tombstone so the PIN is never reused. */
  async deleteEnrollee(enrolleeId: string, options: { by: string }): Promise<{ templates_destroyed: number }> {
    return this.ctx.db.write(async (w) => {
      const { tx, afterCommit } = w;
      const now = this.ctx.clock.now();
      const enrollee = await tx.query.enrollees.findFirst({ where: eq(enrollees.id, enrolleeId) });
      if (!enrollee || enrollee.status === 'deleted') throw new FpaError('not_found', 'enrollee not found', { enrollee: enrolleeId });
      await this.closeOpenSessions(w, enrollee.id, 'enrollee deleted');
      const destroyed = await this.templates.destroyTemplatesIn(w, enrollee, 'enrollee deleted', options.by, { deleteUserFromDevices: true });
      await tx
        .update(consents)
        .set({ withdrawnAt: now, withdrawnBy: options.by })
        .where(and(eq(consents.enrolleeId, enrollee.id), isNull(consents.withdrawnAt)));
      await tx.update(enrollees).set({ status: 'deleted', updatedAt: now }).where(eq(enrollees.id, enrollee.id));
      await audit(tx, now, { actor: options.by, action: 'enrollee.deleted', targetType: 'enrollee', targetId: enrollee.id, details: { templates_destroyed: destroyed } });
      afterCommit(() => this.ctx.events.emit('enrollee_deleted', { enrolleeId: enrollee.id, by: options.by }));
      return { templates_destroyed: destroyed };
    });
  }

  async view(q: Queryable, rows: EnrolleeRow[]): Promise<EnrolleeView[]> {
    const ids = rows.map((r) => r.id);
    const areaNames = await areaNamesOfEnrollees(q, ids);
    const consentRows = ids.length === 0 ? [] : await q.select().from(consents).where(and(inArray(consents.enrolleeId, ids), isNull(consents.withdrawnAt)));
    const fingerRows =
      ids.length === 0
        ? []
        : await q.select({ enrolleeId: templates.enrolleeId, fingerIndex: templates.fingerIndex }).from(templates).where(inArray(templates.enrolleeId, ids));
    return rows.map((r) => {
      const consent = consentRows.find((c) => c.enrolleeId === r.id);
      return {
        id: r.id,
        employee: r.employeeKey,
        device_pin: r.devicePin,
        display_name: r.displayName,
        status: r.status,
        areas: areaNames.get(r.id) ?? [],
        consent: consent ? consentView(consent) : null,
        fingers: [...new Set(fingerRows.filter((f) => f.enrolleeId === r.id).map((f) => f.fingerIndex))].sort((a, b) => a - b),
        created_at: new Date(r.createdAt).toISOString(),
      };
    });
  }

  private async activeIn(tx: Tx, id: string): Promise<EnrolleeRow> {
    const row = await tx.query.enrollees.findFirst({ where: eq(enrollees.id, id) });
    if (!row || row.status === 'deleted') throw new FpaError('not_found', 'enrollee not found', { enrollee: id });
    if (row.status !== 'active') throw new FpaError('enrollee_inactive', 'the enrollee is deactivated', { enrollee: id });
    return row;
  }

  /**
   * Cancels the enrollee's open sessions the one way sessions close: staged uploads go, enroll
   * commands expire through the finish handlers, and the event is emitted.
   */
  private async closeOpenSessions(w: WriteContext, enrolleeId: string, reason: string): Promise<void> {
    const open = await w.tx
      .select()
      .from(enrollmentSessions)
      .where(and(eq(enrollmentSessions.enrolleeId, enrolleeId), inArray(enrollmentSessions.status, [...OPEN_STATUSES])));
    for (const session of open) await closeSession(w.tx, this.ctx, session, 'cancelled', reason, w.afterCommit, this.commands);
  }
}

export function consentView(c: { version: string; method: string; givenBy: string; givenAt: number }) {
  return { version: c.version, method: c.method, given_by: c.givenBy, given_at: new Date(c.givenAt).toISOString() };
}

/** Takes the next device PIN from the database counter. */
export async function nextPin(tx: Tx): Promise<string> {
  await tx.insert(counters).values({ name: 'device_pin', value: 0 }).onConflictDoNothing();
  const [row] = await tx
    .update(counters)
    .set({ value: sql`${counters.value} + 1` })
    .where(eq(counters.name, 'device_pin'))
    .returning({ value: counters.value });
  const value = row!.value;
  if (value > MAX_PIN) throw new FpaError('conflict', 'device PINs are exhausted (9 digits)', {});
  return String(value);
}

