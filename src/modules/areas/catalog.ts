/**
 * `areas/` as a resource: listed with how many terminals and enrollees (and, with payroll,
 * holidays and shift assignments) each holds, created with a description, renamed, and deleted
 * only when nothing is in it. The modules that put members in areas register how they count
 * them (`countUsage`): this module does not know their tables.
 */
import type { Static } from '@sinclair/typebox';
import { and, asc, eq, gt, inArray } from 'drizzle-orm';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { cursorOf, type Page, pageOf, textCursor, twoKeyCursor } from '../../platform/http/paging';
import { type AreaScope, coversAny, EVERYWHERE, isLimited } from '../../platform/scope';
import { canonicalTimeZone } from '../../platform/time/zone';
import { audit } from '../audit';
import type { AreaDetail, AreaMember } from './model';
import type { AreaRuntime } from './runtime';
import { areas } from './tables';

/** Counts the members of one kind in an area (terminals, enrollees…). */
export type UsageCounter = (q: Queryable, areaId: string) => Promise<number>;

export type AreaRow = typeof areas.$inferSelect;
type AreaDetailView = Static<typeof AreaDetail>;
export type AreaView = Omit<AreaDetailView, 'terminals' | 'schedules'>;
export type AreaSavedView = AreaView & { people_in_several_zones: number };
export type AreaMemberView = Static<typeof AreaMember>;

/** What other modules tell about an area's members (registered at the composition root). */
export interface AreaParts {
  terminals(q: Queryable, areaId: string): Promise<AreaDetailView['terminals']>;
  schedules(q: Queryable, areaId: string): Promise<AreaDetailView['schedules']>;
  /** A page of an area's people by name; `last`: the sort keys of its last row (the next page is after them). */
  members(
    q: Queryable,
    areaId: string,
    page: { after: [string, string] | null; limit: number },
  ): Promise<{ rows: AreaMemberView[]; more: boolean; last: [string, string] | null }>;
}

/** What follows an area's time zone (registered at the composition root: the calendar and attendance know people's days). */
export interface AreaZoneParts {
  /** The zone changed: its people's days are recomputed (outside locked pay periods), in this write. */
  changed(w: WriteContext, areaId: string, by: string): Promise<void>;
  /** How many of its people are in another area of a different zone. */
  peopleInSeveralZones(q: Queryable, areaId: string): Promise<number>;
}

const NAME = /^[^\s/][^/]{0,99}$/;

export class AreaCatalog {
  private readonly counters = new Map<string, UsageCounter>();
  private parts: AreaParts | undefined;
  private zoneParts: AreaZoneParts | undefined;

  constructor(private readonly ctx: AreaRuntime) {}

  countUsage(kind: string, counter: UsageCounter): void {
    this.counters.set(kind, counter);
  }

  useParts(parts: AreaParts): void {
    this.parts = parts;
  }

  useZoneParts(parts: AreaZoneParts): void {
    this.zoneParts = parts;
  }

  /** The areas by name, a page at a time: every area, or those of `scope` (a caller limited to areas sees only them). */
  async list(page: { cursor?: string; limit: number }, scope: AreaScope = EVERYWHERE): Promise<Page<AreaView>> {
    const q = this.ctx.db.orm;
    const after = textCursor('areas', page.cursor);
    const rows = await q
      .select()
      .from(areas)
      .where(and(isLimited(scope) ? inArray(areas.name, [...scope.areas]) : undefined, after === null ? undefined : gt(areas.name, after)))
      .orderBy(asc(areas.name))
      .limit(page.limit + 1);
    const views = await Promise.all(rows.slice(0, page.limit).map((r) => this.view(q, r)));
    return pageOf(
      'areas',
      rows,
      page.limit,
      (r) => r.name,
      () => views,
    );
  }

  /** One area with its terminals and the schedules assigned to it; outside `scope` it does not exist. */
  async get(name: string, scope: AreaScope = EVERYWHERE): Promise<AreaDetailView> {
    const q = this.ctx.db.orm;
    const row = await this.find(q, name, scope);
    return {
      ...(await this.view(q, row)),
      terminals: (await this.parts?.terminals(q, row.id)) ?? [],
      schedules: (await this.parts?.schedules(q, row.id)) ?? [],
    };
  }

  /** The people of an area, by name, a page at a time. */
  async members(name: string, page: { cursor?: string; limit: number }, scope: AreaScope = EVERYWHERE): Promise<Page<AreaMemberView>> {
    const after = twoKeyCursor('area-members-by-name-key', page.cursor);
    const q = this.ctx.db.orm;
    const row = await this.find(q, name, scope);
    const found = (await this.parts?.members(q, row.id, { after, limit: page.limit })) ?? { rows: [], more: false, last: null };
    return { results: found.rows, next_cursor: found.more && found.last ? cursorOf('area-members-by-name-key', found.last) : null };
  }

