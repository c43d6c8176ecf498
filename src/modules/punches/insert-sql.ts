/**
 * The raw punch insert: one statement taking a chunk of rows as one JSON value
 * (platform/db/json-rows.ts), skipping duplicates; what the database decides is read back
 * with `insertSequenced` (platform/db/json-results.ts).
 */

import { getTableName } from 'drizzle-orm';
import { insertFromJsonSql, type JsonRowValue } from '../../platform/db/json-rows';
import type { NewPunch } from './tables';
import { punches } from './tables';

/** The columns of the raw punch insert, in `punchArgs` order. */
const PUNCH_COLUMNS = [
  'id',
  'device_id',
  'device_serial',
  'device_pin',
  'enrollee_id',
  'employee_key',
  'punched_at',
  'local_time',
  'utc_offset_minutes',
  'state',
  'verify_type',
  'work_code',
  'raw',
  'flags',
  'received_at',
  'source',
  'correction_reason',
] as const;
export const INSERT_PUNCHES_SQL = insertFromJsonSql(getTableName(punches), PUNCH_COLUMNS, 'on conflict do nothing');

export function punchValues(v: NewPunch): JsonRowValue[] {
  return [
    v.id,
    v.deviceId,
    v.deviceSerial,
    v.devicePin,
    v.enrolleeId,
    v.employeeKey,
    v.punchedAt,
    v.localTime,
    v.utcOffsetMinutes,
    v.state,
    v.verifyType,
    v.workCode,
    v.raw,
    JSON.stringify(v.flags),
    v.receivedAt,
    v.source ?? 'device',
    v.correctionReason ?? null,
  ];
}
