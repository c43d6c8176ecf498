/** The punch shape of every API response, event and webhook (docs/api.md). */
import type { Static } from '@sinclair/typebox';
import type { Punch } from './model';
import { NO_DEVICE, type punches } from './tables';

export type PunchView = Static<typeof Punch>;

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
    void_reason: row.voidReason ?? null,
  };
}
