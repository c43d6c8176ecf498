/**
 * Which areas enrollees belong to, and which enrollees an area (a terminal's scope) takes in.
 * Functions on the caller's Queryable or raw Execute; other modules reach them as
 * `enrollees.membership` (the index exports the few that need no service).
 */

import { and, asc, type Column, desc, eq, getTableName, gt, inArray, isNull, lte, ne, or, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Execute, Queryable } from '../../platform/db/client';
import { selectAsJson } from '../../platform/db/json-results';
import { placeholders } from '../../platform/db/placeholders';
import type { AreaScope } from '../../platform/scope';
import { namesByMember, scopeAreaIds } from '../areas';
import type { EnrolleeRow } from './tables';
import { enrolleeAreaChanges, enrolleeAreas, enrollees } from './tables';

/** Enrollees (not deleted) in an area (an area in use is not deleted). */
async function countInArea(q: Queryable, areaId: string): Promise<number> {
  const [row] = await q
    .select({ n: sql<number>`count(*)` })
    .from(enrolleeAreas)
    .innerJoin(enrollees, eq(enrollees.id, enrolleeAreas.enrolleeId))
    .where(and(eq(enrolleeAreas.areaId, areaId), ne(enrollees.status, 'deleted')));
  return row?.n ?? 0;
}

export async function areaIdsOf(q: Queryable, enrolleeId: string): Promise<string[]> {
  const rows = await q.select({ areaId: enrolleeAreas.areaId }).from(enrolleeAreas).where(eq(enrolleeAreas.enrolleeId, enrolleeId));
  return rows.map((r) => r.areaId);
}

