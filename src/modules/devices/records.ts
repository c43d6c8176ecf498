/**
 * What the parts of the devices module (registration, administration, reports, views) read
 * through DeviceService: the device rows, by serial number or id, and their areas. DeviceService
 * implements it and hands itself to each part, so no part imports service.ts.
 */
import type { Queryable } from '../../platform/db/client';
import type { AreaScope } from '../../platform/scope';
import type { DeviceRow } from './tables';

export interface DeviceRecords {
  findBySerial(q: Queryable, serial: string): Promise<DeviceRow | null>;
  findById(q: Queryable, id: string): Promise<DeviceRow | null>;
  /** The device with this serial number, or `not_found`. */
  get(serial: string, q?: Queryable): Promise<DeviceRow>;
  /** The device, when the caller's scope sees it; else `not_found`. */
  visible(serial: string, scope: AreaScope, q?: Queryable): Promise<DeviceRow>;
  /** Drops the cached row of a terminal that changed. */
  invalidate(serial: string): void;
  /** The terminal's time zone, or the service's. */
  timeZoneOf(device: DeviceRow): string;
  areaIdsOf(q: Queryable, deviceId: string): Promise<string[]>;
  areaNamesOf(q: Queryable, deviceIds: readonly string[]): Promise<Map<string, string[]>>;
}
