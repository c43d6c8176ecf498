/**
 * Scope (DESIGN.md): devices and enrollees belong to areas; a device's in-scope enrollees are
 * those sharing an area with it. A `default` area always exists and is used when none is given.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { areas, deviceAreas, devices, enrolleeAreas, enrollees } from '../../app/schema';
import { FpaError } from '../../platform/errors';

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

export async function setDeviceAreas(q: Queryable, deviceId: string, areaIds: string[]): Promise<void> {
  await q.delete(deviceAreas).where(eq(deviceAreas.deviceId, deviceId));
  if (areaIds.length > 0) await q.insert(deviceAreas).values(areaIds.map((areaId) => ({ deviceId, areaId })));
}

export async function setEnrolleeAreas(q: Queryable, enrolleeId: string, areaIds: string[]): Promise<void> {
  await q.delete(enrolleeAreas).where(eq(enrolleeAreas.enrolleeId, enrolleeId));
  if (areaIds.length > 0) await q.insert(enrolleeAreas).values(areaIds.map((areaId) => ({ enrolleeId, areaId })));
}

export async function areaNamesOfDevices(q: Queryable, deviceIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (deviceIds.length === 0) return out;
  const rows = await q
    .select({ deviceId: deviceAreas.deviceId, name: areas.name })
    .from(deviceAreas)
    .innerJoin(areas, eq(areas.id, deviceAreas.areaId))
    .where(inArray(deviceAreas.deviceId, deviceIds));
  for (const r of rows) out.set(r.deviceId, [...(out.get(r.deviceId) ?? []), r.name]);
  return out;
}

export async function areaNamesOfEnrollees(q: Queryable, enrolleeIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (enrolleeIds.length === 0) return out;
  const rows = await q
    .select({ enrolleeId: enrolleeAreas.enrolleeId, name: areas.name })
    .from(enrolleeAreas)
    .innerJoin(areas, eq(areas.id, enrolleeAreas.areaId))
    .where(inArray(enrolleeAreas.enrolleeId, enrolleeIds));
  for (const r of rows) out.set(r.enrolleeId, [...(out.get(r.enrolleeId) ?? []), r.name]);
  return out;
}

/** Approved devices sharing an area with the enrollee. */
export async function devicesInScopeOfEnrollee(q: Queryable, enrolleeId: string) {
  return q
    .select()
    .from(devices)
    .where(
      and(
        eq(devices.status, 'approved'),
        sql`exists (select 1 from ${deviceAreas} da join ${enrolleeAreas} ea on ea.area_id = da.area_id
                    where da.device_id = ${devices.id} and ea.enrollee_id = ${enrolleeId})`,
      ),
    );
}

/** Active enrollees sharing an area with the device. */
export async function enrolleesInScopeOfDevice(q: Queryable, deviceId: string) {
  return q
    .select()
    .from(enrollees)
    .where(
      and(
        eq(enrollees.status, 'active'),
        sql`exists (select 1 from ${enrolleeAreas} ea join ${deviceAreas} da on da.area_id = ea.area_id
                    where ea.enrollee_id = ${enrollees.id} and da.device_id = ${deviceId})`,
      ),
    );
}
