/**
 * Holidays, leaves and area weekends: created, changed and removed with an audit entry and a
 * `calendar_changed` event in the same transaction, naming whose days and which dates change
 * (attendance recomputes exactly those).
 */
import { and, asc, eq, gte, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { twoKeyPage } from '../../platform/db/two-key-page';
import { FpaError } from '../../platform/errors';
import type { Page } from '../../platform/http/paging';
import { cursorOf, twoKeyCursor } from '../../platform/http/paging';
import { type AreaScope, coversAny, EVERYWHERE } from '../../platform/scope';
import { dateFilter, isCalendarDate, localDateOf, requireOrdered } from '../../platform/time/dates';
import { areaNames, areasWithin, resolveAreas } from '../areas';
import { audit } from '../audit';
import type { EnrolleeRow, EnrolleeService } from '../enrollees';
import type { EventChannel } from '../events';
import type { CalendarChange, CalendarEvents } from './events';
import type { HolidayView, LeaveView, WeekendView } from './model';
import type { CalendarRuntime } from './runtime';
import { holidaySeen, requireOwn, standing } from './scope';
import { ALWAYS, areaWeekends, holidays, leaves } from './tables';

type HolidayRow = typeof holidays.$inferSelect;
type LeaveRow = typeof leaves.$inferSelect;
type WeekendRow = typeof areaWeekends.$inferSelect;

export interface HolidayInput {
  date: string;
  name: string;
  recurring?: boolean;
  areas?: string[];
  enrollee?: string | null;
  cancelled?: boolean;
}

export class DaysOff {
  constructor(
    private readonly ctx: CalendarRuntime,
    private readonly events: EventChannel<CalendarEvents>,
    readonly enrollees: EnrolleeService,
  ) {}

  // ---------------------------------------------------------------- holidays
  // A recurring holiday is listed in a range it falls in, any year from its own on (it keeps
  // its first date): the calendar counts it there (plan.ts).

  async listHolidays(filters: { from?: string; to?: string; cursor?: string; limit: number }, scope: AreaScope = EVERYWHERE): Promise<Page<HolidayView>> {
    const conditions: SQL[] = [];
    const seen = holidaySeen(this.enrollees, scope);
    if (seen) conditions.push(seen);
    const { from, to } = dateFilter(filters);
    if (from) conditions.push(or(gte(holidays.date, from), and(eq(holidays.recurring, true), recursWithin(from, to)))!);
    if (to) conditions.push(lte(holidays.date, to));
    const { rows, next_cursor } = await twoKeyPage(
      'holidays',
      filters.cursor,
      filters.limit,
      [holidays.date, holidays.id],
      (after, count) =>
        this.ctx.db.orm
          .select()
          .from(holidays)
          .where(and(...conditions, after))
          .orderBy(asc(holidays.date), asc(holidays.id))
          .limit(count),
      (r) => [r.date, r.id],
    );
    return { results: await this.holidayViews(this.ctx.db.orm, rows), next_cursor };
  }

  async getHoliday(id: string, scope: AreaScope = EVERYWHERE): Promise<HolidayView> {
    const row = await this.holidayRow(this.ctx.db.orm, id);
    if ((await standing(this.ctx.db.orm, this.enrollees, scope, row)) === 'unseen') throw new FpaError('not_found', 'holiday not found', { holiday: id });
    const [view] = await this.holidayViews(this.ctx.db.orm, [row]);
    return view!;
  }

  /** A caller limited to areas declares holidays of its people or its areas (its own by default). */
  async createHoliday(input: HolidayInput, by: string, scope: AreaScope = EVERYWHERE): Promise<HolidayView> {
    const areas = input.enrollee ? input.areas : areasWithin(scope, input.areas);
    return this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const row: HolidayRow = {
        id: crypto.randomUUID(),
        date: input.date,
        name: input.name,
        recurring: input.recurring ?? false,
        cancelled: input.cancelled ?? false,
        ...(await this.holidayScope(w, { areas, enrollee: input.enrollee ?? null }, now, scope)),
        createdAt: now,
        updatedAt: now,
      };
      await requireOwn(w.tx, this.enrollees, scope, row, 'holiday', row.id);
      requireDate(row.date);
      await w.tx.insert(holidays).values(row);
      await audit(w.tx, now, { actor: by, action: 'holiday.created', targetType: 'holiday', targetId: row.id, details: { ...input } });
      await this.changed(w, holidayChange(row, by, now, this.ctx.settings.ATTENDANCE_TIME_ZONE));
      const [view] = await this.holidayViews(w.tx, [row]);
      return view!;
    });
  }

  async updateHoliday(id: string, patch: Partial<HolidayInput>, by: string, scope: AreaScope = EVERYWHERE): Promise<HolidayView> {
    if (patch.areas !== undefined && !patch.enrollee) patch = { ...patch, areas: areasWithin(scope, patch.areas) };
    return this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const before = await this.holidayRow(w.tx, id);
      await requireOwn(w.tx, this.enrollees, scope, before, 'holiday', id);
      const reach =
        patch.areas !== undefined || patch.enrollee !== undefined
          ? await this.holidayScope(w, { areas: patch.areas ?? [], enrollee: patch.enrollee === undefined ? before.enrolleeId : patch.enrollee }, now, scope)
          : {};
      const after: HolidayRow = {
        ...before,
        ...(patch.date !== undefined ? { date: patch.date } : {}),
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.recurring !== undefined ? { recurring: patch.recurring } : {}),
        ...(patch.cancelled !== undefined ? { cancelled: patch.cancelled } : {}),
        ...reach,
        updatedAt: now,
      };
      requireDate(after.date);
      await requireOwn(w.tx, this.enrollees, scope, after, 'holiday', id);
      await w.tx.update(holidays).set(after).where(eq(holidays.id, id));
      await audit(w.tx, now, { actor: by, action: 'holiday.updated', targetType: 'holiday', targetId: id, details: { ...patch } });
      // The days it covered and the days it covers now.
      const zone = this.ctx.settings.ATTENDANCE_TIME_ZONE;
      await this.changed(w, holidayChange(before, by, now, zone));
      await this.changed(w, holidayChange(after, by, now, zone));
      const [view] = await this.holidayViews(w.tx, [after]);
      return view!;
    });
  }

  async deleteHoliday(id: string, by: string, scope: AreaScope = EVERYWHERE): Promise<void> {
    await this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const row = await this.holidayRow(w.tx, id);
      await requireOwn(w.tx, this.enrollees, scope, row, 'holiday', id);
      await w.tx.delete(holidays).where(eq(holidays.id, id));
      await audit(w.tx, now, { actor: by, action: 'holiday.deleted', targetType: 'holiday', targetId: id, details: { date: row.date, name: row.name } });
      await this.changed(w, holidayChange(row, by, now, this.ctx.settings.ATTENDANCE_TIME_ZONE));
    });
  }

  private async holidayRow(q: Queryable, id: string): Promise<HolidayRow> {
    const [row] = await q.select().from(holidays).where(eq(holidays.id, id)).limit(1);
    if (!row) throw new FpaError('not_found', 'holiday not found', { holiday: id });
    return row;
  }

  /**
   * Whom a holiday is for: one person or areas. A person outside a limited caller's areas is not
   * there (404 `enrollee not found`, as for a PIN nobody holds), so the answer tells nothing of
   * other areas' people.
   */
  private async holidayScope(w: WriteContext, reach: { areas: readonly string[] | undefined; enrollee: string | null }, now: number, scope: AreaScope) {
    const { areas, enrollee } = reach;
    if (enrollee && areas && areas.length > 0)
      throw new FpaError('validation_error', 'a holiday is for one enrollee or for areas, not both', { fields: ['enrollee', 'areas'] });
    const enrolleeId = enrollee ? (await this.person(w.tx, enrollee, scope)).id : null;
    return { enrolleeId, areaIds: areas && areas.length > 0 ? await resolveAreas(w.tx, areas, now, this.ctx.settings.AREAS_CREATED_ON_USE) : [] };
  }

  private async holidayViews(q: Queryable, rows: readonly HolidayRow[]): Promise<HolidayView[]> {
    const names = await areaNames(
      q,
      rows.flatMap((r) => r.areaIds),
    );
    return rows.map((r) => ({
      id: r.id,
      date: r.date,
      name: r.name,
      recurring: r.recurring,
      cancelled: r.cancelled,
      areas: r.areaIds.map((a) => names.get(a) ?? a).sort(),
      enrollee: r.enrolleeId,
      created_at: new Date(r.createdAt).toISOString(),
    }));
  }

  // ---------------------------------------------------------------- leaves

  async listLeaves(
    filters: { enrollee?: string; employee?: string; from?: string; to?: string; cursor?: string; limit: number },
    scope: AreaScope = EVERYWHERE,
  ): Promise<Page<LeaveView>> {
    const conditions: SQL[] = [];
    const member = this.enrollees.membership.enrolleeInScope(leaves.enrolleeId, scope);
    if (member) conditions.push(member);
    if (filters.enrollee) conditions.push(eq(leaves.enrolleeId, (await this.person(this.ctx.db.orm, filters.enrollee, scope)).id));
    if (filters.employee) {
      const found = (await this.enrollees.byEmployeeKeys(this.ctx.db.orm, [filters.employee])).get(filters.employee);
      conditions.push(eq(leaves.enrolleeId, found?.id ?? ''));
    }
    // A leave is listed when it covers any date of the range.
    const { from, to } = dateFilter(filters);
    if (from) conditions.push(gte(leaves.toDate, from));
    if (to) conditions.push(lte(leaves.fromDate, to));
    const { rows, next_cursor } = await twoKeyPage(
      'leaves',
      filters.cursor,
      filters.limit,
      [leaves.fromDate, leaves.id],
      (after, count) =>
        this.ctx.db.orm
          .select()
          .from(leaves)
          .where(and(...conditions, after))
          .orderBy(asc(leaves.fromDate), asc(leaves.id))
          .limit(count),
      (r) => [r.fromDate, r.id],
    );
    const people = await this.enrollees.byIds(
      this.ctx.db.orm,
      rows.map((r) => r.enrolleeId),
    );
    return { results: rows.map((r) => leaveView(r, people.get(r.enrolleeId)?.employeeKey ?? '')), next_cursor };
  }

  async createLeave(input: { enrollee: string; from: string; to: string; kind: string }, by: string, scope: AreaScope = EVERYWHERE): Promise<LeaveView> {
    requireDate(input.from);
    requireDate(input.to);
    requireOrdered(input.from, input.to);
    return this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const person = await this.person(w.tx, input.enrollee, scope);
      const row: LeaveRow = { id: crypto.randomUUID(), enrolleeId: person.id, fromDate: input.from, toDate: input.to, kind: input.kind, createdAt: now };
      await w.tx.insert(leaves).values(row);
      await audit(w.tx, now, { actor: by, action: 'leave.created', targetType: 'leave', targetId: row.id, details: { ...input, enrollee: person.id } });
      await this.changed(w, { kind: 'leave', id: row.id, enrollees: [person.id], ranges: [{ from: row.fromDate, to: row.toDate }], by });
      return leaveView(row, person.employeeKey);
    });
  }

  async deleteLeave(id: string, by: string, scope: AreaScope = EVERYWHERE): Promise<void> {
    await this.ctx.db.write(async (w) => {
      const [row] = await w.tx.select().from(leaves).where(eq(leaves.id, id)).limit(1);
      if (!row || !(await this.enrollees.inScope(w.tx, row.enrolleeId, scope))) throw new FpaError('not_found', 'leave not found', { leave: id });
      await w.tx.delete(leaves).where(eq(leaves.id, id));
      await audit(w.tx, this.ctx.clock.now(), { actor: by, action: 'leave.deleted', targetType: 'leave', targetId: id, details: { enrollee: row.enrolleeId } });
      await this.changed(w, { kind: 'leave', id, enrollees: [row.enrolleeId], ranges: [{ from: row.fromDate, to: row.toDate }], by });
    });
  }

  // ---------------------------------------------------------------- weekends

  /** Every area's weekend rows (a short list), by area name and first date. */
  async listWeekends(filters: { area?: string; cursor?: string; limit: number }, scope: AreaScope = EVERYWHERE): Promise<Page<WeekendView>> {
    const rows = await this.ctx.db.orm.select().from(areaWeekends);
    const views = (await this.weekendViews(this.ctx.db.orm, rows))
      .filter((v) => (filters.area === undefined || v.area === filters.area) && coversAny(scope, [v.area]))
      .sort((a, b) => (a.area === b.area ? (a.from ?? '').localeCompare(b.from ?? '') : a.area < b.area ? -1 : 1));
    const after = twoKeyCursor('weekends', filters.cursor);
    const start = after ? views.findIndex((v) => v.area > after[0] || (v.area === after[0] && (v.from ?? '') > after[1])) : 0;
    const rest = start < 0 ? [] : views.slice(start);
    const page = rest.slice(0, filters.limit);
    const last = page[page.length - 1];
    return { results: page, next_cursor: rest.length > filters.limit && last ? cursorOf('weekends', [last.area, last.from ?? '']) : null };
  }

  /** Sets an area's weekend from a date on (replacing the row of that area and date, if any). */
  async setWeekend(input: { area: string; days: number[]; from?: string }, by: string, scope: AreaScope = EVERYWHERE): Promise<WeekendView> {
    if (input.from !== undefined) requireDate(input.from);
    areasWithin(scope, [input.area]);
    return this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const [areaId] = await resolveAreas(w.tx, [input.area], now, this.ctx.settings.AREAS_CREATED_ON_USE);
      const fromDate = input.from ?? ALWAYS;
      const days = [...new Set(input.days)].sort((a, b) => a - b);
      const [row] = await w.tx
        .insert(areaWeekends)
        .values({ id: crypto.randomUUID(), areaId: areaId!, fromDate, days, createdAt: now })
        .onConflictDoUpdate({ target: [areaWeekends.areaId, areaWeekends.fromDate], set: { days, createdAt: now } })
        .returning();
      await audit(w.tx, now, {
        actor: by,
        action: 'weekend.set',
        targetType: 'area',
        targetId: areaId!,
        details: { area: input.area, days, from: input.from ?? null },
      });
      await this.changed(w, { kind: 'weekend', id: row!.id, areas: [areaId!], ranges: [{ from: fromDate, to: null }], by });
      const [view] = await this.weekendViews(w.tx, [row!]);
      return view!;
    });
  }

  async deleteWeekend(id: string, by: string, scope: AreaScope = EVERYWHERE): Promise<void> {
    await this.ctx.db.write(async (w) => {
      const [row] = await w.tx.select().from(areaWeekends).where(eq(areaWeekends.id, id)).limit(1);
      if (!row) throw new FpaError('not_found', 'weekend not found', { weekend: id });
      await requireOwn(w.tx, this.enrollees, scope, { enrolleeId: null, areaIds: [row.areaId] }, 'weekend', id);
      await w.tx.delete(areaWeekends).where(eq(areaWeekends.id, id));
      await audit(w.tx, this.ctx.clock.now(), {
        actor: by,
        action: 'weekend.deleted',
        targetType: 'area',
        targetId: row.areaId,
        details: { from: row.fromDate },
      });
      await this.changed(w, { kind: 'weekend', id, areas: [row.areaId], ranges: [{ from: row.fromDate, to: null }], by });
    });
  }

  private async weekendViews(q: Queryable, rows: readonly WeekendRow[]): Promise<WeekendView[]> {
    const names = await areaNames(
      q,
      rows.map((r) => r.areaId),
    );
    return rows.map((r) => ({
      id: r.id,
      area: names.get(r.areaId) ?? r.areaId,
      from: r.fromDate === ALWAYS ? null : r.fromDate,
      days: r.days,
      created_at: new Date(r.createdAt).toISOString(),
    }));
  }

  // ---------------------------------------------------------------- shared

  /**
   * An enrollee (not deleted) by UUID or device PIN; outside a limited caller's areas one is not
   * there, with the same answer as a missing one (nothing tells that they exist, nor their id).
   */
  async person(q: Queryable, value: string, scope: AreaScope = EVERYWHERE): Promise<EnrolleeRow> {
    const row = await this.enrollees.findByIdOrPin(q, value);
    if (!row || !(await this.enrollees.inScope(q, row.id, scope))) throw new FpaError('not_found', 'enrollee not found', { enrollee: value });
    return row;
  }

  private async changed(w: WriteContext, change: CalendarChange): Promise<void> {
    if (change.ranges.length > 0) await this.events.record(w, 'calendar_changed', change);
  }
}