  async create(input: { name: string; description?: string | null; time_zone?: string | null }, by: string): Promise<AreaSavedView> {
    const name = checkName(input.name);
    const timeZone = checkZone(input.time_zone);
    return this.ctx.db.write(async ({ tx }) => {
      const now = this.ctx.clock.now();
      const [existing] = await tx.select({ id: areas.id }).from(areas).where(eq(areas.name, name));
      if (existing) throw new FpaError('conflict', 'an area with this name exists', { name });
      const row: AreaRow = { id: crypto.randomUUID(), name, description: input.description ?? null, timeZone, createdAt: now };
      await tx.insert(areas).values(row);
      await audit(tx, now, {
        actor: by,
        action: 'area.created',
        targetType: 'area',
        targetId: name,
        ...(timeZone ? { details: { time_zone: timeZone } } : {}),
      });
      // A new area holds nobody yet: no one is in two zones through it.
      return { ...(await this.view(tx, row)), people_in_several_zones: 0 };
    });
  }

  /**
   * Renames, describes or zones an area; its members stay in it (they hold its id, not its
   * name). A new time zone recomputes its people's days (outside locked pay periods) in the same
   * write, and the answer says how many of them another area of theirs puts in another zone.
   */
  async update(name: string, patch: { name?: string; description?: string | null; time_zone?: string | null }, by: string): Promise<AreaSavedView> {
    const timeZone = patch.time_zone === undefined ? undefined : checkZone(patch.time_zone);
    return this.ctx.db.write(async (w) => {
      const { tx } = w;
      const now = this.ctx.clock.now();
      const row = await this.find(tx, name);
      const next = { ...row };
      if (patch.name !== undefined && patch.name !== row.name) {
        next.name = checkName(patch.name);
        const [taken] = await tx.select({ id: areas.id }).from(areas).where(eq(areas.name, next.name));
        if (taken) throw new FpaError('conflict', 'an area with this name exists', { name: next.name });
      }
      if (patch.description !== undefined) next.description = patch.description;
      if (timeZone !== undefined) next.timeZone = timeZone;
      await tx.update(areas).set({ name: next.name, description: next.description, timeZone: next.timeZone }).where(eq(areas.id, row.id));
      const zoneChanged = next.timeZone !== row.timeZone;
      const details = zoneChanged ? { name: next.name, time_zone: { from: row.timeZone, to: next.timeZone } } : { name: next.name };
      await audit(tx, now, { actor: by, action: 'area.updated', targetType: 'area', targetId: row.name, details });
      const inSeveral = (await this.zoneParts?.peopleInSeveralZones(tx, row.id)) ?? 0;
      // A zoned area renamed may now come first by name, or no longer, for people in areas of two
      // zones (calendar/plan.ts `zoneOfAreas`): their days follow, as after a change of its zone.
      const renamedZoned = next.name !== row.name && next.timeZone !== null && inSeveral > 0;
      if (zoneChanged || renamedZoned) await this.zoneParts?.changed(w, row.id, by);
      return { ...(await this.view(tx, next)), people_in_several_zones: inSeveral };
    });
  }

  /** Deletes an area nothing is in; one still in use is 409 with its usage. */
  async remove(name: string, by: string): Promise<void> {
    await this.ctx.db.write(async ({ tx }) => {
      const row = await this.find(tx, name);
      const usage = await this.usageOf(tx, row.id);
      if (Object.values(usage).some((n) => n > 0)) throw new FpaError('conflict', 'the area is still in use', { name, usage });
      await tx.delete(areas).where(eq(areas.id, row.id));
      await audit(tx, this.ctx.clock.now(), { actor: by, action: 'area.deleted', targetType: 'area', targetId: name });
    });
  }

  private async find(q: Queryable, name: string, scope: AreaScope = EVERYWHERE): Promise<AreaRow> {
    const [row] = await q.select().from(areas).where(eq(areas.name, name));
    if (!row || !coversAny(scope, [row.name])) throw new FpaError('not_found', 'area not found', { name });
    return row;
  }

  private async usageOf(q: Queryable, areaId: string): Promise<Record<string, number>> {
    const usage: Record<string, number> = {};
    for (const [kind, count] of this.counters) usage[kind] = await count(q, areaId);
    return usage;
  }

  private async view(q: Queryable, row: AreaRow): Promise<AreaView> {
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      time_zone: row.timeZone,
      created_at: new Date(row.createdAt).toISOString(),
      usage: await this.usageOf(q, row.id),
    };
  }
}

/**
 * A given time zone as the tz database spells it (`asia/kolkata` is stored `Asia/Kolkata`), null
 * for none, or a validation_error as for a terminal's: only IANA names, never an offset (`+05:30`
 * knows no DST rules).
 */
function checkZone(zone: string | null | undefined): string | null {
  if (zone === undefined || zone === null || zone.trim() === '') return null;
  const canonical = canonicalTimeZone(zone.trim());
  if (canonical === null) {
    throw new FpaError('validation_error', 'time_zone must be an IANA time zone name such as Asia/Kolkata (an offset is none: Etc/GMT-2 is UTC+2)', {
      field: 'time_zone',
    });
  }
  return canonical;
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (!NAME.test(trimmed)) throw new FpaError('validation_error', 'an area name is 1 to 100 characters, without a slash', { field: 'name' });
  return trimmed;
}
