/**
 * Work schedules and their assignments to enrollees or areas over dates. Every change is
 * audited and recorded as `calendar_changed` for the people and dates it touches: an
 * assignment's own scope and range; a schedule's change, those of every assignment using it.
 */
import { and, asc, eq, gt, gte, isNull, lte, or, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import { formatDuration, parseDuration } from '../../platform/config/values';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { twoKeyPage } from '../../platform/db/two-key-page';
import { FpaError } from '../../platform/errors';
import { type Page, pageOf, textCursor } from '../../platform/http/paging';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import { dateFilter, isCalendarDate, requireOrdered, secondsOfClock } from '../../platform/time/dates';
import { areaIdsNamed, areaNames, areasWithin, resolveAreas, scopeAreaIds } from '../areas';
import { audit } from '../audit';
import type { EventChannel } from '../events';
import type { DaysOff } from './days-off';
import type { CalendarChange, CalendarEvents } from './events';
import type { ShiftAssignmentCreatedView, ShiftAssignmentView, WorkScheduleView } from './model';
import { withOwnScheduleWithin } from './own-schedules';
import type { ScheduleDef } from './plan';
import type { CalendarRuntime } from './runtime';
import { type Entry, requireOwn, requireOwnSchedule, schedulesUsedElsewhere } from './scope';
import { shiftAssignments, workSchedules } from './tables';

type ScheduleRow = typeof workSchedules.$inferSelect;
type AssignmentRow = typeof shiftAssignments.$inferSelect;

export interface ScheduleInput {
  name: string;
  start: string;
  end: string;
  grace_in?: string;
  grace_out?: string;
  break?: string;
  weekdays?: number[] | null;
}

export class Schedules {
  constructor(
    private readonly ctx: CalendarRuntime,
    private readonly events: EventChannel<CalendarEvents>,
    private readonly daysOff: DaysOff,
  ) {}

  // ---------------------------------------------------------------- schedules

  /** Every schedule, by name; `used_elsewhere` says which a limited scope may not change. */
  async list(filters: { cursor?: string; limit: number }, scope: AreaScope = EVERYWHERE): Promise<Page<WorkScheduleView>> {
    const after = textCursor('work-schedules', filters.cursor);
    const rows = await this.ctx.db.orm
      .select()
      .from(workSchedules)
      .where(after === null ? undefined : gt(workSchedules.name, after))
      .orderBy(asc(workSchedules.name))
      .limit(filters.limit + 1);
    const elsewhere = await schedulesUsedElsewhere(
      this.ctx.db.orm,
      this.daysOff.enrollees,
      scope,
      rows.map((r) => r.id),
    );
    return pageOf(
      'work-schedules',
      rows,
      filters.limit,
      (r) => r.name,
      (page) => page.map((r) => scheduleView(r, elsewhere.has(r.id))),
    );
  }

  async get(id: string, scope: AreaScope = EVERYWHERE): Promise<WorkScheduleView> {
    const row = await this.row(this.ctx.db.orm, id);
    return scheduleView(row, (await schedulesUsedElsewhere(this.ctx.db.orm, this.daysOff.enrollees, scope, [row.id])).has(row.id));
  }

  async create(input: ScheduleInput, by: string): Promise<WorkScheduleView> {
    return this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const row: ScheduleRow = { id: crypto.randomUUID(), ...scheduleFields(input), createdAt: now, updatedAt: now };
      await this.requireFreeName(w.tx, row.name, null);
      await w.tx.insert(workSchedules).values(row);
      await audit(w.tx, now, { actor: by, action: 'schedule.created', targetType: 'schedule', targetId: row.id, details: { ...input } });
      return scheduleView(row);
    });
  }

  /**
   * Changes a schedule (`id`: its id or name). A caller limited to areas changes only one whose
   * every assignment is its own (scope.ts `requireOwnSchedule`): the days of everyone who works
   * it change.
   */
  async update(id: string, patch: Partial<ScheduleInput>, by: string, scope: AreaScope = EVERYWHERE): Promise<WorkScheduleView> {
    return this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const before = await this.row(w.tx, id);
      await requireOwnSchedule(w.tx, this.daysOff.enrollees, scope, before.id);
      const merged = { ...inputOf(before), ...patch };
      // Only what the patch changes is held to the rules added since (a stored schedule stays editable).
      const after: ScheduleRow = { ...before, ...scheduleFields(merged, new Set(Object.keys(patch))), updatedAt: now };
      if (after.name !== before.name) await this.requireFreeName(w.tx, after.name, before.id);
      await w.tx.update(workSchedules).set(after).where(eq(workSchedules.id, before.id));
      await audit(w.tx, now, { actor: by, action: 'schedule.updated', targetType: 'schedule', targetId: before.id, details: scheduleChanges(before, after) });
      const users = await w.tx.select().from(shiftAssignments).where(eq(shiftAssignments.scheduleId, before.id));
      for (const a of users) await this.changed(w, assignmentChange(a, 'schedule', by));
      return scheduleView(after);
    });
  }

  /**
   * Deletes a schedule no assignment uses (409 `conflict` otherwise, naming one). A caller limited
   * to areas first hears 403 for one also worked outside them, before anything names an
   * assignment it does not see.
   */
  async delete(id: string, by: string, scope: AreaScope = EVERYWHERE): Promise<void> {
    await this.ctx.db.write(async (w) => {
      const row = await this.row(w.tx, id);
      await requireOwnSchedule(w.tx, this.daysOff.enrollees, scope, row.id);
      const [used] = await w.tx.select({ id: shiftAssignments.id }).from(shiftAssignments).where(eq(shiftAssignments.scheduleId, row.id)).limit(1);
      if (used) throw new FpaError('conflict', 'the schedule is still assigned; delete its assignments first', { assignment: used.id });
      await w.tx.delete(workSchedules).where(eq(workSchedules.id, row.id));
      await audit(w.tx, this.ctx.clock.now(), { actor: by, action: 'schedule.deleted', targetType: 'schedule', targetId: row.id, details: { name: row.name } });
    });
  }

  /** Every schedule as the planner reads it. */
  async definitions(q: Queryable): Promise<Map<string, ScheduleDef>> {
    return new Map((await q.select().from(workSchedules)).map((r) => [r.id, definitionOf(r)]));
  }

  private async row(q: Queryable, id: string): Promise<ScheduleRow> {
    const [row] = await q
      .select()
      .from(workSchedules)
      .where(or(eq(workSchedules.id, id), eq(workSchedules.name, id)))
      .limit(1);
    if (!row) throw new FpaError('not_found', 'work schedule not found', { schedule: id });
    return row;
  }

  private async requireFreeName(q: Queryable, name: string, self: string | null): Promise<void> {
    const [other] = await q.select({ id: workSchedules.id }).from(workSchedules).where(eq(workSchedules.name, name)).limit(1);
    if (other && other.id !== self) throw new FpaError('conflict', 'a work schedule with this name exists', { schedule: other.id });
  }

  // ---------------------------------------------------------------- assignments

  async listAssignments(
    filters: {
      enrollee?: string;
      area?: string;
      from?: string;
      to?: string;
      cursor?: string;
      limit: number;
    },
    scope: AreaScope = EVERYWHERE,
  ): Promise<Page<ShiftAssignmentView>> {
    const conditions: SQL[] = [];
    if (filters.enrollee) conditions.push(eq(shiftAssignments.enrolleeId, (await this.daysOff.person(this.ctx.db.orm, filters.enrollee, scope)).id));
    const { from, to } = dateFilter(filters);
    if (from) conditions.push(or(isNull(shiftAssignments.toDate), gte(shiftAssignments.toDate, from))!);
    if (to) conditions.push(lte(shiftAssignments.fromDate, to));
    if (filters.area) {
      const [areaId] = await areaIdsNamed(this.ctx.db.orm, [filters.area]);
      if (areaId === undefined) return { results: [], next_cursor: null };
      conditions.push(eq(shiftAssignments.areaId, areaId));
    }
    // The caller's own: assignments of its people, or of its areas (one statement, on the
    // (from_date, id) index: a large site has tens of thousands).
    const areaIds = scopeAreaIds(scope);
    const member = this.daysOff.enrollees.membership.enrolleeInScope(shiftAssignments.enrolleeId, scope);
    if (areaIds && member) conditions.push(or(member, sql`${shiftAssignments.areaId} in ${areaIds}`)!);
    const { rows, next_cursor } = await twoKeyPage(
      'shift-assignments',
      filters.cursor,
      filters.limit,
      [shiftAssignments.fromDate, shiftAssignments.id],
      (after, count) =>
        this.ctx.db.orm
          .select()
          .from(shiftAssignments)
          .where(and(...conditions, after))
          .orderBy(asc(shiftAssignments.fromDate), asc(shiftAssignments.id))
          .limit(count),
      (r) => [r.fromDate, r.id],
    );
    return { results: await this.assignmentViews(this.ctx.db.orm, rows), next_cursor };
  }

  async assign(
    input: { schedule: string; enrollee?: string; area?: string; from: string; to?: string; priority?: number },
    by: string,
    scope: AreaScope = EVERYWHERE,
  ): Promise<ShiftAssignmentCreatedView> {
    if (input.area !== undefined) areasWithin(scope, [input.area]);
    if ((input.enrollee === undefined) === (input.area === undefined)) {
      throw new FpaError('validation_error', 'give exactly one of enrollee and area', { fields: ['enrollee', 'area'] });
    }
    for (const d of [input.from, input.to])
      if (d !== undefined && !isCalendarDate(d)) throw new FpaError('validation_error', 'not a calendar date', { value: d });
    if (input.to !== undefined) requireOrdered(input.from, input.to);
    return this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const schedule = await this.row(w.tx, input.schedule);
      const row: AssignmentRow = {
        id: crypto.randomUUID(),
        scheduleId: schedule.id,
        enrolleeId: input.enrollee !== undefined ? (await this.daysOff.person(w.tx, input.enrollee, scope)).id : null,
        areaId: input.area !== undefined ? (await resolveAreas(w.tx, [input.area], now, this.ctx.settings.AREAS_CREATED_ON_USE))[0]! : null,
        fromDate: input.from,
        toDate: input.to ?? null,
        priority: input.priority ?? 0,
        createdAt: now,
      };
      await requireOwn(w.tx, this.daysOff.enrollees, scope, entryOf(row), 'shift assignment', row.id);
      await w.tx.insert(shiftAssignments).values(row);
      // The person by id (as asked: an id, an employee id or a PIN), so `audit-log/?target=` finds it.
      await audit(w.tx, now, {
        actor: by,
        action: 'assignment.created',
        targetType: 'shift_assignment',
        targetId: row.id,
        details: { ...input, schedule: schedule.name, ...(row.enrolleeId ? { enrollee: row.enrolleeId } : {}) },
      });
      await this.changed(w, assignmentChange(row, 'assignment', by));
      const [view] = await this.assignmentViews(w.tx, [row]);
      if (row.areaId === null) return { ...view!, people_with_own_schedule: null };
      const members = (await this.daysOff.enrollees.membership.activeInAreas(w.tx, [row.areaId])).map((p) => p.id);
      return { ...view!, people_with_own_schedule: await withOwnScheduleWithin(w.tx, members, row.fromDate, row.toDate) };
    });
  }

  /**
   * One schedule for many people at once: one own assignment each, in one transaction (a person
   * unknown, or outside a limited caller's areas, refuses the whole batch, as `assign` refuses
   * them), and one `calendar_changed` for all of them.
   */
  async assignMany(
    input: { schedule: string; enrollees: string[]; from: string; to?: string; priority?: number },
    by: string,
    scope: AreaScope = EVERYWHERE,
  ): Promise<ShiftAssignmentView[]> {
    for (const d of [input.from, input.to])
      if (d !== undefined && !isCalendarDate(d)) throw new FpaError('validation_error', 'not a calendar date', { value: d });
    if (input.to !== undefined) requireOrdered(input.from, input.to);
    return this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const schedule = await this.row(w.tx, input.schedule);
      const rows: AssignmentRow[] = [];
      const people = new Map<string, string>();
      for (const person of input.enrollees) {
        const enrolleeId = (await this.daysOff.person(w.tx, person)).id;
        if (!people.has(enrolleeId)) people.set(enrolleeId, person);
      }
      // Outside a limited caller's areas reads as not there, as for one person (one query for all).
      const inScope = new Set(await this.daysOff.enrollees.keepInScope(w.tx, [...people.keys()], scope));
      for (const [enrolleeId, asked] of people) {
        if (!inScope.has(enrolleeId)) throw new FpaError('not_found', 'enrollee not found', { enrollee: asked });
        const base = { scheduleId: schedule.id, areaId: null, fromDate: input.from, toDate: input.to ?? null, priority: input.priority ?? 0, createdAt: now };
        rows.push({ id: crypto.randomUUID(), enrolleeId, ...base });
      }
      for (const batch of chunks(rows, 200)) await w.tx.insert(shiftAssignments).values(batch);
      await audit(w.tx, now, {
        actor: by,
        action: 'assignment.created',
        targetType: 'shift_assignment',
        targetId: rows[0]?.id ?? schedule.id,
        details: { schedule: schedule.name, enrollees: [...people.keys()], from: input.from, to: input.to ?? null, count: rows.length },
      });
      await this.changed(w, { kind: 'assignment', id: null, enrollees: [...people.keys()], ranges: [{ from: input.from, to: input.to ?? null }], by });
      return this.assignmentViews(w.tx, rows);
    });
  }

  async unassign(id: string, by: string, scope: AreaScope = EVERYWHERE): Promise<void> {
    await this.ctx.db.write(async (w) => {
      const [row] = await w.tx.select().from(shiftAssignments).where(eq(shiftAssignments.id, id)).limit(1);
      if (!row) throw new FpaError('not_found', 'shift assignment not found', { assignment: id });
      await requireOwn(w.tx, this.daysOff.enrollees, scope, entryOf(row), 'shift assignment', id);
      await w.tx.delete(shiftAssignments).where(eq(shiftAssignments.id, id));
      await audit(w.tx, this.ctx.clock.now(), {
        actor: by,
        action: 'assignment.deleted',
        targetType: 'shift_assignment',
        targetId: id,
        details: { ...(row.enrolleeId ? { enrollee: row.enrolleeId } : { area: row.areaId }), from: row.fromDate, to: row.toDate },
      });
      await this.changed(w, assignmentChange(row, 'assignment', by));
    });
  }

  /** The assignments of one area (the Areas page), by first date. */
  async ofArea(q: Queryable, areaId: string): Promise<{ id: string; schedule: string; from: string; to: string | null }[]> {
    const rows = await q.select().from(shiftAssignments).where(eq(shiftAssignments.areaId, areaId)).orderBy(asc(shiftAssignments.fromDate));
    return (await this.assignmentViews(q, rows)).map((v) => ({ id: v.id, schedule: v.schedule, from: v.from, to: v.to }));
  }

  /** Assignments of these enrollees or areas covering any date of [from, to]. */
  async assignmentsFor(q: Queryable, scope: { enrollees: readonly string[]; areas: readonly string[] }, from: string, to: string): Promise<AssignmentRow[]> {
    const rows = await q
      .select()
      .from(shiftAssignments)
      .where(and(lte(shiftAssignments.fromDate, to), or(isNull(shiftAssignments.toDate), gte(shiftAssignments.toDate, from))));
    const enrollees = new Set(scope.enrollees);
    const areas = new Set(scope.areas);
    // Assignments are few (a handful per area and per exception), filtered in memory.
    return rows.filter((r) => (r.enrolleeId ? enrollees.has(r.enrolleeId) : r.areaId !== null && areas.has(r.areaId)));
  }

  private async assignmentViews(q: Queryable, rows: readonly AssignmentRow[]): Promise<ShiftAssignmentView[]> {
    const names = await areaNames(
      q,
      rows.flatMap((r) => (r.areaId ? [r.areaId] : [])),
    );
    const schedules = new Map((await q.select({ id: workSchedules.id, name: workSchedules.name }).from(workSchedules)).map((s) => [s.id, s.name]));
    return rows.map((r) => ({
      id: r.id,
      schedule: schedules.get(r.scheduleId) ?? '',
      schedule_id: r.scheduleId,
      enrollee: r.enrolleeId,
      area: r.areaId ? (names.get(r.areaId) ?? r.areaId) : null,
      from: r.fromDate,
      to: r.toDate,
      priority: r.priority,
      created_at: new Date(r.createdAt).toISOString(),
    }));
  }

  private async changed(w: WriteContext, change: CalendarChange): Promise<void> {
    await this.events.record(w, 'calendar_changed', change);
  }
}

