/**
 * Which terminals a caller limited to areas sees (src/platform/scope.ts): those in one of its
 * areas, and every terminal awaiting approval. A pending terminal holds and serves nobody yet,
 * and the installer of a site must find the one they plugged in to approve it into their own
 * areas (approving without areas puts it in the approver's).
 */
import { type Column, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable } from '../../platform/db/client';
import { type AreaScope, isLimited } from '../../platform/scope';
import { assertWhollyWithin, namesByMember, scopeAreaIds } from '../areas';
import { deviceAreas, devices } from './tables';

/** A condition: the device id in `column` is in one of the scope's areas; undefined when unlimited. */
export function deviceInAreas(column: Column | SQL, scope: AreaScope): SQL | undefined {
  const areaIds = scopeAreaIds(scope);
  if (!areaIds) return undefined;
  return sql`${column} in (select ${deviceAreas.deviceId} from ${deviceAreas} where ${deviceAreas.areaId} in ${areaIds})`;
}

/** A condition on the devices table: the terminal is seen by the scope (its areas, or awaiting approval). */
export function deviceSeen(scope: AreaScope): SQL | undefined {
  const member = deviceInAreas(devices.id, scope);
  return member ? or(sql`${devices.status} = 'pending_approval'`, member) : undefined;
}

/** The serial numbers of the terminals in one of the scope's areas; null when unlimited. */
export async function serialsInAreas(q: Queryable, scope: AreaScope): Promise<string[] | null> {
  const member = deviceInAreas(devices.id, scope);
  if (!member) return null;
  const rows = await q.select({ serial: devices.serialNumber }).from(devices).where(member);
  return rows.map((r) => r.serial);
}

/** Puts a terminal in exactly these areas (registration, approval, a change of its areas). */
export async function setDeviceAreas(q: Queryable, deviceId: string, areaIds: string[]): Promise<void> {
  await q.delete(deviceAreas).where(eq(deviceAreas.deviceId, deviceId));
  if (areaIds.length > 0) await q.insert(deviceAreas).values(areaIds.map((areaId) => ({ deviceId, areaId })));
}

/**
 * A caller limited to areas removes, disables or wipes only a terminal wholly within them: one
 * also in another area serves that area's people too, whose administrators decide (403). `doing`
 * names the action in the message ("remove", "disable", "send clear_data to").
 */
export async function refuseIfSharedTerminal(q: Queryable, deviceId: string, scope: AreaScope, doing: string): Promise<void> {
  if (!isLimited(scope)) return;
  assertWhollyWithin(scope, (await deviceAreaNames(q, [deviceId])).get(deviceId) ?? [], { member: 'this terminal', change: `${doing} it` });
}

/** The area names of these terminals, by terminal. */
export async function deviceAreaNames(q: Queryable, deviceIds: readonly string[]): Promise<Map<string, string[]>> {
  const pairs: { member: string; areaId: string }[] = [];
  for (const ids of chunks(deviceIds, 500)) {
    pairs.push(...(await q.select({ member: deviceAreas.deviceId, areaId: deviceAreas.areaId }).from(deviceAreas).where(inArray(deviceAreas.deviceId, ids))));
  }
  return namesByMember(q, pairs);
}