/** Area ids of many enrollees at once (the calendar resolves area holidays, shifts and weekends). */
async function areaIdsByEnrollee(q: Queryable, enrolleeIds: readonly string[]): Promise<Map<string, string[]>> {
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
async function idsInAreas(q: Queryable, areaIds: readonly string[]): Promise<string[]> {
  if (areaIds.length === 0) return [];
  const rows = await q
    .selectDistinct({ id: enrolleeAreas.enrolleeId })
    .from(enrolleeAreas)
    .innerJoin(enrollees, eq(enrollees.id, enrolleeAreas.enrolleeId))
    .where(and(inArray(enrolleeAreas.areaId, [...areaIds]), ne(enrollees.status, 'deleted')));
  return rows.map((r) => r.id);
}

export async function areaNamesOf(q: Queryable, enrolleeIds: readonly string[]): Promise<Map<string, string[]>> {
  const pairs: { member: string; areaId: string }[] = [];
  for (const ids of chunks(enrolleeIds, 500)) {
    pairs.push(
      ...(await q.select({ member: enrolleeAreas.enrolleeId, areaId: enrolleeAreas.areaId }).from(enrolleeAreas).where(inArray(enrolleeAreas.enrolleeId, ids))),
    );
  }
  return namesByMember(q, pairs);
}

/**
 * The areas a person's terminals are those of, for the fleet: their areas, and those they left by
 * a move whose terminals have not let go of them yet (its `terminals_left_at` is null until its
 * effective date begins and job `follow-area-moves` takes them off: fleet/area-moves.ts). The
 * day a move is made is judged under the areas it started with, so it is punched at their
 * terminals. Every question of the fleet (who a terminal should hold, which terminals a person
 * should be on, whether they may punch or enroll there) is answered from it.
 */
async function terminalAreaIdsOf(q: Queryable, enrolleeId: string): Promise<string[]> {
  return [...new Set([...(await areaIdsOf(q, enrolleeId)), ...(await leftAreaIdsOf(q, enrolleeId))])];
}

/** The areas a person left by moves whose terminals have not let go of them yet (terminalAreaIdsOf). */
async function leftAreaIdsOf(q: Queryable, enrolleeId: string): Promise<string[]> {
  const rows = await q
    .select({ areas: enrolleeAreaChanges.areasBefore })
    .from(enrolleeAreaChanges)
    .where(and(eq(enrolleeAreaChanges.enrolleeId, enrolleeId), isNull(enrolleeAreaChanges.terminalsLeftAt)));
  return [...new Set(rows.flatMap((r) => r.areas))];
}

/** A condition on a move (`fpa_enrollee_area_changes`): its terminals still hold the person, and it left one of these areas. */
function leftOneOf(areaIds: readonly string[]): SQL {
  return sql`${enrolleeAreaChanges.terminalsLeftAt} is null and exists (select 1 from json_each(${enrolleeAreaChanges.areasBefore}) where value in ${[...areaIds]})`;
}

/** Active enrollees whose terminals' areas (terminalAreaIdsOf) include any of these: a terminal's scope. */
async function activeInAreas(q: Queryable, areaIds: readonly string[]): Promise<EnrolleeRow[]> {
  if (areaIds.length === 0) return [];
  const members = sql`select ${enrolleeAreas.enrolleeId} from ${enrolleeAreas} where ${enrolleeAreas.areaId} in ${[...areaIds]}
    union select ${enrolleeAreaChanges.enrolleeId} from ${enrolleeAreaChanges} where ${leftOneOf(areaIds)}`;
  return (
    q
      .select()
      .from(enrollees)
      .where(and(eq(enrollees.status, 'active'), sql`${enrollees.id} in (${members})`))
      // Oldest first: a backfill sends people in the order they were enrolled.
      .orderBy(asc(enrollees.createdAt), asc(enrollees.id))
  );
}

/**
 * Those of these enrollees whose terminals' areas (terminalAreaIdsOf) share one with these areas
 * (raw SQL: asked with every upload).
 */
async function sharingAreas(execute: Execute, enrolleeIds: readonly string[], areaIds: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  if (areaIds.length === 0) return out;
  const areas = placeholders(areaIds.length);
  // The rows as one JSON value (platform/db/json-results.ts): reading hundreds one by one costs more than finding them.
  for (const ids of chunks(enrolleeIds, 400)) {
    const rows = await selectAsJson<[string]>(
      execute,
      ['enrollee_id'],
      `select enrollee_id from ${getTableName(enrolleeAreas)} where enrollee_id in (select value from json_each(?)) and area_id in (${areas})
       union select enrollee_id from ${getTableName(enrolleeAreaChanges)} where enrollee_id in (select value from json_each(?)) and terminals_left_at is null
         and exists (select 1 from json_each(areas_before) where value in (${areas}))`,
      [JSON.stringify(ids), ...areaIds, JSON.stringify(ids), ...areaIds],
    );
    for (const [id] of rows) out.add(id);
  }
  return out;
}

/** Whether the enrollee's terminals' areas (terminalAreaIdsOf) share one with these areas. */
async function sharesArea(q: Queryable, enrolleeId: string, areaIds: readonly string[]): Promise<boolean> {
  if (areaIds.length === 0) return false;
  const theirs = new Set(await terminalAreaIdsOf(q, enrolleeId));
  return areaIds.some((a) => theirs.has(a));
}

export async function setEnrolleeAreas(q: Queryable, enrolleeId: string, areaIds: string[]): Promise<void> {
  await q.delete(enrolleeAreas).where(eq(enrolleeAreas.enrolleeId, enrolleeId));
  if (areaIds.length > 0) await q.insert(enrolleeAreas).values(areaIds.map((areaId) => ({ enrolleeId, areaId })));
}

/** A recorded move: the first date under the new areas (null: recorded before migration 0025), when, and the areas before it. */
export interface AreaMove {
  from: string | null;
  at: number;
  areaIds: string[];
}

/**
 * Keeps the areas a person had before a move at `at`, when the move changes them (tables.ts
 * `enrolleeAreaChanges`), and answers the first date judged under the new areas: `from` (the
 * date after the move's), or the date of the person's last recorded move if that is later (an
 * instance whose clock is behind), so their moves' dates never go back in the database's order.
 * Null when the areas did not change.
 */
export async function recordAreaChange(
  q: Queryable,
  enrolleeId: string,
  move: { at: number; from: string },
  before: readonly string[],
  after: readonly string[],
): Promise<string | null> {
  if (before.length === after.length && before.every((a) => after.includes(a))) return null;
  const [last] = await q
    .select({ from: enrolleeAreaChanges.effectiveFrom })
    .from(enrolleeAreaChanges)
    .where(eq(enrolleeAreaChanges.enrolleeId, enrolleeId))
    .orderBy(desc(sql`rowid`))
    .limit(1);
  const from = last?.from && last.from > move.from ? last.from : move.from;
  await q
    .insert(enrolleeAreaChanges)
    .values({ enrolleeId, changedAt: move.at, areasBefore: [...before], effectiveFrom: from })
    .onConflictDoNothing();
  return from;
}

/**
 * Enrollees with a move whose terminals still hold them and whose effective date has begun by
 * `date` (a local date): those job `follow-area-moves` takes off the terminals they left. A move
 * without a date (one an older release recorded without it) is due.
 */
async function idsLeavingTerminals(q: Queryable, date: string): Promise<string[]> {
  // Not `distinct`: that reads the whole table in its key's order instead of the few moves pending.
  const rows = await q
    .select({ id: enrolleeAreaChanges.enrolleeId })
    .from(enrolleeAreaChanges)
    .where(and(isNull(enrolleeAreaChanges.terminalsLeftAt), or(isNull(enrolleeAreaChanges.effectiveFrom), lte(enrolleeAreaChanges.effectiveFrom, date))));
  return [...new Set(rows.map((r) => r.id))];
}

/**
 * Marks the person's moves due by `date` (idsLeavingTerminals) as let go of by their terminals
 * at `at`, and answers the areas they left and the latest of their dates; nothing when none was
 * still unmarked (another instance's run took them: compare-and-set, so each move is followed once).
 */
async function letGoOfLeftAreas(q: Queryable, enrolleeId: string, date: string, at: number): Promise<{ areaIds: string[]; from: string | null }> {
  const marked = await q
    .update(enrolleeAreaChanges)
    .set({ terminalsLeftAt: at })
    .where(
      and(
        eq(enrolleeAreaChanges.enrolleeId, enrolleeId),
        isNull(enrolleeAreaChanges.terminalsLeftAt),
        or(isNull(enrolleeAreaChanges.effectiveFrom), lte(enrolleeAreaChanges.effectiveFrom, date)),
      ),
    )
    .returning({ areas: enrolleeAreaChanges.areasBefore, from: enrolleeAreaChanges.effectiveFrom });
  const dates = marked.flatMap((m) => (m.from ? [m.from] : [])).sort();
  return { areaIds: [...new Set(marked.flatMap((m) => m.areas))], from: dates.at(-1) ?? null };
}

/**
 * Per enrollee, their moves between areas, oldest first: in the order the database stored them
 * (`rowid`), not by `changed_at`, which is each instance's own clock.
 */
async function areaChangesByEnrollee(q: Queryable, enrolleeIds: readonly string[]): Promise<Map<string, AreaMove[]>> {
  const out = new Map<string, AreaMove[]>();
  for (const ids of chunks([...new Set(enrolleeIds)], 500)) {
    const rows = await q.select().from(enrolleeAreaChanges).where(inArray(enrolleeAreaChanges.enrolleeId, ids)).orderBy(asc(sql`rowid`));
    for (const r of rows) out.set(r.enrolleeId, [...(out.get(r.enrolleeId) ?? []), { from: r.effectiveFrom, at: r.changedAt, areaIds: r.areasBefore }]);
  }
  return out;
}

/**
 * Enrollees with a move that changes the areas of `date` or a later date (its first date under
 * the new areas after `date`; every move recorded before migration 0025, whose date is not
 * stored): those whose plans of those dates need their moves (the Today board).
 */
async function idsMovedAfter(q: Queryable, date: string): Promise<string[]> {
  const rows = await q
    .selectDistinct({ id: enrolleeAreaChanges.enrolleeId })
    .from(enrolleeAreaChanges)
    .where(or(isNull(enrolleeAreaChanges.effectiveFrom), gt(enrolleeAreaChanges.effectiveFrom, date)));
  return rows.map((r) => r.id);
}

/**
 * Enrollees (not deleted, as `idsInAreas`) who were in any of these areas before a move: a
 * change of the area's calendar reaches their days of then too.
 */
async function idsFormerlyInAreas(q: Queryable, areaIds: readonly string[]): Promise<string[]> {
  if (areaIds.length === 0) return [];
  const rows = await q
    .selectDistinct({ id: enrolleeAreaChanges.enrolleeId })
    .from(enrolleeAreaChanges)
    .innerJoin(enrollees, eq(enrollees.id, enrolleeAreaChanges.enrolleeId))
    .where(and(sql`exists (select 1 from json_each(${enrolleeAreaChanges.areasBefore}) where value in ${[...areaIds]})`, ne(enrollees.status, 'deleted')));
  return rows.map((r) => r.id);
}

/**
 * A condition: the enrollee id in `column` belongs to one of the scope's areas (on the
 * membership table's area index); undefined for an unlimited scope (no condition at all).
 */
export function enrolleeInScope(column: Column | SQL, scope: AreaScope): SQL | undefined {
  const areaIds = scopeAreaIds(scope);
  if (!areaIds) return undefined;
  return sql`${column} in (select ${enrolleeAreas.enrolleeId} from ${enrolleeAreas} where ${enrolleeAreas.areaId} in ${areaIds})`;
}

/**
 * A condition on a reference to a person as a terminal's command carries it (its payload's
 * `enrollee`, else its `pin`: commands/operator-actions.ts): the person it names, else whoever
 * holds that PIN (a deleted person's tombstone keeps theirs), is in the scope, or it names no one
 * the service knows (a terminal's own user, a command about the terminal itself). Undefined for
 * an unlimited scope. As `devices/{sn}/users/` leaves out the users linked to other areas' people.
 */
function referenceInScope(id: SQL, pin: SQL, scope: AreaScope): SQL | undefined {
  const who = sql`coalesce(${id}, (select ${enrollees.id} from ${enrollees} where ${enrollees.devicePin} = ${pin}))`;
  const member = enrolleeInScope(who, scope);
  return member && sql`(${who} is null or ${member})`;
}

/**
 * A condition on an enrollee id column: the person is wholly within a limited scope (in one of
 * its areas, and in no area outside them); undefined for an unlimited scope. What a caller
 * limited to areas may change for the people it shares with nobody (a schedule they work).
 */
function enrolleeWhollyInScope(column: Column | SQL, scope: AreaScope): SQL | undefined {
  const areaIds = scopeAreaIds(scope);
  if (!areaIds) return undefined;
  return sql`(${column} in (select ${enrolleeAreas.enrolleeId} from ${enrolleeAreas} where ${enrolleeAreas.areaId} in ${areaIds}) and ${column} not in (select ${enrolleeAreas.enrolleeId} from ${enrolleeAreas} where ${enrolleeAreas.areaId} not in ${areaIds}))`;
}

/**
 * A condition on an employee key column: an enrollee of that employee (not deleted) is in the
 * scope; undefined for an unlimited scope.
 */
function employeeInScope(column: Column | SQL, scope: AreaScope): SQL | undefined {
  const member = enrolleeInScope(enrollees.id, scope);
  if (!member) return undefined;
  return sql`${column} in (select ${enrollees.employeeKey} from ${enrollees} where ${enrollees.status} <> 'deleted' and ${member})`;
}

/**
 * A condition on an employee key column: an enrollee of that employee, the deleted too (reports
 * name people who left), is in the scope; undefined for an unlimited scope.
 */
function employeeEverInScope(column: Column | SQL, scope: AreaScope): SQL | undefined {
  const member = enrolleeInScope(enrollees.id, scope);
  if (!member) return undefined;
  return sql`${column} in (select ${enrollees.employeeKey} from ${enrollees} where ${member})`;
}

/**
 * A condition on an employee key column: a person is enrolled for the employee (active or
 * deactivated; a deleted one no longer counts), on the enrollees' employee index.
 */
function employeeEnrolled(column: Column | SQL): SQL {
  return sql`exists (select 1 from ${enrollees} where ${enrollees.employeeKey} = ${column} and ${enrollees.status} <> 'deleted')`;
}

/** A condition on an employee key column: an active person (enrollee) is enrolled for the employee. */
function employeeActive(column: Column | SQL): SQL {
  return sql`exists (select 1 from ${enrollees} where ${enrollees.employeeKey} = ${column} and ${enrollees.status} = 'active')`;
}

/** A condition: the enrollee id in `column` is of nobody active now (deactivated, or deleted since). */
function notActive(column: Column | SQL): SQL {
  return sql`not exists (select 1 from ${enrollees} where ${enrollees.id} = ${column} and ${enrollees.status} = 'active')`;
}

/** Every enrollee id (the deleted too: their events still name them) in one of the scope's areas; null when unlimited. */
async function idsInScope(q: Queryable, scope: AreaScope): Promise<string[] | null> {
  const areaIds = scopeAreaIds(scope);
  if (!areaIds) return null;
  const rows = await q.selectDistinct({ id: enrolleeAreas.enrolleeId }).from(enrolleeAreas).where(sql`${enrolleeAreas.areaId} in ${areaIds}`);
  return rows.map((r) => r.id);
}

/**
 * One page of an area's people (not deleted), by name (its folded key, as `enrollees/?sort=name`:
 * case and accents ignored) then id (the Areas page, the roster); `after` is the key and id of the
 * last row of the page before, as `cursorKeys` gives them.
 */
export async function membersOfArea(
  q: Queryable,
  areaId: string,
  page: { after: [string, string] | null; limit: number },
): Promise<{ rows: EnrolleeRow[]; more: boolean }> {
  const after = page.after;
  const rows = await q
    .select({ e: enrollees })
    .from(enrolleeAreas)
    .innerJoin(enrollees, eq(enrollees.id, enrolleeAreas.enrolleeId))
    .where(
      and(
        eq(enrolleeAreas.areaId, areaId),
        ne(enrollees.status, 'deleted'),
        after ? sql`(${enrollees.nameKey}, ${enrollees.id}) > (${after[0]}, ${after[1]})` : undefined,
      ),
    )
    .orderBy(asc(enrollees.nameKey), asc(enrollees.id))
    .limit(page.limit + 1);
  return { rows: rows.slice(0, page.limit).map((r) => r.e), more: rows.length > page.limit };
}

/** What other modules ask of enrollees' areas: `enrollees.membership`. */
export const membership = {
  countInArea,
  areaIdsOf,
  areaIdsByEnrollee,
  areaChangesByEnrollee,
  idsMovedAfter,
  areaNamesOf,
  idsInAreas,
  idsFormerlyInAreas,
  terminalAreaIdsOf,
  leftAreaIdsOf,
  activeInAreas,
  sharingAreas,
  idsLeavingTerminals,
  letGoOfLeftAreas,
  sharesArea,
  enrolleeInScope,
  referenceInScope,
  enrolleeWhollyInScope,
  notActive,
  idsInScope,
  employeeInScope,
  employeeEverInScope,
  employeeEnrolled,
  employeeActive,
};
