/**
 * Terminals: registration, approval (with backfill), disabling, health and the facts they
 * report about themselves. Polls are the hottest path in the service, so device rows are
 * cached for a few seconds and `last_seen_at` is written at most every LAST_SEEN_FLUSH_MS.
 */
import { and, desc, eq, lt, notInArray, sql } from 'drizzle-orm';
import { areaNamesOfDevices, enrolleesInScopeOfDevice, resolveAreas, setDeviceAreas } from '../areas/service';
import { audit } from '../audit/service';
import { DELETE_KINDS, type CommandService } from '../commands/service';
import type { Context } from '../../app/context';
import type { Queryable, Tx } from '../../platform/db/client';
import { deviceCommands, deviceEvents, devices, templateSync } from '../../app/schema';
import { FpaError } from '../../platform/errors';
import type { TemplateService } from '../biometrics/service';
import { BoundedMap } from '../../platform/bounded-map';
import { nextParameters, type ParameterMode } from './parameters';

export type DeviceRow = typeof devices.$inferSelect;

const CACHE_MS = 2_000;
const LAST_SEEN_FLUSH_MS = 30_000;
/** Entries kept per in-memory map: unknown serials arrive unauthenticated, so memory is bounded. */
const MAX_CACHED_DEVICES = 10_000;
/** A refused registration is logged at most this often, so a flood cannot flood the log. */
const PENDING_WARNING_EVERY_MS = 60_000;

export interface DeviceContact {
  ip?: string | null;
  pushVersion?: string | null;
  language?: string | null;
}

export interface DeviceView {
  serial_number: string;
  name: string | null;
  status: string;
  algorithm_version: string | null;
  time_zone: string;
  areas: string[];
  last_seen_at: string | null;
  online: boolean;
  firmware: string | null;
  push_version: string | null;
  ip_address: string | null;
  user_count: number | null;
  fingerprint_count: number | null;
  attendance_count: number | null;
  approved_at: string | null;
  created_at: string;
}

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
}

export class DeviceService {
  private readonly cache = new BoundedMap<string, { row: DeviceRow; until: number }>(MAX_CACHED_DEVICES);
  private readonly lastFlushed = new BoundedMap<string, number>(MAX_CACHED_DEVICES);
  private lastPendingWarning = 0;

  constructor(
    private readonly ctx: Context,
    private readonly commands: CommandService,
    private readonly templates: TemplateService,
  ) {}

  timeZoneOf(device: DeviceRow): string {
    return device.timeZone ?? this.ctx.settings.TIME_ZONE;
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
    if (!row.online || changed || flushDue) {
      const wasOnline = row.online;
      const set = {
        lastSeenAt: now,
        online: true,
        pushVersion: contact.pushVersion || row.pushVersion,
        language: contact.language || row.language,
        ipAddress: contact.ip || row.ipAddress,
      };
      await this.ctx.db.write(async ({ tx }) => {
        await tx.update(devices).set(set).where(eq(devices.id, row!.id));
        if (!wasOnline && row!.lastSeenAt !== null) await logEvent(tx, row!.id, 'online', 'the terminal is back online', undefined, now);
      });
      this.lastFlushed.set(row.id, now);
      row = { ...row, ...set };
      if (!wasOnline) this.ctx.events.emit('device_online', { device: ref(row) });
    } else {
      row = { ...row, lastSeenAt: now };
    }
    this.cache.set(serial, { row, until: now + CACHE_MS });
    return row;
  }

