/**
 * Terminals as records: the rows themselves, found by serial number or id (`touch` serves polls
 * from a cache of a few seconds, which every change drops), and their areas. The parts hang
 * below: the contact and registration (`registration`), what administrators do (`administration`),
 * what terminals report (`reports`), how they are shown (`views`), the users each holds
 * (`users`), communication keys (`keys`) and identity (`identity`). What follows from a change
 * (a backfill on approval, deletes when the scope shrinks, CHECK after a time zone change) is
 * done by the modules that react to its event.
 */
import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import { BoundedMap } from '../../platform/bounded-map';
import type { Queryable } from '../../platform/db/client';
import { deleteInBatches } from '../../platform/db/purge';
import { FpaError } from '../../platform/errors';
import type { AreaScope } from '../../platform/scope';
import type { EventChannel, EventLog } from '../events';
import { DeviceAdministration } from './administration';
import type { DeviceEvents } from './events';
import { DeviceIdentity } from './identity';
import { DeviceKeys } from './keys';
import type { DeviceRecords } from './records';
import { RegistrationRefusals } from './refusals';
import { type CachedDevice, DeviceRegistration, MAX_CACHED_DEVICES } from './registration';
import { DeviceReports } from './reports';
import type { DeviceRuntime } from './runtime';
import { deviceAreaNames, deviceInAreas, deviceSeen, serialsInAreas } from './scope';
import { type DeviceRow, type DeviceStatus, deviceAreas, deviceEvents, devices } from './tables';
import { DeviceUsers } from './users';
import { DeviceViews } from './views';

export class DeviceService implements DeviceRecords {
  private readonly cache = new BoundedMap<string, CachedDevice>(MAX_CACHED_DEVICES);
  readonly events: EventChannel<DeviceEvents>;
  /** The users each terminal holds. */
  readonly users: DeviceUsers;
  /** Communication keys: issued, revoked, and checked on every terminal request. */
  readonly keys: DeviceKeys;
  /** Whether a request comes from the approved terminal (ADMS_TRUST): pinned addresses, confirmations. */
  readonly identity: DeviceIdentity;
  /** Every terminal request's first step (`touch`), registration and its cap, pre-registration, the pending and offline jobs. */
  readonly registration: DeviceRegistration;
  /** Approve, disable, change or remove a terminal. */
  readonly administration: DeviceAdministration;
  /** What terminals report about themselves, their clocks' drift and offsets. */
  readonly reports: DeviceReports;
  /** The list, the view and detail of a terminal, the counts by status. */
  readonly views: DeviceViews;
  /** Registrations refused because too many terminals wait (the diagnostics read them; written before the service stops). */
  readonly refusals: RegistrationRefusals;

  constructor(
    private readonly ctx: DeviceRuntime,
    log: EventLog,
  ) {
    this.events = log.channel<DeviceEvents>();
    this.users = new DeviceUsers(ctx);
    this.keys = new DeviceKeys(ctx, (serial, q) => this.get(serial, q));
    this.identity = new DeviceIdentity(
      ctx,
      this.events,
      (serial, q) => this.get(serial, q),
      (serial) => this.invalidate(serial),
    );
    this.administration = new DeviceAdministration(ctx, this.events, this, this.keys);
    this.refusals = new RegistrationRefusals(ctx);
    this.registration = new DeviceRegistration(ctx, this.events, this, this.cache, this.users, this.administration, this.refusals);
    this.reports = new DeviceReports(ctx, this.events, this);
    this.views = new DeviceViews(ctx, this);
    ctx.metrics.gauge('fpa_devices', 'Terminals by status; `online` counts approved terminals heard from lately.', ['status'], async () => {
      const counts = await this.views.counts();
      return Object.entries(counts).map(([status, value]) => ({ labels: { status }, value }));
    });
  }

  timeZoneOf(device: DeviceRow): string {
    return device.timeZone ?? this.ctx.settings.TIME_ZONE;
  }

  async findBySerial(q: Queryable, serial: string): Promise<DeviceRow | null> {
    const [row] = await q.select().from(devices).where(eq(devices.serialNumber, serial)).limit(1);
    return row ?? null;
  }

  async findById(q: Queryable, id: string): Promise<DeviceRow | null> {
    const [row] = await q.select().from(devices).where(eq(devices.id, id)).limit(1);
    return row ?? null;
  }

  /** The device with this serial number, or `not_found`. */
  async get(serial: string, q: Queryable = this.ctx.db.orm): Promise<DeviceRow> {
    const row = await this.findBySerial(q, serial);
    if (!row) throw new FpaError('not_found', 'device not found', { serial_number: serial });
    return row;
  }

  /** The device, when the caller's scope sees it (scope.ts); else `not_found`, as if it did not exist. */
  async visible(serial: string, scope: AreaScope, q: Queryable = this.ctx.db.orm): Promise<DeviceRow> {
    const seen = deviceSeen(scope);
    if (!seen) return this.get(serial, q);
    const [row] = await q
      .select()
      .from(devices)
      .where(and(eq(devices.serialNumber, serial), seen))
      .limit(1);
    if (!row) throw new FpaError('not_found', 'device not found', { serial_number: serial });
    return row;
  }

  readonly deviceInAreas = deviceInAreas;
  readonly serialsInAreas = serialsInAreas;

  /** A router's hook: a route naming a terminal (`:serial`) outside the caller's areas answers 404. */
  async guardSerial(params: unknown, scope: AreaScope): Promise<void> {
    if (params && typeof params === 'object' && 'serial' in params) await this.visible(String(params.serial), scope);
  }

  invalidate(serial: string): void {
    this.cache.delete(serial);
  }

  /** Approved (or other) devices, all of them. */
  withStatus(status: DeviceStatus): Promise<DeviceRow[]> {
    return this.ctx.db.orm.select().from(devices).where(eq(devices.status, status));
  }

  /** Retention: device log entries before `cutoff`. */
  purgeLogBefore(cutoff: number): Promise<number> {
    return deleteInBatches(this.ctx.db, deviceEvents, lt(deviceEvents.createdAt, cutoff));
  }

  // ---------------------------------------------------------------- scope

  /** Terminals in an area (an area in use is not deleted). */
  async countInArea(q: Queryable, areaId: string): Promise<number> {
    const [row] = await q.select({ n: sql<number>`count(*)` }).from(deviceAreas).where(eq(deviceAreas.areaId, areaId));
    return row?.n ?? 0;
  }

  /** Area ids of one device. */
  async areaIdsOf(q: Queryable, deviceId: string): Promise<string[]> {
    const rows = await q.select({ areaId: deviceAreas.areaId }).from(deviceAreas).where(eq(deviceAreas.deviceId, deviceId));
    return rows.map((r) => r.areaId);
  }

  areaNamesOf(q: Queryable, deviceIds: readonly string[]): Promise<Map<string, string[]>> {
    return deviceAreaNames(q, deviceIds);
  }

  /** Devices of these statuses in any of these areas (a scope). */
  async inAreas(q: Queryable, areaIds: readonly string[], statuses: readonly DeviceStatus[] = ['approved']): Promise<DeviceRow[]> {
    if (areaIds.length === 0) return [];
    return q
      .select()
      .from(devices)
      .where(
        and(
          inArray(devices.status, [...statuses]),
          inArray(
            devices.id,
            q
              .selectDistinct({ id: deviceAreas.deviceId })
              .from(deviceAreas)
              .where(inArray(deviceAreas.areaId, [...areaIds])),
          ),
        ),
      )
      .orderBy(asc(devices.createdAt), asc(devices.id));
  }
}
