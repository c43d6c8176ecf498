/**
 * What terminals report about themselves (firmware, counts, algorithm versions, parameters, the
 * time zone offset they were last sent) and what is measured of their clocks: the drift and the
 * history of the offsets each was told. A change in what a terminal can take is announced
 * (`device_updated`); the modules above react to it.
 */
import { asc, eq } from 'drizzle-orm';
import type { Queryable, WriteContext } from '../../platform/db/client';
import type { EventChannel } from '../events';
import { noteOnDevice } from './device-log';
import { type DeviceChanges, type DeviceEvents, deviceRef } from './events';
import { nextParameters, type ParameterMode } from './parameters';
import type { DeviceRecords } from './records';
import type { DeviceRuntime } from './runtime';
import { type DeviceRow, deviceClockOffsets, devices } from './tables';

/** What a terminal said about itself, as one record (terminals/info-reports.ts maps the wire onto it). */
export interface DeviceReport {
  firmware?: string | null;
  userCount?: number | null;
  fingerprintCount?: number | null;
  attendanceCount?: number | null;
  /** The address the terminal reports for itself (`IPAddress`): never the one the service sees it at. */
  reportedAddress?: string | null;
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

/** Told of a terminal's attendance record count (`TransactionCount`), in the write that records it. */
export type AttendanceCountListener = (w: WriteContext, device: DeviceRow, count: number, at: number) => Promise<void>;

/** Told of a terminal's user count (`UserCount`), in the write that records it; `device` is the row before it. */
export type UserCountListener = (w: WriteContext, device: DeviceRow, count: number) => Promise<void>;

export class DeviceReports {
  private readonly countListeners: AttendanceCountListener[] = [];
  private readonly userCountListeners: UserCountListener[] = [];

  constructor(
    private readonly ctx: DeviceRuntime,
    private readonly events: EventChannel<DeviceEvents>,
    private readonly records: DeviceRecords,
  ) {}

  /**
   * Wired by the composition root: told, in the write that records it, each attendance record
   * count (`TransactionCount`) a terminal reports that differs from the one it reported before.
   */
  onAttendanceCount(listener: AttendanceCountListener): void {
    this.countListeners.push(listener);
  }

  /**
   * Wired by the composition root: told, in the write that records it, each user count a terminal
   * reports that differs from the one it reported before (a terminal reset to factory settings
   * reports none: fleet/reconcile.ts `usersReported`).
   */
  onUserCount(listener: UserCountListener): void {
    this.userCountListeners.push(listener);
  }

  /** Facts the terminal reported (getrequest INFO=, table=options, INFO command result). */
  async recordReport(device: DeviceRow, report: DeviceReport): Promise<DeviceRow> {
    const now = this.ctx.clock.now();
    const set: Partial<DeviceRow> = { updatedAt: now };
    if (report.firmware) set.firmware = report.firmware;
    if (report.userCount != null) set.userCount = report.userCount;
    if (report.fingerprintCount != null) set.fingerprintCount = report.fingerprintCount;
    if (report.attendanceCount != null) set.attendanceCount = report.attendanceCount;
    if (report.reportedAddress) set.reportedAddress = report.reportedAddress;
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
      if (report.userCount != null && report.userCount !== device.userCount) {
        for (const listener of this.userCountListeners) await listener(w, device, report.userCount);
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
    this.records.invalidate(device.serialNumber);
    return { ...device, ...set };
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
    this.records.invalidate(device.serialNumber);
  }

  /** The offsets a terminal was told, oldest first (reading its wall times). */
  async clockOffsets(q: Queryable, deviceId: string): Promise<{ since: number; offsetMinutes: number }[]> {
    return q
      .select({ since: deviceClockOffsets.since, offsetMinutes: deviceClockOffsets.offsetMinutes })
      .from(deviceClockOffsets)
      .where(eq(deviceClockOffsets.deviceId, deviceId))
      .orderBy(asc(deviceClockOffsets.since));
  }
}

/**
 * Reported parameters that change what a terminal can take: the kinds and versions it declares
 * and its capacity. A change lets its failed and incompatible templates be looked at again.
 */
const CAPABILITY_PARAMETERS = [
  'MultiBioDataSupport',
  'MultiBioVersion',
  'FingerFunOn',
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
