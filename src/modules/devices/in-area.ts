/** The terminals of one area (the Areas page lists them). */
import { asc, eq } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { deviceAreas, devices } from './tables';

export async function devicesInArea(q: Queryable, areaId: string): Promise<{ serial_number: string; name: string | null; status: string }[]> {
  const rows = await q
    .select({ serial: devices.serialNumber, name: devices.name, status: devices.status })
    .from(deviceAreas)
    .innerJoin(devices, eq(devices.id, deviceAreas.deviceId))
    .where(eq(deviceAreas.areaId, areaId))
    .orderBy(asc(devices.name), asc(devices.serialNumber));
  return rows.map((r) => ({ serial_number: r.serial, name: r.name, status: r.status }));
}
