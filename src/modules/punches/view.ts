/** The punch shape of every API response, event and webhook (docs/api.md). */
import { NO_DEVICE, type PunchSource, type punches } from './tables';

export interface PunchView {
  sequence: number;
  id: string;
  employee: string | null;
  enrollee: string | null;
  device_pin: string;
  /** Serial number of the terminal; null for manual and imported punches. */
  device: string | null;
  punched_at: string;
  local_time: string;
  utc_offset_minutes: number;
  state: number;
  verify_type: number;
  work_code: string;
  flags: string[];
  received_at: string;
  source: PunchSource;
  /** Voided by an administrator: still listed, no longer counted for attendance. */
  voided: boolean;
  /** The reason given for a manual punch, or for voiding it; null otherwise. */
  correction_reason: string | null;
}

export function punchView(row: typeof punches.$inferSelect): PunchView {
  return {
    sequence: row.sequence,
    id: row.id,
    employee: row.employeeKey,
    enrollee: row.enrolleeId,
    device_pin: row.devicePin,
    device: row.deviceId === NO_DEVICE ? null : row.deviceSerial,
    punched_at: new Date(row.punchedAt).toISOString(),
    local_time: row.localTime,
    utc_offset_minutes: row.utcOffsetMinutes,
    state: row.state,
    verify_type: row.verifyType,
    work_code: row.workCode,
    flags: row.flags,
    received_at: new Date(row.receivedAt).toISOString(),
    source: row.source,
    voided: row.voided,
    correction_reason: row.correctionReason ?? null,
  };
}
