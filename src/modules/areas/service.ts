/**
 * Areas (docs/design.md "Scope"): terminals and enrollees belong to areas, and a terminal's in-scope
 * enrollees are those sharing an area with it. A `default` area always exists and is used when
 * none is given. Memberships are kept by the modules whose members they are (devices,
 * enrollees); this module names areas and resolves names to ids.
 */
import { asc, inArray } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
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
