import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Punches. `sequence` is SQLite's rowid: assigned inside the single write transaction, so a
 * later commit always carries a higher sequence and `after=<sequence>` polling never skips.
 */
export const punches = sqliteTable(
  'fpa_punches',
  {
    sequence: integer('sequence').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    deviceId: text('device_id').notNull(),
    deviceSerial: text('device_serial').notNull(),
    devicePin: text('device_pin').notNull(),
    enrolleeId: text('enrollee_id'),
    employeeKey: text('employee_key'),
    punchedAt: integer('punched_at').notNull(),
    localTime: text('local_time').notNull(),
    utcOffsetMinutes: integer('utc_offset_minutes').notNull(),
    state: integer('state').notNull(),
    verifyType: integer('verify_type').notNull(),
    workCode: text('work_code').notNull(),
    raw: text('raw').notNull(),
    flags: text('flags', { mode: 'json' }).$type<string[]>().notNull(),
    receivedAt: integer('received_at').notNull(),
  },
  (t) => [
    uniqueIndex('fpa_punches_dedup').on(t.deviceId, t.devicePin, t.localTime),
    index('fpa_punches_enrollee').on(t.enrolleeId, t.punchedAt),
    index('fpa_punches_pin').on(t.devicePin),
    index('fpa_punches_time').on(t.punchedAt),
  ],
);
