/**
 * The calendar as a caller limited to areas sees it (src/platform/scope.ts): an entry of one
 * person (leave, an own holiday or shift) through that person; an entry of areas (holidays,
 * shifts, weekends) when one of its areas is the caller's; a holiday of everyone is seen by all,
 * and changed only by callers limited to no area. A caller changes only what is wholly its own:
 * its people, or areas all of which are its own (else 403); what it does not see is 404.
 *
 * A work schedule is seen by everyone (it names nobody), but changing it changes the days of
 * everyone who works it: a limited caller changes or deletes one only when every assignment of
 * it is its own (of one of its areas, or of a person wholly within them), else 403, saying
 * nothing of whose the others are. One assigned nowhere is anyone's to change.
 */
import { and, inArray, not, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { type AreaScope, isLimited } from '../../platform/scope';
import { areaIdsNamed, scopeAreaIds } from '../areas';
import type { EnrolleeService } from '../enrollees';
import { holidays, shiftAssignments } from './tables';

/** An entry of the calendar: one person's, or some areas' (ids), or (neither) everyone's. */
export interface Entry {
  enrolleeId: string | null;
  areaIds: readonly string[];
}

/** A condition on the holidays table: the holiday is seen by the scope; undefined when unlimited. */
export function holidaySeen(enrollees: EnrolleeService, scope: AreaScope): SQL | undefined {
  const areaIds = scopeAreaIds(scope);
  const person = enrollees.membership.enrolleeInScope(holidays.enrolleeId, scope);
  if (!areaIds || !person) return undefined;
  return sql`(${person} or (${holidays.enrolleeId} is null and (json_array_length(${holidays.areaIds}) = 0 or exists (select 1 from json_each(${holidays.areaIds}) where value in ${areaIds}))))`;
}

/** How the scope stands to an entry: it may change it (`own`), only see it (`seen`), or not see it at all. */
export async function standing(q: Queryable, enrollees: EnrolleeService, scope: AreaScope, entry: Entry): Promise<'own' | 'seen' | 'unseen'> {
  if (!isLimited(scope)) return 'own';
  if (entry.enrolleeId) return (await enrollees.inScope(q, entry.enrolleeId, scope)) ? 'own' : 'unseen';
  if (entry.areaIds.length === 0) return 'seen';
  const mine = await areaIdsNamed(q, scope.areas);
  const inside = entry.areaIds.filter((id) => mine.has(id)).length;
  return inside === entry.areaIds.length ? 'own' : inside > 0 ? 'seen' : 'unseen';
}

/** 404 for an entry the scope does not see, 403 for one it sees but may not change. */
export async function requireOwn(q: Queryable, enrollees: EnrolleeService, scope: AreaScope, entry: Entry, what: string, id: string): Promise<void> {
  const stand = await standing(q, enrollees, scope, entry);
  if (stand === 'unseen') throw new FpaError('not_found', `${what} not found`, { [what.replace(/ /g, '_')]: id });
  if (stand === 'seen') throw new FpaError('forbidden', `this ${what} reaches beyond your areas`, { allowed: [...(scope.areas ?? [])] });
}

/**
 * The schedules among `scheduleIds` an assignment outside the scope uses: one of an area not the
 * scope's, or of a person not wholly within it. None for an unlimited scope.
 */
export async function schedulesUsedElsewhere(q: Queryable, enrollees: EnrolleeService, scope: AreaScope, scheduleIds: readonly string[]): Promise<Set<string>> {
  const areaIds = scopeAreaIds(scope);
  const wholly = enrollees.membership.enrolleeWhollyInScope(shiftAssignments.enrolleeId, scope);
  const out = new Set<string>();
  if (!areaIds || !wholly) return out;
  const a = shiftAssignments;
  const own = sql`((${a.areaId} is not null and ${a.areaId} in ${areaIds}) or (${a.enrolleeId} is not null and ${wholly}))`;
  for (const ids of chunks(scheduleIds, 500)) {
    const rows = await q
      .selectDistinct({ id: a.scheduleId })
      .from(a)
      .where(and(inArray(a.scheduleId, ids), not(own)));
    for (const r of rows) out.add(r.id);
  }
  return out;
}

/** 403 unless the scope may change or delete this schedule: every assignment of it is its own (the others are not named). */
export async function requireOwnSchedule(q: Queryable, enrollees: EnrolleeService, scope: AreaScope, scheduleId: string): Promise<void> {
  if ((await schedulesUsedElsewhere(q, enrollees, scope, [scheduleId])).size === 0) return;
  throw new FpaError(
    'forbidden',
    'this work schedule is also worked outside your areas: only a caller whose areas cover everyone who works it may change or delete it',
    {
      allowed: [...(scope.areas ?? [])],
    },
  );
}
