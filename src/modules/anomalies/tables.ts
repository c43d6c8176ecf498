import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const ANOMALY_KINDS = ['verified_without_biometric', 'impossible_travel', 'while_on_leave', 'repeated_punch'] as const;
export type AnomalyKind = (typeof ANOMALY_KINDS)[number];

/**
 * Punches that deserve a look, found as they are stored (detect.ts). Never a change to
 * attendance: the punch counts as before and carries the kind among its flags.
 */
export const anomalies = sqliteTable(
  'fpa_anomalies',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ANOMALY_KINDS }).notNull(),
    punchId: text('punch_id').notNull(),
    enrolleeId: text('enrollee_id').notNull(),
    employeeKey: text('employee_key'),
    /** Serial of the terminal (null: a manual or imported punch). */
    deviceSerial: text('device_serial'),
    /** The punch's instant (ms UTC). */
    at: integer('at').notNull(),
    /** The punch's date in the attendance zone. */
    date: text('date').notNull(),
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('fpa_anomalies_at').on(t.at, t.id), index('fpa_anomalies_punch').on(t.punchId), index('fpa_anomalies_enrollee').on(t.enrolleeId, t.at)],
);

export type AnomalyRow = typeof anomalies.$inferSelect;
