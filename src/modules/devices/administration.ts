/**
 * What an administrator does to a terminal: approve it, disable it, change its settings (time
 * zone, areas, name, algorithm version, enrollment station) or remove it. What follows from a
 * change (a backfill on approval, deletes when the scope shrinks, CHECK after a time zone change,
 * commands expired or cancelled) is done by the modules that react to its event.
 */
import { eq } from 'drizzle-orm';
import { FpaError } from '../../platform/errors';
import { type AreaScope, EVERYWHERE, isLimited } from '../../platform/scope';
import { areaNames, areasAfterSetting, areasToSet, areasWithin, resolveAreas } from '../areas';
import { audit } from '../audit';
import type { EventChannel } from '../events';
import { noteOnDevice } from './device-log';
import { type DeviceChanges, type DeviceEvents, deviceRef } from './events';
import type { DeviceKeys } from './keys';
import type { DeviceRecords } from './records';
import type { DeviceRuntime } from './runtime';
import { refuseIfSharedTerminal, setDeviceAreas } from './scope';
import { type DeviceRow, deviceAreas, deviceClockOffsets, deviceKeys, devices, type RemovedDeviceFacts, removedDevices } from './tables';

export class DeviceAdministration {
  constructor(
    private readonly ctx: DeviceRuntime,
    private readonly events: EventChannel<DeviceEvents>,
    private readonly records: DeviceRecords,
    private readonly keys: DeviceKeys,
  ) {}

  /** Approves a pending (or disabled) device; its in-scope enrollees are backfilled (biometrics reacts). */
  async approveDevice(serial: string, options: { by: string; areas?: string[]; scope?: AreaScope }): Promise<DeviceRow> {
    const scope = options.scope ?? EVERYWHERE;
    const areaNames = isLimited(scope) ? areasWithin(scope, options.areas) : options.areas;
    const row = await this.ctx.db.write(async (w) => {
      const { tx } = w;
      const now = this.ctx.clock.now();
      const device = await this.records.get(serial, tx);
      if (device.status === 'approved')
        throw new FpaError('device_not_pending', 'the device is already approved', { serial_number: serial, status: device.status });
      if (areaNames !== undefined) await setDeviceAreas(tx, device.id, await resolveAreas(tx, areaNames, now, this.ctx.settings.AREAS_CREATED_ON_USE));
      const updated: DeviceRow = { ...device, status: 'approved', approvedAt: now, approvedBy: options.by, updatedAt: now };
      await tx.update(devices).set({ status: 'approved', approvedAt: now, approvedBy: options.by, updatedAt: now }).where(eq(devices.id, device.id));
      await noteOnDevice(tx, device.id, 'approved', `approved by ${options.by}`, undefined, now);
      await audit(tx, now, { actor: options.by, action: 'device.approved', targetType: 'device', targetId: serial });
      await this.events.record(w, 'device_approved', { device: deviceRef(updated), by: options.by, areas: await this.records.areaIdsOf(tx, device.id) });
      return updated;
    });
    this.records.invalidate(serial);
    return row;
  }

