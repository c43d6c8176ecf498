/**
 * Areas (docs/design.md "Scope"): terminals and enrollees belong to areas, and a terminal's in-scope
 * enrollees are those sharing an area with it. A `default` area always exists and is used when
 * none is given. Memberships are kept by the modules whose members they are (devices,
 * enrollees); this module names areas and resolves names to ids.
 */
import { inArray } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
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