  private async register(serial: string, contact: DeviceContact, now: number): Promise<DeviceRow> {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(serial)) {
      throw new FpaError('validation_error', 'a serial number is 1 to 64 letters, digits, dots, dashes or underscores', { serial_number: serial });
    }
    const autoApprove = this.ctx.settings.ADMS_AUTO_APPROVE;
    // Checked before the write too, so a flood of unknown serials never queues on the writer.
    if (await this.pendingFull(this.ctx.db.orm)) this.refuseRegistration(serial, now);
    const created = await this.ctx.db.write(async ({ tx, afterCommit }) => {
      const again = await this.findBySerial(tx, serial);
      if (again) return { row: again, isNew: false };
      if (await this.pendingFull(tx)) this.refuseRegistration(serial, now);
      const row: DeviceRow = {
        id: crypto.randomUUID(),
        serialNumber: serial,
        name: null,
        status: 'pending_approval',
        timeZone: null,
        algorithmVersion: null,
        algorithmSource: null,
        faceAlgorithmVersion: null,
        pushVersion: contact.pushVersion ?? null,
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
        lastSeenAt: now,
        online: true,
        approvedAt: null,
        approvedBy: null,
        createdAt: now,
        updatedAt: now,
      };
      await tx.insert(devices).values(row);
      await setDeviceAreas(tx, row.id, await resolveAreas(tx, undefined, now));
      await logEvent(tx, row.id, 'registered', 'an unknown terminal registered itself', { ip: contact.ip ?? null }, now);
      await audit(tx, now, { actor: `device:${serial}`, action: 'device.registered', targetType: 'device', targetId: serial });
      afterCommit(() => this.ctx.events.emit('device_registered', { device: ref(row) }));
      return { row, isNew: true };
    });
    this.lastFlushed.set(created.row.id, now);
    if (created.isNew && autoApprove) return this.approveDevice(serial, { by: 'auto-approve' });
    return created.row;
  }

  /** Whether ADMS_MAX_PENDING_DEVICES terminals already wait for approval. */
  private async pendingFull(q: Queryable): Promise<boolean> {
    const [pending] = await q.select({ n: sql<number>`count(*)` }).from(devices).where(eq(devices.status, 'pending_approval'));
    return (pending?.n ?? 0) >= this.ctx.settings.ADMS_MAX_PENDING_DEVICES;
  }

  private refuseRegistration(serial: string, now: number): never {
    if (now - this.lastPendingWarning >= PENDING_WARNING_EVERY_MS) {
      this.lastPendingWarning = now;
      this.ctx.log.warn('unknown terminals refused: ADMS_MAX_PENDING_DEVICES terminals already wait for approval', {
        serial,
        max: this.ctx.settings.ADMS_MAX_PENDING_DEVICES,
      });
    }
    throw new FpaError('forbidden', 'Device Unauthorized', { serial_number: serial });
  }

  async findBySerial(q: Queryable, serial: string): Promise<DeviceRow | null> {
    return (await q.query.devices.findFirst({ where: eq(devices.serialNumber, serial) })) ?? null;
  }

  async get(serial: string): Promise<DeviceRow> {
    const row = await this.findBySerial(this.ctx.db.orm, serial);
    if (!row) throw new FpaError('not_found', 'device not found', { serial_number: serial });
    return row;
  }

  invalidate(serial: string): void {
    this.cache.delete(serial);
  }

  /** Approves a pending (or disabled) device and backfills every in-scope enrollee onto it. */
  async approveDevice(serial: string, options: { by: string; areas?: string[] }): Promise<DeviceRow> {
    const row = await this.ctx.db.write(async (w) => {
      const { tx, afterCommit } = w;
      const now = this.ctx.clock.now();
      const device = await this.findBySerial(tx, serial);
      if (!device) throw new FpaError('not_found', 'device not found', { serial_number: serial });
      if (device.status === 'approved') throw new FpaError('device_not_pending', 'the device is already approved', { serial_number: serial, status: device.status });
      if (options.areas !== undefined) await setDeviceAreas(tx, device.id, await resolveAreas(tx, options.areas, now));
      const updated: DeviceRow = { ...device, status: 'approved', approvedAt: now, approvedBy: options.by, updatedAt: now };
      await tx.update(devices).set({ status: 'approved', approvedAt: now, approvedBy: options.by, updatedAt: now }).where(eq(devices.id, device.id));
      const inScope = await enrolleesInScopeOfDevice(tx, device.id);
      const queued = await this.templates.backfillDevice(w, updated, inScope);
      await logEvent(tx, device.id, 'approved', `approved by ${options.by}`, { backfill_commands: queued }, now);
      await audit(tx, now, { actor: options.by, action: 'device.approved', targetType: 'device', targetId: serial, details: { enrollees: inScope.length, commands: queued } });
      afterCommit(() => this.ctx.events.emit('device_approved', { device: ref(updated), by: options.by }));
      return updated;
    });
    this.invalidate(serial);
    return row;
  }

  async disableDevice(serial: string, options: { by: string }): Promise<DeviceRow> {
    const row = await this.ctx.db.write(async ({ tx, afterCommit }) => {
      const now = this.ctx.clock.now();
      const device = await this.findBySerial(tx, serial);
      if (!device) throw new FpaError('not_found', 'device not found', { serial_number: serial });
      await tx.update(devices).set({ status: 'disabled', updatedAt: now }).where(eq(devices.id, device.id));
      // Nothing more goes to a disabled terminal, except deletes: they wait for a re-approval,
      // because the terminal may still hold the data they remove.
      await this.commands.expireMatching(
        tx,
        and(eq(deviceCommands.deviceId, device.id), notInArray(deviceCommands.kind, [...DELETE_KINDS]))!,
        'device disabled',
        afterCommit,
      );
      await logEvent(tx, device.id, 'disabled', `disabled by ${options.by}`, undefined, now);
      await audit(tx, now, { actor: options.by, action: 'device.disabled', targetType: 'device', targetId: serial });
      const updated = { ...device, status: 'disabled' as const, updatedAt: now };
      afterCommit(() => this.ctx.events.emit('device_disabled', { device: ref(updated), by: options.by }));
      return updated;
    });
    this.invalidate(serial);
    return row;
  }

  async updateDevice(
    serial: string,
    patch: { time_zone?: string | null; areas?: string[]; name?: string | null; algorithm_version?: string | null },
    by: string,
  ): Promise<DeviceRow> {
    const row = await this.ctx.db.write(async (w) => {
      const { tx } = w;
      const now = this.ctx.clock.now();
      const device = await this.findBySerial(tx, serial);
      if (!device) throw new FpaError('not_found', 'device not found', { serial_number: serial });
      const set: Partial<DeviceRow> = { updatedAt: now };
      if (patch.time_zone !== undefined) set.timeZone = patch.time_zone;
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.algorithm_version !== undefined) {
        set.algorithmVersion = patch.algorithm_version;
        set.algorithmSource = patch.algorithm_version === null ? null : 'admin';
      }
      await tx.update(devices).set(set).where(eq(devices.id, device.id));
      const updated = { ...device, ...set };
      if (patch.areas !== undefined) {
        const before = await enrolleesInScopeOfDevice(tx, device.id);
        await setDeviceAreas(tx, device.id, await resolveAreas(tx, patch.areas, now));
        const after = await enrolleesInScopeOfDevice(tx, device.id);
        const wasIn = new Set(before.map((e) => e.id));
        const isIn = new Set(after.map((e) => e.id));
        // Enrollees that left this terminal's scope are taken off it (a disabled one gets the
        // deletes on re-approval); a pending terminal never received anyone.
        if (device.status !== 'pending_approval') await this.templates.removeFromDevices(w, before.filter((e) => !isIn.has(e.id)), [device.id]);
        if (device.status === 'approved') await this.templates.backfillDevice(w, updated, after.filter((e) => !wasIn.has(e.id)));
      }
      if (patch.time_zone !== undefined && device.status === 'approved') {
        // The terminal re-reads its options (and so its TimeZone) on CHECK.
        await this.commands.enqueue(tx, [{ deviceId: device.id, kind: 'CHECK', payload: {}, supersedeKey: 'check' }], w.afterCommit);
      }
      await audit(tx, now, { actor: by, action: 'device.updated', targetType: 'device', targetId: serial, details: patch });
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
    await this.ctx.db.write(async ({ tx }) => {
      await tx.update(devices).set(set).where(eq(devices.id, device.id));
    });
    this.invalidate(device.serialNumber);
    return { ...device, ...set };
  }

  /** Job `check-devices`: devices silent for DEVICE_OFFLINE_AFTER go offline. */
  async checkDevices(): Promise<{ offline: number; online: number }> {
    const now = this.ctx.clock.now();
    const cutoff = now - this.ctx.settings.DEVICE_OFFLINE_AFTER;
    const gone = await this.ctx.db.write(async ({ tx, afterCommit }) => {
      const rows = await tx
        .update(devices)
        .set({ online: false })
        .where(and(eq(devices.online, true), lt(devices.lastSeenAt, cutoff)))
        .returning();
      for (const row of rows) {
        await logEvent(tx, row.id, 'offline', `no contact since ${new Date(row.lastSeenAt ?? 0).toISOString()}`, undefined, now);
        afterCommit(() =>
          this.ctx.events.emit('device_offline', {
            device: ref(row),
            lastSeenAt: row.lastSeenAt ? new Date(row.lastSeenAt).toISOString() : null,
          }),
        );
      }
      return rows;
    });
    for (const row of gone) this.invalidate(row.serialNumber);
    const [online] = await this.ctx.db.orm.select({ n: sql<number>`count(*)` }).from(devices).where(eq(devices.online, true));
    return { offline: gone.length, online: online?.n ?? 0 };
  }

  async view(q: Queryable, rows: DeviceRow[]): Promise<DeviceView[]> {
    const names = await areaNamesOfDevices(q, rows.map((r) => r.id));
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
    }));
  }

  async detail(serial: string) {
    const row = await this.get(serial);
    const [view] = await this.view(this.ctx.db.orm, [row]);
    const pending = await this.commands.countPending(this.ctx.db.orm, row.id);
    const [present] = await this.ctx.db.orm
      .select({ n: sql<number>`count(*)` })
      .from(templateSync)
      .where(and(eq(templateSync.deviceId, row.id), eq(templateSync.status, 'present')));
    const events = await this.ctx.db.orm
      .select()
      .from(deviceEvents)
      .where(eq(deviceEvents.deviceId, row.id))
      .orderBy(desc(deviceEvents.id))
      .limit(20);
    return {
      ...view!,
      pending_commands: pending,
      templates_present: present?.n ?? 0,
      parameters: row.parameters ?? {},
      recent_events: events.map((e) => ({ kind: e.kind, message: e.message, details: e.details, at: new Date(e.createdAt).toISOString() })),
    };
  }
}

export function ref(row: DeviceRow) {
  return { id: row.id, serial_number: row.serialNumber };
}

/** Device events: what happened on a terminal's line (malformed data, rejections, health). */
export async function logEvent(
  tx: Tx,
  deviceId: string,
  kind: string,
  message: string,
  details: Record<string, unknown> | undefined,
  now: number,
): Promise<void> {
  await tx.insert(deviceEvents).values({ deviceId, kind, message, details: details ?? null, createdAt: now });
}
