/**
 * A terminal's contact with the service. Every terminal request starts with `touch`: it finds the
 * device (registering an unknown serial as `pending_approval`, within the pending-terminal cap)
 * and records the contact, online. Also here: terminals an administrator pre-registers, the
 * Security PUSH registry code, and the jobs that forget stale pending terminals and mark silent
 * ones offline. Polls are the hottest path in the service, so device rows are cached for a few
 * seconds and `last_seen_at` is written at most every LAST_SEEN_FLUSH_MS.
 */
import { and, eq, lt, sql } from 'drizzle-orm';
import { BoundedMap } from '../../platform/bounded-map';
import { chunks } from '../../platform/chunks';
import type { Queryable, Tx } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import { isSecurityPush } from '../../protocol/adms';
import { areasWithin, resolveAreas } from '../areas';
import { audit } from '../audit';
import type { EventChannel } from '../events';
import type { DeviceAdministration } from './administration';
import { noteOnDevice } from './device-log';
import { SECURITY_MODULE } from './dialect';
import { type DeviceEvents, deviceRef } from './events';
import { normalAddress } from './identity';
import type { DeviceRecords } from './records';
import type { RegistrationRefusals } from './refusals';
import type { DeviceRuntime } from './runtime';
import { setDeviceAreas } from './scope';
import {
  type DeviceRow,
  type DeviceStatus,
  deviceAreas,
  deviceClockOffsets,
  deviceEvents,
  deviceKeys,
  devices,
  deviceUserDepartures,
  deviceUsers,
  type PendingLimit,
  type RemovedDeviceFacts,
  removedDevices,
} from './tables';
import type { DeviceUsers } from './users';

/** How long `touch` serves a device row from memory before reading it again. */
const CACHE_MS = 2_000;
/** `last_seen_at` is written at most this often while nothing else changes (every poll touches the terminal). */
const LAST_SEEN_FLUSH_MS = 30_000;
/** Entries kept per in-memory map: unknown serials arrive unauthenticated, so memory is bounded. */
export const MAX_CACHED_DEVICES = 10_000;
/** Stale pending terminals one run of expire-pending-devices forgets at most (the next run takes the rest). */
const EXPIRE_BATCH = 10_000;

export interface DeviceContact {
  /** The peer address of a handshake or registration: recorded at once when it changed. */
  ip?: string | null;
  /**
   * The peer address of any other request: recorded with the next contact write (at most
   * LAST_SEEN_FLUSH_MS late, like `last_seen_at`), so a terminal whose address changes on every
   * poll (a NAT with a pool of addresses) costs no write per poll.
   */
  peer?: string | null;
  /** The request's source address: registers an unknown serial under it (ADMS_MAX_PENDING_PER_ADDRESS). */
  source?: string | null;
  pushVersion?: string | null;
  language?: string | null;
  /**
   * false: the request is not trusted as the terminal's (an unconfirmed address, no key under
   * ADMS_TRUST=key, or not known yet): the device is found (or registered), but the contact is
   * not recorded: `last_seen_at`, `online` and the shown address stay as they are, so whoever
   * read the serial off the label cannot keep a dead or stolen terminal online.
   */
  seen?: boolean;
}

/** A device row as `touch` serves it between writes. */
export interface CachedDevice {
  row: DeviceRow;
  until: number;
}

export class DeviceRegistration {
  private readonly lastFlushed = new BoundedMap<string, number>(MAX_CACHED_DEVICES);
  /** When each terminal was last heard from again after a silence, on this instance (`returnedAt`). */
  private readonly returned = new BoundedMap<string, number>(MAX_CACHED_DEVICES);

  constructor(
    private readonly ctx: DeviceRuntime,
    private readonly events: EventChannel<DeviceEvents>,
    private readonly records: DeviceRecords,
    /** The rows `touch` serves polls from; DeviceService.invalidate drops one. */
    private readonly cache: BoundedMap<string, CachedDevice>,
    private readonly users: DeviceUsers,
    private readonly administration: DeviceAdministration,
    private readonly refusals: RegistrationRefusals,
  ) {}

