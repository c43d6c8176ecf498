/**
 * Areas (docs/design.md "Scope"): terminals and enrollees belong to areas, and a terminal's in-scope
 * enrollees are those sharing an area with it. A `default` area always exists and is used when
 * none is given. Memberships are kept by the modules whose members they are (devices,
 * enrollees); this module names areas and resolves names to ids.
 */
import { asc, inArray, isNotNull, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { type AreaScope, isLimited } from '../../platform/scope';
import { areas } from './tables';

export const DEFAULT_AREA = 'default';

/**
 * Resolves area names to ids. A name no area has is refused (`unknown_area`, 422, naming every
 * unknown one) unless `createMissing` (AREAS_CREATED_ON_USE): a typo must never create an area
 * silently. `default` always exists: it is created on first use whatever the setting.
 */
export async function resolveAreas(q: Queryable, names: readonly string[] | undefined, now: number, createMissing = false): Promise<string[]> {
  const wanted = [...new Set((names && names.length > 0 ? names : [DEFAULT_AREA]).map((n) => n.trim()))];
  if (wanted.some((n) => n === '' || n.length > 100)) {
    throw new FpaError('validation_error', 'area names must be 1 to 100 characters', { field: 'areas' });
  }
  const existing = await q.select().from(areas).where(inArray(areas.name, wanted));
  const byName = new Map(existing.map((a) => [a.name, a.id]));
  const missing = wanted.filter((n) => !byName.has(n));
  const unknown = createMissing ? [] : missing.filter((n) => n !== DEFAULT_AREA);
  if (unknown.length > 0) throw await unknownAreas(q, unknown);
  if (missing.length > 0) {
    const rows = missing.map((name) => ({ id: crypto.randomUUID(), name, createdAt: now }));
    await q.insert(areas).values(rows).onConflictDoNothing();
    const again = await q.select().from(areas).where(inArray(areas.name, missing));
    for (const a of again) byName.set(a.name, a.id);
  }
  return wanted.map((n) => byName.get(n)!);
}

/**
 * Ids of areas that exist, for a list of names: what accounts and API keys are limited to. An
 * unknown name is 422 `unknown_area` (an account never creates an area by a typing mistake).
 */
export async function knownAreaIds(q: Queryable, names: readonly string[]): Promise<string[]> {
  const wanted = [...new Set(names.map((n) => n.trim()))];
  if (wanted.length === 0) return [];
  const rows = await q.select({ id: areas.id, name: areas.name }).from(areas).where(inArray(areas.name, wanted));
  const found = new Set(rows.map((r) => r.name));
  const unknown = wanted.filter((n) => !found.has(n));
  if (unknown.length > 0) throw await unknownAreas(q, unknown);
  return rows.map((r) => r.id);
}

/** The existing area whose name differs from `name` only by case or spaces (a likely typo), or null. */
export async function closeAreaName(q: Queryable, name: string): Promise<string | null> {
  const all = await q.select({ name: areas.name }).from(areas).orderBy(asc(areas.name)).limit(1000);
  const fold = (n: string) => n.toLowerCase().replace(/\s+/g, ' ').trim();
  return all.find((a) => fold(a.name) === fold(name))?.name ?? null;
}

/** The 422 for names no area has, with the closest existing name when one differs only by case or spaces. */
async function unknownAreas(q: Queryable, unknown: readonly string[]): Promise<FpaError> {
  const all = await q.select({ name: areas.name }).from(areas).orderBy(asc(areas.name)).limit(1000);
  const fold = (n: string) => n.toLowerCase().replace(/\s+/g, ' ').trim();
  const suggestions: Record<string, string> = {};
  for (const name of unknown) {
    const close = all.find((a) => fold(a.name) === fold(name));
    if (close) suggestions[name] = close.name;
  }
  const quoted = unknown.map((n) => `"${n}"`).join(', ');
  const hint = Object.entries(suggestions)
    .map(([n, s]) => ` (did you mean "${s}" for "${n}"?)`)
    .join('');
  return new FpaError('unknown_area', `there is no area named ${quoted}${hint}; create it first (POST areas/)`, {
    field: 'areas',
    unknown: [...unknown],
    suggestions,
  });
}
/** The id of the area with this name; null when there is none. */
export async function areaIdOf(q: Queryable, name: string): Promise<string | null> {
  const [row] = await q
    .select({ id: areas.id })
    .from(areas)
    .where(inArray(areas.name, [name.trim()]));
  return row?.id ?? null;
}

/** Names of areas by id. */
export async function areaNames(q: Queryable, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await q
    .select({ id: areas.id, name: areas.name })
    .from(areas)
    .where(inArray(areas.id, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Members' area names from (member, area id) pairs, each list sorted. */
export async function namesByMember(q: Queryable, pairs: readonly { member: string; areaId: string }[]): Promise<Map<string, string[]>> {
  const names = await areaNames(
    q,
    pairs.map((p) => p.areaId),
  );
  const out = new Map<string, string[]>();
  for (const p of pairs) {
    const name = names.get(p.areaId);
    if (name !== undefined) out.set(p.member, [...(out.get(p.member) ?? []), name]);
  }
  for (const list of out.values()) list.sort();
  return out;
}

/**
 * The ids of a limited scope's areas, as a subquery on the unique name index (null: every area).
 * Members' modules test their membership tables against it (enrollees, devices).
 */
export function scopeAreaIds(scope: AreaScope): SQL | null {
  if (!isLimited(scope)) return null;
  return sql`(select ${areas.id} from ${areas} where ${inArray(areas.name, [...scope.areas])})`;
}

/**
 * The areas to put a new or changed member in, for a caller limited to areas: what it asked
 * (each of them its own, else 403), or its own areas when it asked none. An unlimited caller
 * gets what it asked (undefined: the default area).
 */
export function areasWithin(scope: AreaScope, names: readonly string[] | undefined): string[] | undefined {
  if (!isLimited(scope)) return names ? [...names] : undefined;
  if (!names || names.length === 0) return [...scope.areas];
  return areasToSet(scope, names);
}

/**
 * The areas a change of a member sets (`areas` of a PATCH): what it asked, each of them the
 * caller's own (403 otherwise). Unlike `areasWithin`, none asked is none of the caller's own (the
 * member keeps only the areas the caller does not see: areasAfterSetting), not the caller's own
 * areas: a north HR of [north, east] unticking north on a person of [north, south] had them put in
 * north, east and south.
 */
export function areasToSet(scope: AreaScope, names: readonly string[]): string[] {
  const outside = areasOutside(scope, names);
  if (outside.length > 0) throw new FpaError('forbidden', 'you may only use your own areas', { areas: outside, allowed: [...(scope.areas ?? [])] });
  return [...names];
}

/** The names among `names` outside a limited caller's areas (none for an unlimited caller): the one check of them. */
export function areasOutside(scope: AreaScope, names: readonly string[]): string[] {
  return isLimited(scope) ? names.filter((n) => !scope.areas.includes(n.trim())) : [];
}

/**
 * A caller limited to areas changes a member (a person, a terminal) this way only when the member
 * is wholly within its areas: one also in another area is that area's too (403, `outside` naming
 * them). `what` says the member and the change: "this person … delete them".
 */
export function assertWhollyWithin(scope: AreaScope, names: readonly string[], what: { member: string; change: string }): void {
  const outside = areasOutside(scope, names);
  if (outside.length > 0) {
    throw new FpaError('forbidden', `${what.member} is also in other areas (${outside.join(', ')}): an administrator of those areas may ${what.change}`, {
      outside,
    });
  }
}

/**
 * The areas a member (a person, a terminal) ends with when a caller sets `asked` on it: an
 * unlimited caller's list as it is; a caller limited to some areas sets only its own of them, and
 * the member's areas outside them (`current`) stay, so one branch never takes a member away
 * from another.
 */
export function areasAfterSetting(scope: AreaScope, asked: readonly string[], current: readonly string[]): string[] {
  if (!isLimited(scope)) return [...asked];
  return [...new Set([...asked, ...current.filter((a) => !scope.areas.includes(a))])];
}

/** The ids of the areas with these names (a name no area has is left out). */
export async function areaIdsNamed(q: Queryable, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = await q
    .select({ id: areas.id })
    .from(areas)
    .where(inArray(areas.name, [...names]));
  return new Set(rows.map((r) => r.id));
}

/** Whether any area has a time zone of its own (a subquery, for a select that asks several such things at once). */
export const anyAreaZoned: SQL<number> = sql<number>`exists (select 1 from ${areas} where ${areas.timeZone} is not null)`;

/** The areas with a time zone of their own, by id (attendance judges their people in it: calendar/plan.ts `zoneOf`). */
export async function areaZones(q: Queryable): Promise<Map<string, { name: string; zone: string }>> {
  const rows = await q.select({ id: areas.id, name: areas.name, zone: areas.timeZone }).from(areas).where(isNotNull(areas.timeZone));
  return new Map(rows.flatMap((r) => (r.zone ? [[r.id, { name: r.name, zone: r.zone }] as const] : [])));
}