function assignmentChange(row: AssignmentRow, kind: 'assignment' | 'schedule', by: string): CalendarChange {
  const scope = row.enrolleeId ? { enrollees: [row.enrolleeId] } : { areas: [row.areaId!] };
  return { kind, id: kind === 'schedule' ? row.scheduleId : row.id, ...scope, ranges: [{ from: row.fromDate, to: row.toDate }], by };
}

const entryOf = (row: AssignmentRow): Entry => ({ enrolleeId: row.enrolleeId, areaIds: row.areaId ? [row.areaId] : [] });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The stored fields of a schedule, checked: times, durations, a break and graces shorter than the
 * shift, a name that is no id, a day at least. `changed`: the fields a patch gives; the rules
 * added after schedules were first stored (a name that is an id, no day, graces as long as the
 * shift) hold those only, so a schedule stored before them can still be edited.
 */
function scheduleFields(input: ScheduleInput, changed?: ReadonlySet<string>): Omit<ScheduleRow, 'id' | 'createdAt' | 'updatedAt'> {
  const start = secondsOfClock(input.start);
  const end = secondsOfClock(input.end);
  if (start === null || end === null) throw new FpaError('validation_error', 'start and end must be wall times HH:MM', { fields: ['start', 'end'] });
  if (start === end) throw new FpaError('validation_error', 'start and end must differ', { fields: ['start', 'end'] });
  const duration = (field: string, text: string | undefined): number => {
    if (text === undefined) return 0;
    const parsed = parseDuration(text);
    if (!parsed.ok) throw new FpaError('validation_error', `${field}: ${parsed.error}`, { field });
    return parsed.value;
  };
  const checks = (...fields: string[]) => !changed || fields.some((f) => changed.has(f));
  // Where a schedule is named "by id or name", a name that is an id would name another schedule.
  if (checks('name') && UUID.test(input.name.trim())) throw new FpaError('validation_error', 'a schedule’s name cannot be an id (a UUID)', { field: 'name' });
  if (checks('weekdays') && input.weekdays?.length === 0) {
    throw new FpaError('validation_error', 'weekdays: name at least one day (0 Sunday … 6 Saturday), or null for every day but the weekend', {
      field: 'weekdays',
    });
  }
  const length = ((end - start + 86_400) % 86_400) * 1000;
  const breakMs = duration('break', input.break);
  if (breakMs >= length) throw new FpaError('validation_error', 'the break must be shorter than the shift', { field: 'break' });
  const within = (field: 'grace_in' | 'grace_out'): number => {
    const ms = duration(field, input[field]);
    if (checks(field, 'start', 'end') && ms >= length) throw new FpaError('validation_error', `${field} must be shorter than the shift`, { field });
    return ms;
  };
  return {
    name: input.name,
    start: input.start,
    end: input.end,
    graceInMs: within('grace_in'),
    graceOutMs: within('grace_out'),
    breakMs,
    weekdays: input.weekdays ? [...new Set(input.weekdays)].sort((a, b) => a - b) : null,
  };
}

