import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Holidays. Scope: one enrollee (`enrollee_id`), some areas (`area_ids`), or everyone (neither).
 * A recurring holiday repeats on its month and day every year from its own year on; a
 * cancelled row says "no holiday on this date" for its scope and wins over any other row.
 */
export const holidays = sqliteTable(
  'fpa_holidays',
  {
    id: text('id').primaryKey(),
    date: text('date').notNull(),
    name: text('name').notNull(),
    recurring: integer('recurring', { mode: 'boolean' }).notNull().default(false),
    cancelled: integer('cancelled', { mode: 'boolean' }).notNull().default(false),
    areaIds: text('area_ids', { mode: 'json' }).$type<string[]>().notNull(),
    enrolleeId: text('enrollee_id'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('fpa_holidays_date').on(t.date)],
);

/** Work schedules: wall times in the person's zone (their area's, else ATTENDANCE_TIME_ZONE); an end not after the start is on the next day. */
export const workSchedules = sqliteTable('fpa_work_schedules', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  start: text('start').notNull(),
  end: text('end').notNull(),
  graceInMs: integer('grace_in_ms').notNull(),
  graceOutMs: integer('grace_out_ms').notNull(),
  breakMs: integer('break_ms').notNull(),
  /** Weekdays the shift starts on (0 = Sunday); null: every day that is not the person's weekend. */
  weekdays: text('weekdays', { mode: 'json' }).$type<number[] | null>(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/** A schedule assigned to one enrollee or one area over dates (`to_date` null: open-ended). */
export const shiftAssignments = sqliteTable(
  'fpa_shift_assignments',
  {
    id: text('id').primaryKey(),
    scheduleId: text('schedule_id').notNull(),
    enrolleeId: text('enrollee_id'),
    areaId: text('area_id'),
    fromDate: text('from_date').notNull(),
    toDate: text('to_date'),
    priority: integer('priority').notNull().default(0),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    index('fpa_shift_assignments_enrollee').on(t.enrolleeId),
    index('fpa_shift_assignments_area').on(t.areaId),
    index('fpa_shift_assignments_schedule').on(t.scheduleId),
    // The list's order and its cursor (shift-assignments/, a page at a time).
    index('fpa_shift_assignments_from').on(t.fromDate, t.id),
  ],
);

export const leaves = sqliteTable(
  'fpa_leaves',
  {
    id: text('id').primaryKey(),
    enrolleeId: text('enrollee_id').notNull(),
    fromDate: text('from_date').notNull(),
    toDate: text('to_date').notNull(),
    kind: text('kind').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('fpa_leaves_enrollee').on(t.enrolleeId, t.fromDate)],
);

/** The first date of every weekend row that has no `from`: it applies to all dates. */
export const ALWAYS = '0000-01-01';

/** An area's weekend from a date on (the row with the latest `from_date` not after a date applies). */
export const areaWeekends = sqliteTable(
  'fpa_area_weekends',
  {
    id: text('id').primaryKey(),
    areaId: text('area_id').notNull(),
    fromDate: text('from_date').notNull(),
    days: text('days', { mode: 'json' }).$type<number[]>().notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('fpa_area_weekends_area_from').on(t.areaId, t.fromDate)],
);
