/**
 * Terminals as records: registration, approval, disabling, settings, health and the facts they
 * report about themselves. What follows from a change (a backfill on approval, deletes when the
 * scope shrinks, CHECK after a time zone change) is done by the modules that react to its event. Polls are the hottest path in the service, so device rows are
 * cached for a few seconds and `last_seen_at` is written at most every LAST_SEEN_FLUSH_MS.
 */
import type { Static } from '@sinclair/typebox';
import { and, asc, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import { BoundedMap } from '../../platform/bounded-map';
import { chunks } from '../../platform/chunks';
import type { Queryable, Tx, WriteContext } from '../../platform/db/client';
import { deleteInBatches } from '../../platform/db/purge';
import { FpaError } from '../../platform/errors';
import { type Page, pageOf, readCursor } from '../../platform/http/paging';
import { type AreaScope, EVERYWHERE, isLimited } from '../../platform/scope';
import { areasWithin, namesByMember, resolveAreas } from '../areas';
import { audit } from '../audit';
import type { EventChannel, EventLog } from '../events';
import type { DeviceChanges, DeviceEvents, DeviceRef } from './events';
import { DeviceIdentity, normalAddress } from './identity';
import { DeviceKeys } from './keys';
import type { Device, DeviceDetail as DeviceDetailModel } from './model';
import { nextParameters, type ParameterMode } from './parameters';
import type { DeviceRuntime } from './runtime';
import { deviceInAreas, deviceSeen, serialsInAreas } from './scope';
import {
  type DeviceRow,
  type DeviceStatus,
  deviceAreas,
  deviceClockOffsets,
  deviceEvents,
  deviceKeys,
  devices,
  deviceUsers,
  type RemovedDeviceFacts,
  removedDevices,
} from './tables';
import { DeviceUsers } from './users';

const CACHE_MS = 2_000;
/** Keys change rarely and every poll asks: another instance sees a new or revoked key within this. */
const LAST_SEEN_FLUSH_MS = 30_000;
/** Entries kept per in-memory map: unknown serials arrive unauthenticated, so memory is bounded. */
const MAX_CACHED_DEVICES = 10_000;
/** Stale pending terminals one run of expire-pending-devices forgets at most (the next run takes the rest). */
const EXPIRE_BATCH = 10_000;
/** A refused registration is logged at most this often, so a flood cannot flood the log. */
const PENDING_WARNING_EVERY_MS = 60_000;

export interface DeviceContact {
  ip?: string | null;
  /** The request's source address: registers an unknown serial under it (ADMS_MAX_PENDING_PER_ADDRESS). */
  source?: string | null;
  pushVersion?: string | null;
  language?: string | null;
}

export type DeviceView = Static<typeof Device>;
export type DeviceDetail = Static<typeof DeviceDetailModel>;

export interface DeviceReport {
  firmware?: string | null;
  userCount?: number | null;
  fingerprintCount?: number | null;
  attendanceCount?: number | null;
  ip?: string | null;
  algorithmVersion?: string | null;
  faceAlgorithmVersion?: string | null;
  speaksBiodata?: boolean;
  parameters?: Record<string, string>;
  /** `replace` for a full list (options, registry), `merge` (default) for an INFO result. */
  parametersMode?: ParameterMode;
  /** The TimeZone offset the terminal was last sent in an option block. */
  clockOffsetMinutes?: number;
  /** Declared at the 3.x registry: the module (`acc`/`att`) and push version, which decide the dialect. */
  deviceType?: string | null;
  pushVersion?: string | null;
}

export class DeviceService {
  private readonly cache = new BoundedMap<string, { row: DeviceRow; until: number }>(MAX_CACHED_DEVICES);
  private readonly lastFlushed = new BoundedMap<string, number>(MAX_CACHED_DEVICES);
  private readonly details: DetailPart[] = [];
  private readonly countListeners: AttendanceCountListener[] = [];
  private lastPendingWarning = 0;
  readonly events: EventChannel<DeviceEvents>;
  /** The users each terminal holds. */
  readonly users: DeviceUsers;
  /** Communication keys: issued, revoked, and checked on every terminal request. */
  readonly keys: DeviceKeys;
  /** Whether a request comes from the approved terminal (ADMS_TRUST): pinned addresses, confirmations. */
  readonly identity: DeviceIdentity;

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
    ctx.metrics.gauge('fpa_devices', 'Terminals by status; `online` counts approved terminals heard from lately.', ['status'], async () => {
      const counts = await this.counts();
      return Object.entries(counts).map(([status, value]) => ({ labels: { status }, value }));
    });
  }

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

  timeZoneOf(device: DeviceRow): string {
    return device.timeZone ?? this.ctx.settings.TIME_ZONE;
  }

  /** Adds fields to `GET devices/{sn}/` from a module above this one (pending commands, templates present). */
  addDetail(part: DetailPart): void {
    this.details.push(part);
  }

  /**
   * Wired by the composition root: told, in the write that records it, each attendance record
   * count (`TransactionCount`) a terminal reports that differs from the one it reported before.
   */
  onAttendanceCount(listener: AttendanceCountListener): void {
    this.countListeners.push(listener);
  }

  /**
   * Every terminal request starts here: finds the device (registering an unknown serial as
   * `pending_approval`) and records the contact.
   */
  async touch(serial: string, contact: DeviceContact = {}): Promise<DeviceRow> {
    const now = this.ctx.clock.now();
    const cached = this.cache.get(serial);
    let row = cached && cached.until > now ? cached.row : await this.findBySerial(this.ctx.db.orm, serial);
    if (!row) row = await this.register(serial, contact, now);

    const changed =
      (contact.pushVersion && contact.pushVersion !== row.pushVersion) ||
      (contact.language && contact.language !== row.language) ||
      (contact.ip && contact.ip !== row.ipAddress);
    const flushDue = now - (this.lastFlushed.get(row.id) ?? 0) >= LAST_SEEN_FLUSH_MS;
    // Back after a silence, even if no check-devices run marked it offline meanwhile.
    const returning = !row.online || (row.lastSeenAt !== null && now - row.lastSeenAt > this.ctx.settings.DEVICE_OFFLINE_AFTER);
    if (returning || changed || flushDue) {
      const before = row;
      const set = {
        lastSeenAt: now,
        online: true,
        pushVersion: contact.pushVersion || row.pushVersion,
        language: contact.language || row.language,
        ipAddress: contact.ip || row.ipAddress,
      };
      await this.ctx.db.write(async (w) => {
        await w.tx.update(devices).set(set).where(eq(devices.id, before.id));
        if (returning) {
          if (before.lastSeenAt !== null) await noteOnDevice(w.tx, before.id, 'online', 'the terminal is back online', undefined, now);
          const away = before.lastSeenAt === null ? null : Math.floor((now - before.lastSeenAt) / 1000);
          await this.events.record(w, 'device_online', { device: deviceRef(before), status: before.status, away_seconds: away });
        }
      });
      this.lastFlushed.set(row.id, now);
      row = { ...row, ...set };
    } else {
      row = { ...row, lastSeenAt: now };
    }
    this.cache.set(serial, { row, until: now + CACHE_MS });
    return row;
  }

  private async register(serial: string, contact: DeviceContact, now: number): Promise<DeviceRow> {
    if (!SERIAL_NUMBER.test(serial)) {
      throw new FpaError('validation_error', 'a serial number is 1 to 64 letters, digits, dots, dashes or underscores', { serial_number: serial });
    }
    const source = normalAddress(contact.source ?? contact.ip ?? null);
    // Checked before the write too, so a flood of unknown serials never queues on the writer. A
    // removed terminal coming back is no stranger: it may owe deletes, so a full list never stops it.
    const full = await this.pendingFull(this.ctx.db.orm, source);
    if (full && !(await this.wasRemoved(serial))) this.refuseRegistration(serial, now, full, source);
    const created = await this.ctx.db.write(async (w) => {
      const again = await this.findBySerial(w.tx, serial);
      if (again) return { row: again, isNew: false };
      const removed = await this.takeRemoved(w.tx, serial);
      const stillFull = removed ? null : await this.pendingFull(w.tx, source);
      if (stillFull) this.refuseRegistration(serial, now, stillFull, source);
      const row: DeviceRow = {
        ...newDeviceRow(serial, 'pending_approval', now, { ip: contact.ip ?? source, pushVersion: contact.pushVersion, language: contact.language }),
        ...(removed ? { ...removed.facts, id: removed.deviceId } : {}),
        // What it says now wins over what it said before its removal.
        ...(contact.pushVersion ? { pushVersion: contact.pushVersion } : {}),
        // Its pin follows it while it waits, so it is pinned where it is approved from (identity.ts).
        pinnedIp: source,
        registeredIp: source,
      };
      await w.tx.insert(devices).values(row);
      await setDeviceAreas(w.tx, row.id, await resolveAreas(w.tx, undefined, now));
      await noteOnDevice(
        w.tx,
        row.id,
        'registered',
        removed ? `a terminal removed by ${removed.removedBy} registered itself again` : 'an unknown terminal registered itself',
        { ip: source, ...(removed ? { removed_at: new Date(removed.removedAt).toISOString() } : {}) },
        now,
      );
      await audit(w.tx, now, { actor: `device:${serial}`, action: 'device.registered', targetType: 'device', targetId: serial });
      await this.events.record(w, 'device_registered', { device: deviceRef(row), ip: source });
      return { row, isNew: true };
    });
    this.lastFlushed.set(created.row.id, now);
    if (created.isNew && this.ctx.settings.ADMS_AUTO_APPROVE) return this.approveDevice(serial, { by: 'auto-approve' });
    return created.row;
  }

  /**
   * The record of a removed terminal with this serial, taken (deleted) for its registration: the
   * terminal comes back under its old id, so the users it holds, its template sync rows and the
   * deletes it owes are its own again.
   */
  private async takeRemoved(tx: Tx, serial: string): Promise<typeof removedDevices.$inferSelect | null> {
    const [removed] = await tx.delete(removedDevices).where(eq(removedDevices.serialNumber, serial)).returning();
    return removed ?? null;
  }

  private async wasRemoved(serial: string): Promise<boolean> {
    const [row] = await this.ctx.db.orm.select({ serial: removedDevices.serialNumber }).from(removedDevices).where(eq(removedDevices.serialNumber, serial));
    return row !== undefined;
  }

  /**
   * Which limit a new registration from `source` would break, if any: this address already
   * registered ADMS_MAX_PENDING_PER_ADDRESS terminals that wait for approval (junk serials from
   * one address cannot lock out a real terminal elsewhere), or ADMS_MAX_PENDING_DEVICES wait in
   * all. Terminals an administrator pre-registered are approved and never count, nor registered here.
   */
  private async pendingFull(q: Queryable, source: string | null): Promise<'ADMS_MAX_PENDING_PER_ADDRESS' | 'ADMS_MAX_PENDING_DEVICES' | null> {
    const { ADMS_MAX_PENDING_PER_ADDRESS: perAddress, ADMS_MAX_PENDING_DEVICES: max } = this.ctx.settings;
    if (source !== null) {
      const [own] = await q
        .select({ n: sql<number>`count(*)` })
        .from(devices)
        .where(and(eq(devices.status, 'pending_approval'), eq(devices.registeredIp, source)));
      if ((own?.n ?? 0) >= perAddress) return 'ADMS_MAX_PENDING_PER_ADDRESS';
    }
    const [pending] = await q.select({ n: sql<number>`count(*)` }).from(devices).where(eq(devices.status, 'pending_approval'));
    return (pending?.n ?? 0) >= max ? 'ADMS_MAX_PENDING_DEVICES' : null;
  }

  private refuseRegistration(serial: string, now: number, limit: 'ADMS_MAX_PENDING_PER_ADDRESS' | 'ADMS_MAX_PENDING_DEVICES', source: string | null): never {
    if (now - this.lastPendingWarning >= PENDING_WARNING_EVERY_MS) {
      this.lastPendingWarning = now;
      this.ctx.log.warn(
        limit === 'ADMS_MAX_PENDING_DEVICES'
          ? 'unknown terminals refused: ADMS_MAX_PENDING_DEVICES terminals already wait for approval'
          : 'unknown terminals refused: ADMS_MAX_PENDING_PER_ADDRESS terminals from this address already wait for approval',
        { serial, ip: source, max: this.ctx.settings[limit] },
      );
    }
    throw new FpaError('forbidden', 'Device Unauthorized', { serial_number: serial });
  }

  /**
   * Job `expire-pending-devices`: terminals that registered themselves and were not approved
   * within ADMS_PENDING_EXPIRY are forgotten (with their device log), so junk serials do not
   * hold places for good. A real terminal still polling registers again at its next contact.
   */
  async expirePending(): Promise<{ expired: number }> {
    const now = this.ctx.clock.now();
    const cutoff = now - this.ctx.settings.ADMS_PENDING_EXPIRY;
    const stale = await this.ctx.db.orm
      .select()
      .from(devices)
      .where(and(eq(devices.status, 'pending_approval'), lt(devices.createdAt, cutoff)))
      .limit(EXPIRE_BATCH);
    let expired = 0;
    for (const rows of chunks(stale, 100)) {
      const gone = await this.ctx.db.write(async (w) => {
        const removed: DeviceRow[] = [];
        for (const device of rows) {
          // An administrator's attention (a key issued) makes it no stranger.
          const [keyed] = await w.tx.select({ id: deviceKeys.id }).from(deviceKeys).where(eq(deviceKeys.deviceId, device.id)).limit(1);
          const [still] = await w.tx
            .select({ id: devices.id })
            .from(devices)
            .where(and(eq(devices.id, device.id), eq(devices.status, 'pending_approval')));
          // Nor does holding people: a removed terminal that came back still holds the users it
          // had and may owe their deletes; forgetting it would orphan them.
          const [holds] = await w.tx.select({ pin: deviceUsers.pin }).from(deviceUsers).where(eq(deviceUsers.deviceId, device.id)).limit(1);
          if (keyed || holds || !still) continue;
          await this.events.record(w, 'device_removed', { device: deviceRef(device), by: 'expire-pending-devices' });
          await this.users.clear(w.tx, device.id);
          await w.tx.delete(deviceAreas).where(eq(deviceAreas.deviceId, device.id));
          await w.tx.delete(deviceClockOffsets).where(eq(deviceClockOffsets.deviceId, device.id));
          await w.tx.delete(deviceEvents).where(eq(deviceEvents.deviceId, device.id));
          await w.tx.delete(devices).where(eq(devices.id, device.id));
          await audit(w.tx, now, {
            actor: 'expire-pending-devices',
            action: 'device.pending_expired',
            targetType: 'device',
            targetId: device.serialNumber,
            details: { registered_ip: device.registeredIp },
          });
          removed.push(device);
        }
        return removed;
      });
      for (const device of gone) this.invalidate(device.serialNumber);
      expired += gone.length;
    }
    return { expired };
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

  /** Approves a pending (or disabled) device; its in-scope enrollees are backfilled (biometrics reacts). */
  async approveDevice(serial: string, options: { by: string; areas?: string[]; scope?: AreaScope }): Promise<DeviceRow> {
    const scope = options.scope ?? EVERYWHERE;
    const areaNames = isLimited(scope) ? areasWithin(scope, options.areas) : options.areas;
    const row = await this.ctx.db.write(async (w) => {
      const { tx } = w;
      const now = this.ctx.clock.now();
      const device = await this.get(serial, tx);
      if (device.status === 'approved')
        throw new FpaError('device_not_pending', 'the device is already approved', { serial_number: serial, status: device.status });
      if (areaNames !== undefined) await setDeviceAreas(tx, device.id, await resolveAreas(tx, areaNames, now, this.ctx.settings.AREAS_CREATED_ON_USE));
      const updated: DeviceRow = { ...device, status: 'approved', approvedAt: now, approvedBy: options.by, updatedAt: now };
      await tx.update(devices).set({ status: 'approved', approvedAt: now, approvedBy: options.by, updatedAt: now }).where(eq(devices.id, device.id));
      await noteOnDevice(tx, device.id, 'approved', `approved by ${options.by}`, undefined, now);
      await audit(tx, now, { actor: options.by, action: 'device.approved', targetType: 'device', targetId: serial });
      await this.events.record(w, 'device_approved', { device: deviceRef(updated), by: options.by, areas: await this.areaIdsOf(tx, device.id) });
      return updated;
    });
    this.invalidate(serial);
    return row;
  }

  /** Disables a device; its queued commands expire except deletes (commands reacts). */
  async disableDevice(serial: string, options: { by: string }): Promise<DeviceRow> {
    const row = await this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const device = await this.get(serial, w.tx);
      await w.tx.update(devices).set({ status: 'disabled', updatedAt: now }).where(eq(devices.id, device.id));
      await noteOnDevice(w.tx, device.id, 'disabled', `disabled by ${options.by}`, undefined, now);
      await audit(w.tx, now, { actor: options.by, action: 'device.disabled', targetType: 'device', targetId: serial });
      const updated = { ...device, status: 'disabled' as const, updatedAt: now };
      await this.events.record(w, 'device_disabled', { device: deviceRef(updated), by: options.by });
      return updated;
    });
    this.invalidate(serial);
    return row;
  }

  async updateDevice(
    serial: string,
    patch: { time_zone?: string | null; areas?: string[]; name?: string | null; algorithm_version?: string | null; enrollment_station?: boolean },
    by: string,
    scope: AreaScope = EVERYWHERE,
  ): Promise<DeviceRow> {
    if (patch.areas !== undefined) patch = { ...patch, areas: areasWithin(scope, patch.areas) };
    const row = await this.ctx.db.write(async (w) => {
      const { tx } = w;
      const now = this.ctx.clock.now();
      const device = await this.get(serial, tx);
      const set: Partial<DeviceRow> = { updatedAt: now };
      const changes: DeviceChanges = {};
      if (patch.time_zone !== undefined) {
        set.timeZone = patch.time_zone;
        changes.time_zone = { from: device.timeZone, to: patch.time_zone };
      }
      if (patch.name !== undefined) {
        set.name = patch.name;
        changes.name = { from: device.name, to: patch.name };
      }
      if (patch.enrollment_station !== undefined) {
        set.enrollmentStation = patch.enrollment_station;
        changes.enrollment_station = { from: device.enrollmentStation, to: patch.enrollment_station };
      }
      if (patch.algorithm_version !== undefined) {
        set.algorithmVersion = patch.algorithm_version;
        set.algorithmSource = patch.algorithm_version === null ? null : 'admin';
        changes.algorithm_version = { from: device.algorithmVersion, to: patch.algorithm_version };
      }
      await tx.update(devices).set(set).where(eq(devices.id, device.id));
      if (patch.areas !== undefined) {
        const from = await this.areaIdsOf(tx, device.id);
        const to = await resolveAreas(tx, patch.areas, now, this.ctx.settings.AREAS_CREATED_ON_USE);
        await setDeviceAreas(tx, device.id, to);
        changes.areas = { from, to };
      }
      const updated = { ...device, ...set };
      await audit(tx, now, { actor: by, action: 'device.updated', targetType: 'device', targetId: serial, details: patch });
      await this.events.record(w, 'device_updated', { device: deviceRef(updated), by, status: device.status, changes });
      return updated;
    });
    this.invalidate(serial);
    return row;
  }

  /** Facts the terminal reported (getrequest INFO=, table=options, INFO command result). */
  async recordReport(device: DeviceRow, report: DeviceReport): Promise<DeviceRow> {
    const now = this.ctx.clock.now();
    const set: Partial<DeviceRow> = { updatedAt: now };
    if (report.firmware) set.firmware = report.firmware;
    if (report.userCount != null) set.userCount = report.userCount;
    if (report.fingerprintCount != null) set.fingerprintCount = report.fingerprintCount;
    if (report.attendanceCount != null) set.attendanceCount = report.attendanceCount;
    if (report.ip) set.ipAddress = report.ip;
    if (report.faceAlgorithmVersion) set.faceAlgorithmVersion = report.faceAlgorithmVersion;
    if (report.speaksBiodata !== undefined) set.speaksBiodata = report.speaksBiodata;
    if (report.algorithmVersion && device.algorithmSource !== 'admin') {
      set.algorithmVersion = report.algorithmVersion;
      set.algorithmSource = 'device';
    }
    if (report.parameters) set.parameters = nextParameters(device.parameters, report.parameters, report.parametersMode ?? 'merge');
    if (report.clockOffsetMinutes !== undefined) set.clockOffsetMinutes = report.clockOffsetMinutes;
    if (report.deviceType) set.deviceType = report.deviceType;
    if (report.pushVersion) set.pushVersion = report.pushVersion;
    const capabilities: DeviceChanges = {};
    if (set.algorithmVersion !== undefined && set.algorithmVersion !== device.algorithmVersion)
      capabilities.algorithm_version = { from: device.algorithmVersion, to: set.algorithmVersion };
    if (set.firmware !== undefined && set.firmware !== device.firmware) capabilities.firmware = { from: device.firmware, to: set.firmware };
    if (set.parameters) {
      const changed = CAPABILITY_PARAMETERS.filter((k) => (device.parameters?.[k] ?? null) !== (set.parameters?.[k] ?? null));
      if (changed.length > 0) capabilities.parameters = changed;
    }
    await this.ctx.db.write(async (w) => {
      await w.tx.update(devices).set(set).where(eq(devices.id, device.id));
      if (report.attendanceCount != null && report.attendanceCount !== device.attendanceCount) {
        for (const listener of this.countListeners) await listener(w, device, report.attendanceCount, now);
      }
      if (report.clockOffsetMinutes !== undefined && report.clockOffsetMinutes !== device.clockOffsetMinutes) {
        // A terminal told an offset before this history was kept (an upgraded install) ran on it until now.
        if (device.clockOffsetMinutes !== null && (await this.clockOffsets(w.tx, device.id)).length === 0) {
          await w.tx
            .insert(deviceClockOffsets)
            .values({ deviceId: device.id, since: device.approvedAt ?? device.createdAt, offsetMinutes: device.clockOffsetMinutes });
        }
        await w.tx.insert(deviceClockOffsets).values({ deviceId: device.id, since: now, offsetMinutes: report.clockOffsetMinutes }).onConflictDoNothing();
      }
      // What the terminal can take changed: its failed and incompatible templates are looked at again.
      if (Object.keys(capabilities).length > 0) {
        await this.events.record(w, 'device_updated', {
          device: deviceRef(device),
          by: `device:${device.serialNumber}`,
          status: device.status,
          changes: capabilities,
        });
      }
    });
    this.invalidate(device.serialNumber);
    return { ...device, ...set };
  }

  /** Job `check-devices`: devices silent for DEVICE_OFFLINE_AFTER go offline. */
  async checkDevices(): Promise<{ offline: number; online: number }> {
    const now = this.ctx.clock.now();
    const cutoff = now - this.ctx.settings.DEVICE_OFFLINE_AFTER;
    const gone = await this.ctx.db.write(async (w) => {
      const rows = await w.tx
        .update(devices)
        .set({ online: false })
        .where(and(eq(devices.online, true), lt(devices.lastSeenAt, cutoff)))
        .returning();
      for (const row of rows)
        await noteOnDevice(
          w.tx,
          row.id,
          'offline',
          'went offline: not heard from for too long',
          { last_seen_at: new Date(row.lastSeenAt ?? 0).toISOString() },
          now,
        );
      await this.events.recordMany(
        w,
        'device_offline',
        rows.map((row) => ({ data: { device: deviceRef(row), last_seen_at: row.lastSeenAt ? new Date(row.lastSeenAt).toISOString() : null } })),
      );
      return rows;
    });
    for (const row of gone) this.invalidate(row.serialNumber);
    const [online] = await this.ctx.db.orm.select({ n: sql<number>`count(*)` }).from(devices).where(eq(devices.online, true));
    return { offline: gone.length, online: online?.n ?? 0 };
  }

  /** `GET devices/`: by serial number, cursor-paged. */
  async list(filters: { status?: DeviceStatus; cursor?: string; limit: number }, scope: AreaScope = EVERYWHERE): Promise<Page<DeviceView>> {
    const after = readCursor(filters.cursor);
    const conditions = [];
    const seen = deviceSeen(scope);
    if (seen) conditions.push(seen);
    if (filters.status) conditions.push(eq(devices.status, filters.status));
    if (after !== null) conditions.push(gt(devices.serialNumber, String(after)));
    const rows = await this.ctx.db.orm
      .select()
      .from(devices)
      .where(conditions.length ? and(...conditions) : undefined)
      .orderBy(asc(devices.serialNumber))
      .limit(filters.limit + 1);
    const views = await this.view(this.ctx.db.orm, rows.slice(0, filters.limit));
    return pageOf(
      rows,
      filters.limit,
      (r) => r.serialNumber,
      () => views,
    );
  }

  async view(q: Queryable, rows: DeviceRow[]): Promise<DeviceView[]> {
    const names = await this.areaNamesOf(
      q,
      rows.map((r) => r.id),
    );
    return rows.map((r) => ({
      serial_number: r.serialNumber,
      name: r.name,
      status: r.status,
      algorithm_version: r.algorithmVersion,
      time_zone: this.timeZoneOf(r),
      areas: names.get(r.id) ?? [],
      last_seen_at: r.lastSeenAt ? new Date(r.lastSeenAt).toISOString() : null,
      online: r.online,
      firmware: r.firmware,
      push_version: r.pushVersion,
      ip_address: r.ipAddress,
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
    const row = await this.visible(serial, scope);
    const q = this.ctx.db.orm;
    const events = await q.select().from(deviceEvents).where(eq(deviceEvents.deviceId, row.id)).orderBy(desc(deviceEvents.id)).limit(20);
    let detail: DeviceDetail = {
      ...(await this.viewOne(row)),
      pending_commands: 0,
      templates_present: 0,
      sync_check: { users: { expected: 0, reported: row.userCount }, fingerprints: { expected: 0, reported: row.fingerprintCount }, in_sync: null },
      parameters: row.parameters ?? {},
      recent_events: events.map((e) => ({ kind: e.kind, message: e.message, details: e.details, at: new Date(e.createdAt).toISOString() })),
    };
    for (const part of this.details) detail = { ...detail, ...(await part(q, row)) };
    return detail;
  }

  /**
   * Pre-registers a terminal by serial number (`POST devices/`): it is approved before it ever
   * connects, so its first contact is served at once, its backfill already queued.
   */
  async preRegister(
    input: { serial_number: string; name?: string | null; areas?: string[]; time_zone?: string | null },
    by: string,
    scope: AreaScope = EVERYWHERE,
  ): Promise<DeviceRow> {
    const serial = input.serial_number;
    const areaNames = areasWithin(scope, input.areas);
    if (!SERIAL_NUMBER.test(serial))
      throw new FpaError('validation_error', 'a serial number is 1 to 64 letters, digits, dots, dashes or underscores', { serial_number: serial });
    const row = await this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      if (await this.findBySerial(w.tx, serial)) throw new FpaError('conflict', 'a terminal with this serial number exists', { serial_number: serial });
      const removed = await this.takeRemoved(w.tx, serial);
      const device: DeviceRow = {
        ...newDeviceRow(serial, 'approved', now, {}),
        ...(removed ? { ...removed.facts, id: removed.deviceId } : {}),
        name: input.name ?? null,
        timeZone: input.time_zone ?? null,
        lastSeenAt: null,
        online: false,
        approvedAt: now,
        approvedBy: by,
      };
      await w.tx.insert(devices).values(device);
      const areas = await resolveAreas(w.tx, areaNames, now, this.ctx.settings.AREAS_CREATED_ON_USE);
      await setDeviceAreas(w.tx, device.id, areas);
      await noteOnDevice(w.tx, device.id, 'registered', `pre-registered by ${by}`, undefined, now);
      await audit(w.tx, now, { actor: by, action: 'device.preregistered', targetType: 'device', targetId: serial });
      await this.events.record(w, 'device_registered', { device: deviceRef(device), ip: null });
      await this.events.record(w, 'device_approved', { device: deviceRef(device), by, areas });
      return device;
    });
    this.invalidate(serial);
    return row;
  }

  /**
   * Removes a terminal (`DELETE devices/{sn}/`): its record, areas and keys go. What it holds
   * stays known and its deletes stay queued (only its other unfinished commands are cancelled,
   * commands reacts to `device_removed`; its punches stay): removing a terminal from the service
   * does not remove anyone's data from the terminal. If it connects again it registers as
   * pending under its old id (`fpa_removed_devices`) and is sent the deletes it owes whatever
   * its status; approved again, it is asked for its users and backfilled like any terminal.
   */
  async remove(serial: string, by: string): Promise<void> {
    await this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const device = await this.get(serial, w.tx);
      await this.events.record(w, 'device_removed', { device: deviceRef(device), by });
      const facts: RemovedDeviceFacts = {
        speaksBiodata: device.speaksBiodata,
        algorithmVersion: device.algorithmVersion,
        algorithmSource: device.algorithmSource,
        faceAlgorithmVersion: device.faceAlgorithmVersion,
        firmware: device.firmware,
        pushVersion: device.pushVersion,
        parameters: device.parameters,
      };
      await w.tx
        .insert(removedDevices)
        .values({ serialNumber: serial, deviceId: device.id, removedAt: now, removedBy: by, facts })
        .onConflictDoUpdate({ target: removedDevices.serialNumber, set: { deviceId: device.id, removedAt: now, removedBy: by, facts } });
      await w.tx.delete(deviceAreas).where(eq(deviceAreas.deviceId, device.id));
      await w.tx.delete(deviceKeys).where(eq(deviceKeys.deviceId, device.id));
      await w.tx.delete(deviceClockOffsets).where(eq(deviceClockOffsets.deviceId, device.id));
      await w.tx.delete(devices).where(eq(devices.id, device.id));
      await audit(w.tx, now, { actor: by, action: 'device.removed', targetType: 'device', targetId: serial });
    });
    this.invalidate(serial);
    this.keys.forget(serial);
  }

  /**
   * How far the terminal's clock runs ahead of the server's (seconds, negative: behind), as a
   * real-time upload measured it. Going past `limitSeconds` is noted on the device and
   * announced (`device_clock_drifting`: the terminals module corrects it when configured).
   */
  async recordDrift(device: DeviceRow, driftSeconds: number, options: { limitSeconds: number }): Promise<void> {
    const now = this.ctx.clock.now();
    const drifting = Math.abs(driftSeconds) > options.limitSeconds;
    const was = device.clockDriftSeconds !== null && Math.abs(device.clockDriftSeconds) > options.limitSeconds;
    await this.ctx.db.write(async (w) => {
      await w.tx.update(devices).set({ clockDriftSeconds: driftSeconds }).where(eq(devices.id, device.id));
      if (drifting && !was) {
        await noteOnDevice(
          w.tx,
          device.id,
          'clock_drift',
          `the terminal's clock is ${Math.abs(driftSeconds)} s ${driftSeconds > 0 ? 'ahead' : 'behind'}`,
          { drift_seconds: driftSeconds },
          now,
        );
        await this.events.record(w, 'device_clock_drifting', { device: deviceRef(device), drift_seconds: driftSeconds });
      } else if (!drifting && was) {
        await noteOnDevice(w.tx, device.id, 'clock_drift', "the terminal's clock is right again", { drift_seconds: driftSeconds }, now);
      }
    });
    this.invalidate(device.serialNumber);
  }

  /** The offsets a terminal was told, oldest first (reading its wall times). */
  async clockOffsets(q: Queryable, deviceId: string): Promise<{ since: number; offsetMinutes: number }[]> {
    return q
      .select({ since: deviceClockOffsets.since, offsetMinutes: deviceClockOffsets.offsetMinutes })
      .from(deviceClockOffsets)
      .where(eq(deviceClockOffsets.deviceId, deviceId))
      .orderBy(asc(deviceClockOffsets.since));
  }

  /** Approved (or other) devices, all of them. */
  withStatus(status: DeviceStatus): Promise<DeviceRow[]> {
    return this.ctx.db.orm.select().from(devices).where(eq(devices.status, status));
  }

  /** The device's Security PUSH 3.x registry code, created once and kept. */
  async registryCode(device: DeviceRow): Promise<string> {
    if (device.registryCode) return device.registryCode;
    const fresh = alphanumeric(10);
    const code = await this.ctx.db.write(async ({ tx }) => {
      const row = await this.findById(tx, device.id);
      if (row?.registryCode) return row.registryCode;
      await tx.update(devices).set({ registryCode: fresh, updatedAt: this.ctx.clock.now() }).where(eq(devices.id, device.id));
      return fresh;
    });
    this.invalidate(device.serialNumber);
    return code;
  }

  /** Retention: device log entries before `cutoff`. */
  purgeLogBefore(cutoff: number): Promise<number> {
    return deleteInBatches(this.ctx.db, deviceEvents, lt(deviceEvents.createdAt, cutoff));
  }

  // ---------------------------------------------------------------- scope

  /** Area ids of one device. */
  /** Terminals in an area (an area in use is not deleted). */
  async countInArea(q: Queryable, areaId: string): Promise<number> {
    const [row] = await q.select({ n: sql<number>`count(*)` }).from(deviceAreas).where(eq(deviceAreas.areaId, areaId));
    return row?.n ?? 0;
  }

  async areaIdsOf(q: Queryable, deviceId: string): Promise<string[]> {
    const rows = await q.select({ areaId: deviceAreas.areaId }).from(deviceAreas).where(eq(deviceAreas.deviceId, deviceId));
    return rows.map((r) => r.areaId);
  }

  async areaNamesOf(q: Queryable, deviceIds: readonly string[]): Promise<Map<string, string[]>> {
    const pairs: { member: string; areaId: string }[] = [];
    for (const ids of chunks(deviceIds, 500)) {
      const rows = await q.select({ member: deviceAreas.deviceId, areaId: deviceAreas.areaId }).from(deviceAreas).where(inArray(deviceAreas.deviceId, ids));
      pairs.push(...rows);
    }
    return namesByMember(q, pairs);
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

/** The fields of the device detail that modules above devices contribute. */
export type DetailParts = Pick<DeviceDetail, 'pending_commands' | 'templates_present' | 'sync_check'>;

/** Told of a terminal's attendance record count (`TransactionCount`), in the write that records it. */
export type AttendanceCountListener = (w: WriteContext, device: DeviceRow, count: number, at: number) => Promise<void>;

/** Parts of the device detail contributed by modules above devices. */
export type DetailPart = (q: Queryable, device: DeviceRow) => Promise<Partial<DetailParts>>;

const SERIAL_NUMBER = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Reported parameters that change what a terminal can take: the kinds and versions it declares
 * and its capacity. A change lets its failed and incompatible templates be looked at again.
 */
const CAPABILITY_PARAMETERS = [
  'MultiBioDataSupport',
  'MultiBioVersion',
  'FaceFunOn',
  'FaceVersion',
  'VisilightFun',
  'PvFunOn',
  'PvVersion',
  'FvFunOn',
  'FvVersion',
  '~MaxUserCount',
  '~MaxFingerCount',
  '~MaxFaceCount',
];

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** Letters and digits only: a registry code travels in a cookie and in an MD5 input on the terminal. */
function alphanumeric(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join('');
}

function newDeviceRow(serial: string, status: DeviceStatus, now: number, contact: DeviceContact): DeviceRow {
  return {
    id: crypto.randomUUID(),
    serialNumber: serial,
    name: null,
    status,
    timeZone: null,
    algorithmVersion: null,
    algorithmSource: null,
    faceAlgorithmVersion: null,
    pushVersion: contact.pushVersion ?? null,
    deviceType: null,
    firmware: null,
    ipAddress: contact.ip ?? null,
    language: contact.language ?? null,
    userCount: null,
    fingerprintCount: null,
    attendanceCount: null,
    speaksBiodata: false,
    parameters: null,
    registryCode: null,
    clockOffsetMinutes: null,
    clockDriftSeconds: null,
    enrollmentStation: false,
    keyedIp: null,
    pinnedIp: null,
    unconfirmedIp: null,
    unconfirmedIpAt: null,
    registeredIp: null,
    lastSeenAt: now,
    online: true,
    approvedAt: null,
    approvedBy: null,
    createdAt: now,
    updatedAt: now,
  };
}

async function setDeviceAreas(q: Queryable, deviceId: string, areaIds: string[]): Promise<void> {
  await q.delete(deviceAreas).where(eq(deviceAreas.deviceId, deviceId));
  if (areaIds.length > 0) await q.insert(deviceAreas).values(areaIds.map((areaId) => ({ deviceId, areaId })));
}

export function deviceRef(row: DeviceRow): DeviceRef {
  return { id: row.id, serial_number: row.serialNumber };
}

/**
 * Whether templates go to this terminal as BIODATA: it speaks BIODATA, or its fingerprint
 * algorithm (or the template's) is above 10; FINGERTMP carries only v10 and older.
 */
export function takesBiodata(device: DeviceRow, algorithmVersion: string | null): boolean {
  if (device.speaksBiodata) return true;
  return [device.algorithmVersion, algorithmVersion].some((v) => {
    const major = Number.parseFloat(v ?? '');
    return Number.isFinite(major) && major > 10;
  });
}

/** The device log: what happened on a terminal's line (malformed data, rejections, health). */
export async function noteOnDevice(
  tx: Tx,
  deviceId: string,
  kind: string,
  message: string,
  details: Record<string, unknown> | undefined,
  now: number,
): Promise<void> {
  await tx.insert(deviceEvents).values({ deviceId, kind, message, details: details ?? null, createdAt: now });
}
