import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const DAY_STATUSES = ['present', 'incomplete', 'absent', 'non_working_day'] as const;

export type DayStatus = (typeof DAY_STATUSES)[number];

export const attendanceDays = sqliteTable(
  'fpa_attendance_days',
  {
    enrolleeId: text('enrollee_id').notNull(),
    employeeKey: text('employee_key').notNull(),
    date: text('date').notNull(),
    firstIn: integer('first_in'),
    lastOut: integer('last_out'),
    workedSeconds: integer('worked_seconds').notNull(),
    punchCount: integer('punch_count').notNull(),
    status: text('status', { enum: DAY_STATUSES }).notNull(),
    flags: text('flags', { mode: 'json' }).$type<string[]>().notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.enrolleeId, t.date] }), index('fpa_days_date').on(t.date), index('fpa_days_employee').on(t.employeeKey, t.date)],
);