/** What a schedule change changed: the schedule's name (as it was), and each field that differs, from what it was to what it is. */
function scheduleChanges(before: ScheduleRow, after: ScheduleRow): Record<string, unknown> {
  const [was, is] = [inputOf(before), inputOf(after)];
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(is) as (keyof ScheduleInput)[]) {
    if (JSON.stringify(was[key]) !== JSON.stringify(is[key])) changes[key] = { from: was[key] ?? null, to: is[key] ?? null };
  }
  return { name: before.name, changes };
}

function inputOf(row: ScheduleRow): ScheduleInput {
  return {
    name: row.name,
    start: row.start,
    end: row.end,
    grace_in: formatDuration(row.graceInMs),
    grace_out: formatDuration(row.graceOutMs),
    break: formatDuration(row.breakMs),
    weekdays: row.weekdays,
  };
}

/** `usedElsewhere`: an assignment outside the caller's areas uses it (never, for a caller of every area). */
function scheduleView(row: ScheduleRow, usedElsewhere = false): WorkScheduleView {
  return {
    id: row.id,
    name: row.name,
    start: row.start,
    end: row.end,
    overnight: (secondsOfClock(row.end) ?? 0) <= (secondsOfClock(row.start) ?? 0),
    grace_in: formatDuration(row.graceInMs),
    grace_out: formatDuration(row.graceOutMs),
    break: formatDuration(row.breakMs),
    weekdays: row.weekdays,
    used_elsewhere: usedElsewhere,
    created_at: new Date(row.createdAt).toISOString(),
  };
}

function definitionOf(row: ScheduleRow): ScheduleDef {
  return {
    id: row.id,
    name: row.name,
    start: row.start,
    end: row.end,
    graceInMs: row.graceInMs,
    graceOutMs: row.graceOutMs,
    breakMs: row.breakMs,
    weekdays: row.weekdays,
  };
}
