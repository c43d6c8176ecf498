/**
 * Areas (docs/design.md "Scope"): terminals and enrollees belong to areas, and a terminal's in-scope
 * enrollees are those sharing an area with it. A `default` area always exists and is used when
 * none is given. Memberships are kept by the modules whose members they are (devices,
 * enrollees); this module names areas and resolves names to ids.
 */
import { inArray, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { type AreaScope, isLimited } from '../../platform/scope';
import { areas } from './tables';

export const DEFAULT_AREA = 'default';

/** Resolves area names to ids, creating areas that do not exist yet. */
export async function resolveAreas(q: Queryable, names: readonly string[] | undefined, now: number): Promise<string[]> {
  const wanted = [...new Set((names && names.length > 0 ? names : [DEFAULT_AREA]).map((n) => n.trim()))];
  if (wanted.some((n) => n === '' || n.length > 100)) {
    throw new FpaError('validation_error', 'area names must be 1 to 100 characters', { field: 'areas' });
  }
  const existing = await q.select().from(areas).where(inArray(areas.name, wanted));
  const byName = new Map(existing.map((a) => [a.name, a.id]));
  const missing = wanted.filter((n) => !byName.has(n));
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
  if (unknown.length > 0) throw new FpaError('unknown_area', `no such area: ${unknown.join(', ')} (see areas/)`, { field: 'areas', unknown });
  return rows.map((r) => r.id);
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
  const outside = names.filter((n) => !scope.areas.includes(n.trim()));
  if (outside.length > 0) throw new FpaError('forbidden', 'you may only use your own areas', { areas: outside, allowed: [...scope.areas] });
  return [...names];
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