  /** Disables a device; its queued commands expire except deletes (commands reacts). */
  async disableDevice(serial: string, options: { by: string; scope?: AreaScope }): Promise<DeviceRow> {
    const row = await this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const device = await this.records.get(serial, w.tx);
      await refuseIfSharedTerminal(w.tx, device.id, options.scope ?? EVERYWHERE, 'disable');
      await w.tx.update(devices).set({ status: 'disabled', updatedAt: now }).where(eq(devices.id, device.id));
      await noteOnDevice(w.tx, device.id, 'disabled', `disabled by ${options.by}`, undefined, now);
      await audit(w.tx, now, { actor: options.by, action: 'device.disabled', targetType: 'device', targetId: serial });
      const updated = { ...device, status: 'disabled' as const, updatedAt: now };
      await this.events.record(w, 'device_disabled', { device: deviceRef(updated), by: options.by });
      return updated;
    });
    this.records.invalidate(serial);
    return row;
  }

  async updateDevice(
    serial: string,
    patch: { time_zone?: string | null; areas?: string[]; name?: string | null; algorithm_version?: string | null; enrollment_station?: boolean },
    by: string,
    scope: AreaScope = EVERYWHERE,
  ): Promise<DeviceRow> {
    if (patch.areas !== undefined) patch = { ...patch, areas: areasToSet(scope, patch.areas) };
    const row = await this.ctx.db.write(async (w) => {
      const { tx } = w;
      const now = this.ctx.clock.now();
      const device = await this.records.get(serial, tx);
      refuseStationChange(scope, device, patch.enrollment_station);
      // How a shared terminal's punches are read (its zone) and which templates it is sent (its
      // algorithm) are every area's concern: a limited caller changes them on its own terminals.
      if (this.changesHowItIsRead(device, patch)) await refuseIfSharedTerminal(tx, device.id, scope, 'change the time zone or algorithm version of');
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
        const from = await this.records.areaIdsOf(tx, device.id);
        // A limited caller sets only its own of the terminal's areas (areasAfterSetting): the
        // other areas' people stay on it.
        const current = isLimited(scope) ? [...(await areaNames(tx, from)).values()] : [];
        const to = await resolveAreas(tx, areasAfterSetting(scope, patch.areas, current), now, this.ctx.settings.AREAS_CREATED_ON_USE);
        await setDeviceAreas(tx, device.id, to);
        changes.areas = { from, to };
      }
      const updated = { ...device, ...set };
      await audit(tx, now, { actor: by, action: 'device.updated', targetType: 'device', targetId: serial, details: patch });
      await this.events.record(w, 'device_updated', { device: deviceRef(updated), by, status: device.status, changes });
      return updated;
    });
    this.records.invalidate(serial);
    return row;
  }

  /** Whether a patch changes the terminal's effective time zone or its algorithm version. */
  private changesHowItIsRead(device: DeviceRow, patch: { time_zone?: string | null; algorithm_version?: string | null }): boolean {
    const zoneChanges = patch.time_zone !== undefined && this.records.timeZoneOf({ ...device, timeZone: patch.time_zone }) !== this.records.timeZoneOf(device);
    return zoneChanges || (patch.algorithm_version !== undefined && patch.algorithm_version !== device.algorithmVersion);
  }

  /**
   * Removes a terminal (`DELETE devices/{sn}/`): its record, areas and keys go. What it holds
   * stays known and its deletes stay queued (only its other unfinished commands are cancelled,
   * commands reacts to `device_removed`; its punches stay): removing a terminal from the service
   * does not remove anyone's data from the terminal. If it connects again it registers as
   * pending under its old id (`fpa_removed_devices`) and is sent the deletes it owes whatever
   * its status; approved again, it is asked for its users and backfilled like any terminal.
   */
  async remove(serial: string, by: string, scope: AreaScope = EVERYWHERE): Promise<void> {
    await this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const device = await this.records.get(serial, w.tx);
      await refuseIfSharedTerminal(w.tx, device.id, scope, 'remove');
      await this.events.record(w, 'device_removed', { device: deviceRef(device), by });
      const facts: RemovedDeviceFacts = {
        speaksBiodata: device.speaksBiodata,
        algorithmVersion: device.algorithmVersion,
        algorithmSource: device.algorithmSource,
        faceAlgorithmVersion: device.faceAlgorithmVersion,
        firmware: device.firmware,
        pushVersion: device.pushVersion,
        parameters: device.parameters,
        lastSeenAt: device.lastSeenAt,
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
    this.records.invalidate(serial);
    this.keys.forget(serial);
  }
}

/**
 * An enrollment station takes walk-up fingerprints of anyone, of every area: turning it on lets
 * whoever stands at the terminal enroll a finger as someone of another area (their template
 * replaces that person's and goes to that person's terminals). So only a caller limited to no
 * area turns it on or off (403 for one limited to areas; the rest of its PATCH is not applied
 * either). Sending the value it has already changes nothing and is let through.
 */
function refuseStationChange(scope: AreaScope, device: DeviceRow, asked: boolean | undefined): void {
  if (!isLimited(scope) || asked === undefined || asked === device.enrollmentStation) return;
  throw new FpaError(
    'forbidden',
    'only a caller not limited to areas may turn enrollment_station on or off: a station takes fingerprints of anyone, of every area',
    {
      field: 'enrollment_station',
    },
  );
}
