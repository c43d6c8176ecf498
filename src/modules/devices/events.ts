/** What the devices module announces (modules/events): ids and facts only. */
import type { DeviceRow } from './tables';

/** A terminal in event data: its internal id and its serial number. */
export interface DeviceRef {
  id: string;
  serial_number: string;
}

export interface DeviceChanges {
  time_zone?: { from: string | null; to: string | null };
  name?: { from: string | null; to: string | null };
  algorithm_version?: { from: string | null; to: string | null };
  /** Area ids before and after. */
  areas?: { from: string[]; to: string[] };
  enrollment_station?: { from: boolean; to: boolean };
  /** Reported by the terminal itself. */
  firmware?: { from: string | null; to: string | null };
  /** Reported parameters that change what it can take (kinds, versions, capacity), by name. */
  parameters?: string[];
}

export interface DeviceEvents {
  device_registered: { device: DeviceRef; ip: string | null };
  device_approved: { device: DeviceRef; by: string; areas: string[] };
  device_disabled: { device: DeviceRef; by: string };
  /** Heard from again; `away_seconds` since the last contact (null for the first one). */
  device_online: { device: DeviceRef; status: string; away_seconds: number | null };
  device_offline: { device: DeviceRef; last_seen_at: string | null };
  /** Settings an administrator changed; `status` is the device's status at the time. */
  device_updated: { device: DeviceRef; by: string; status: string; changes: DeviceChanges };
  /** The terminal's clock was measured off by more than DEVICE_CLOCK_DRIFT_MAX. */
  device_clock_drifting: { device: DeviceRef; drift_seconds: number };
  /**
   * A request for an approved terminal came from an address other than the one it is pinned to
   * (ADMS_TRUST=address, no key): nothing is sent there until an administrator confirms it.
   */
  device_address_changed: { device: DeviceRef; pinned_ip: string | null; ip: string };
  /** Removed by an administrator; its punches stay. */
  device_removed: { device: DeviceRef; by: string };
}

export function deviceRef(row: DeviceRow): DeviceRef {
  return { id: row.id, serial_number: row.serialNumber };
}