  /**
   * Every terminal request starts here: finds the device (registering an unknown serial as
   * `pending_approval`) and records the contact, unless `contact.seen` is false.
   */
  async touch(serial: string, contact: DeviceContact = {}): Promise<DeviceRow> {
    const now = this.ctx.clock.now();
    const cached = this.cache.get(serial);
    // A cached row is trusted until CACHE_MS after it was READ: a contact served from it must not
    // push that on, or a terminal talking to this instance every second would keep a row another
    // instance changed (disabled, removed, its zone) for as long as it kept talking.
    const hit = cached !== undefined && cached.until > now;
    const until = hit ? cached.until : now + CACHE_MS;
    let row = hit ? cached.row : await this.records.findBySerial(this.ctx.db.orm, serial);
    if (!row) row = await this.register(serial, contact, now);
    if (contact.seen === false) {
      if (!hit) this.cache.set(serial, { row, until });
      return row;
    }

    // A handshake naming a 2.x pushver is routed on it (ADMS.md: route on pushver): a terminal
    // whose firmware went back from an access-control (3.x) build forgets its `DeviceType=acc`,
    // or it would be sent 3.x commands it refuses (-1002) for good.
    const backTo2x = Boolean(contact.pushVersion) && row.deviceType === SECURITY_MODULE && !isSecurityPush(contact.pushVersion);
    const changed =
      backTo2x ||
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
        ipAddress: contact.ip || contact.peer || row.ipAddress,
        ...(backTo2x ? { deviceType: null } : {}),
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
      if (returning) this.returned.set(row.id, now);
      row = { ...row, ...set };
    } else {
      row = { ...row, lastSeenAt: now };
    }
    this.cache.set(serial, { row, until });
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
      const again = await this.records.findBySerial(w.tx, serial);
      if (again) return { row: again, isNew: false };
      const removed = await this.takeRemoved(w.tx, serial);
      const stillFull = removed ? null : await this.pendingFull(w.tx, source);
      if (stillFull) this.refuseRegistration(serial, now, stillFull, source);
      const row: DeviceRow = {
        ...newDeviceRow(serial, 'pending_approval', now, { ip: contact.ip ?? source, pushVersion: contact.pushVersion, language: contact.language }),
        ...(removed ? restoredFacts(removed) : {}),
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
        { ip: source, ...(removed ? { removed_at: new Date(removed.removedAt).toISOString(), removed_by: removed.removedBy } : {}) },
        now,
      );
      await audit(w.tx, now, { actor: `device:${serial}`, action: 'device.registered', targetType: 'device', targetId: serial });
      await this.events.record(w, 'device_registered', { device: deviceRef(row), ip: source });
      return { row, isNew: true };
    });
    this.lastFlushed.set(created.row.id, now);
    if (created.isNew && this.ctx.settings.ADMS_AUTO_APPROVE) return this.administration.approveDevice(serial, { by: 'auto-approve' });
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
  private async pendingFull(q: Queryable, source: string | null): Promise<PendingLimit | null> {
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

  private refuseRegistration(serial: string, now: number, limit: PendingLimit, source: string | null): never {
    // Logged and kept for the diagnostics (refusals.ts): a real terminal among the refused never appears in Terminals.
    this.refusals.note(limit, serial, source, now);
    throw new FpaError('forbidden', 'Device Unauthorized', { serial_number: serial });
  }

  /**
   * When this instance last heard from the terminal again after a silence of DEVICE_OFFLINE_AFTER
   * or more (undefined: not since it started): what it uploads just after may have been kept
   * while it was away (terminals/ingest.ts, the clock's drift). Another instance's return is not
   * known here.
   */
  returnedAt(deviceId: string): number | undefined {
    return this.returned.get(deviceId);
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
          await w.tx.delete(deviceUserDepartures).where(eq(deviceUserDepartures.deviceId, device.id));
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
      for (const device of gone) this.records.invalidate(device.serialNumber);
      expired += gone.length;
    }
    return { expired };
  }

  /**
   * Pre-registers a terminal by serial number (`POST devices/`): it is approved before it ever
   * connects, so its first contact is served at once: the query of its users is already queued,
   * its backfill follows the answer. Whoever connects first with the serial is taken for it
   * (pinned to that address, identity.ts): the README tells installers when to pre-register.
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
      if (await this.records.findBySerial(w.tx, serial)) throw new FpaError('conflict', 'a terminal with this serial number exists', { serial_number: serial });
      const removed = await this.takeRemoved(w.tx, serial);
      const device: DeviceRow = {
        ...newDeviceRow(serial, 'approved', now, {}),
        ...(removed ? restoredFacts(removed) : {}),
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
      // In-process listeners are told it was an administrator's doing, not a terminal knocking
      // (the operator's log says so in one line, src/app/operator-log.ts); the log keeps the data only.
      await this.events.record(w, 'device_registered', { device: deviceRef(device), ip: null }, { local: { registered_by: by } });
      await this.events.record(w, 'device_approved', { device: deviceRef(device), by, areas }, { local: { registered: true } });
      return device;
    });
    this.records.invalidate(serial);
    return row;
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
    for (const row of gone) this.records.invalidate(row.serialNumber);
    const [online] = await this.ctx.db.orm.select({ n: sql<number>`count(*)` }).from(devices).where(eq(devices.online, true));
    return { offline: gone.length, online: online?.n ?? 0 };
  }

  /** The device's Security PUSH 3.x registry code, created once and kept. */
  async registryCode(device: DeviceRow): Promise<string> {
    if (device.registryCode) return device.registryCode;
    const fresh = alphanumeric(10);
    const code = await this.ctx.db.write(async ({ tx }) => {
      const row = await this.records.findById(tx, device.id);
      if (row?.registryCode) return row.registryCode;
      await tx.update(devices).set({ registryCode: fresh, updatedAt: this.ctx.clock.now() }).where(eq(devices.id, device.id));
      return fresh;
    });
    this.records.invalidate(device.serialNumber);
    return code;
  }
}

const SERIAL_NUMBER = /^[A-Za-z0-9_.-]{1,64}$/;

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
    reportedAddress: null,
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

/** What a removed terminal brings back when it registers again: its facts and its old id (not when it was last heard of). */
function restoredFacts(removed: { deviceId: string; facts: RemovedDeviceFacts }) {
  const { lastSeenAt: _lastSeen, ...facts } = removed.facts;
  return { ...facts, id: removed.deviceId };
}
