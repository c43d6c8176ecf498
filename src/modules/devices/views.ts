/**
 * How terminals are shown (`GET devices/`, `GET devices/{sn}/`, the console, every module that
 * names a terminal in an answer): the wire view of a device row, the list, one terminal's detail
 * with the parts modules above contribute, and the counts by status.
 */
import type { Static } from '@sinclair/typebox';
import { and, asc, desc, eq, gt, sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { type Page, pageOf, textCursor } from '../../platform/http/paging';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import type { Device, DeviceDetail as DeviceDetailModel } from './model';
import type { DeviceRecords } from './records';
import type { DeviceRuntime } from './runtime';
import { deviceSeen } from './scope';
import { type DeviceRow, type DeviceStatus, deviceEvents, devices } from './tables';

export type DeviceView = Static<typeof Device>;
export type DeviceDetail = Static<typeof DeviceDetailModel>;

/** The fields of the device detail that modules above devices contribute. */
export type DetailParts = Pick<DeviceDetail, 'pending_commands' | 'templates_present' | 'sync_check'>;

/** Parts of the device detail contributed by modules above devices. */
export type DetailPart = (q: Queryable, device: DeviceRow) => Promise<Partial<DetailParts>>;

export class DeviceViews {
  private readonly details: DetailPart[] = [];

  constructor(
    private readonly ctx: DeviceRuntime,
    private readonly records: DeviceRecords,
  ) {}

  /** Terminals by status, and how many approved ones are online and offline. */
  async counts(scope: AreaScope = EVERYWHERE): Promise<Record<'pending_approval' | 'approved' | 'disabled' | 'online' | 'offline', number>> {
    const rows = await this.ctx.db.orm
      .select({ status: devices.status, online: devices.online, n: sql<number>`count(*)` })
      .from(devices)
      .where(deviceSeen(scope))
      .groupBy(devices.status, devices.online);
    const counts = { pending_approval: 0, approved: 0, disabled: 0, online: 0, offline: 0 };
    for (const r of rows) {
      counts[r.status] += r.n;
      if (r.status === 'approved') counts[r.online ? 'online' : 'offline'] += r.n;
    }
    return counts;
  }

  /** Adds fields to `GET devices/{sn}/` from a module above this one (pending commands, templates present). */
  addDetail(part: DetailPart): void {
    this.details.push(part);
  }

  /** `GET devices/`: by serial number, cursor-paged. */
  async list(filters: { status?: DeviceStatus; cursor?: string; limit: number }, scope: AreaScope = EVERYWHERE): Promise<Page<DeviceView>> {
    const after = textCursor('devices', filters.cursor);
    const conditions = [];
    const seen = deviceSeen(scope);
    if (seen) conditions.push(seen);
    if (filters.status) conditions.push(eq(devices.status, filters.status));
    if (after !== null) conditions.push(gt(devices.serialNumber, after));
    const rows = await this.ctx.db.orm
      .select()
      .from(devices)
      .where(conditions.length ? and(...conditions) : undefined)
      .orderBy(asc(devices.serialNumber))
      .limit(filters.limit + 1);
    const views = await this.view(this.ctx.db.orm, rows.slice(0, filters.limit));
    return pageOf(
      'devices',
      rows,
      filters.limit,
      (r) => r.serialNumber,
      () => views,
    );
  }

  async view(q: Queryable, rows: DeviceRow[]): Promise<DeviceView[]> {
    const names = await this.records.areaNamesOf(
      q,
      rows.map((r) => r.id),
    );
    return rows.map((r) => ({
      serial_number: r.serialNumber,
      name: r.name,
      status: r.status,
      algorithm_version: r.algorithmVersion,
      time_zone: this.records.timeZoneOf(r),
      areas: names.get(r.id) ?? [],
      last_seen_at: r.lastSeenAt ? new Date(r.lastSeenAt).toISOString() : null,
      online: r.online,
      firmware: r.firmware,
      push_version: r.pushVersion,
      ip_address: r.ipAddress,
      reported_address: r.reportedAddress,
      user_count: r.userCount,
      fingerprint_count: r.fingerprintCount,
      attendance_count: r.attendanceCount,
      approved_at: r.approvedAt ? new Date(r.approvedAt).toISOString() : null,
      created_at: new Date(r.createdAt).toISOString(),
      enrollment_station: r.enrollmentStation,
      pinned_address: r.pinnedIp,
      unconfirmed_address: r.unconfirmedIp,
      unconfirmed_address_at: r.unconfirmedIpAt ? new Date(r.unconfirmedIpAt).toISOString() : null,
      clock_drift_seconds: r.clockDriftSeconds,
      clock_drifting: r.clockDriftSeconds !== null && Math.abs(r.clockDriftSeconds) * 1000 > this.ctx.settings.DEVICE_CLOCK_DRIFT_MAX,
    }));
  }

  async viewOne(row: DeviceRow): Promise<DeviceView> {
    const [view] = await this.view(this.ctx.db.orm, [row]);
    return view!;
  }

  /** `GET devices/{sn}/`: the device with its parameters, recent events and the other modules' parts. */
  async detail(serial: string, scope: AreaScope = EVERYWHERE): Promise<DeviceDetail> {
    const row = await this.records.visible(serial, scope);
    const q = this.ctx.db.orm;
    const events = await q.select().from(deviceEvents).where(eq(deviceEvents.deviceId, row.id)).orderBy(desc(deviceEvents.id)).limit(20);
    let detail: DeviceDetail = {
      ...(await this.viewOne(row)),
      pending_commands: 0,
      templates_present: 0,
      sync_check: {
        users: { expected: 0, reported: row.userCount },
        fingerprints: { expected: 0, reported: row.fingerprintCount, unknown_users: 0 },
        faces: { expected: 0, reported: null },
        palms: { expected: 0, reported: null },
        finger_veins: { expected: 0, reported: null },
        in_sync: null,
      },
      parameters: row.parameters ?? {},
      recent_events: events.map((e) => ({ kind: e.kind, message: e.message, details: e.details, at: new Date(e.createdAt).toISOString() })),
    };
    for (const part of this.details) detail = { ...detail, ...(await part(q, row)) };
    return detail;
  }
}