/** The dates a holiday row touches: its date, or every year's occurrence up to next year. */
function holidayChange(row: HolidayRow, by: string, now: number, zone: string): CalendarChange {
  const ranges: { from: string; to: string }[] = [];
  if (!row.recurring) ranges.push({ from: row.date, to: row.date });
  else {
    const last = Number(localDateOf(now, zone).slice(0, 4)) + 1;
    for (let year = Number(row.date.slice(0, 4)); year <= last; year++) {
      const date = `${String(year).padStart(4, '0')}${row.date.slice(4)}`;
      if (isCalendarDate(date)) ranges.push({ from: date, to: date });
    }
  }
  const scope = row.enrolleeId ? { enrollees: [row.enrolleeId] } : row.areaIds.length > 0 ? { areas: row.areaIds } : {};
  return { kind: 'holiday', id: row.id, ...scope, ranges, by };
}

function leaveView(row: LeaveRow, employee: string): LeaveView {
  return {
    id: row.id,
    enrollee: row.enrolleeId,
    employee,
    from: row.fromDate,
    to: row.toDate,
    kind: row.kind,
    created_at: new Date(row.createdAt).toISOString(),
  };
}

function requireDate(date: string): void {
  if (!isCalendarDate(date)) throw new FpaError('validation_error', 'not a calendar date (YYYY-MM-DD)', { value: date });
}

/**
 * A recurring holiday's month and day falls in `from`..`to` (the first date's year or the next,
 * for a range across a new year; any, for a year or more). With `date <= to`, the year it falls
 * in is its own year or later.
 */
function recursWithin(from: string, to: string | undefined): SQL {
  if (!to || Date.parse(to) - Date.parse(from) >= 365 * 86_400_000) return sql`1`;
  const day = sql`substr(${holidays.date}, 6)`;
  const [fromDay, toDay] = [from.slice(5), to.slice(5)];
  return from.slice(0, 4) === to.slice(0, 4) ? sql`${day} between ${fromDay} and ${toDay}` : sql`(${day} >= ${fromDay} or ${day} <= ${toDay})`;
}
