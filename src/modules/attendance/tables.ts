import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const DAY_STATUSES = ['present', 'incomplete', 'absent', 'non_working_day', 'holiday', 'on_leave'] as const;

export type DayStatus = (typeof DAY_STATUSES)[number];

/**
 * A person's day. The table is stored by its primary key, person then date (`WITHOUT ROWID`,
 * migration 0010; drizzle has no word for it, so the migration's SQL is written by hand): a
 * person's days are one run of it, as they are in the employee index. Stored in the order days
 * come (a rowid table), each page held one date's days of many people, so the retention purge,
 * which deletes person by person, rewrote every page once per batch that reached it: at 10M
 * punches 33 µs a day, 10 µs stored by person (the purge in a server on a copy of that size,
 * 27 November; README, "At L"). A date's days are look-ups by person now: the board reads
 * them as one JSON value (board.ts).
 */
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
    /** The expected shift's name, or null (no shift, or a day off). */
    schedule: text('schedule'),
    expectedSeconds: integer('expected_seconds').notNull().default(0),
    lateSeconds: integer('late_seconds').notNull().default(0),
    earlyLeaveSeconds: integer('early_leave_seconds').notNull().default(0),
    overtimeSeconds: integer('overtime_seconds').notNull().default(0),
    updatedAt: integer('updated_at').notNull(),
    /**
     * The punches the day was computed from (instant, manual or imported), in time order: what a
     * report lists for it, never judged again. Null on a day without punches, and on days
     * computed before migration 0023 (reports read those as before).
     */
    punches: text('punches', { mode: 'json' }).$type<{ at: number; corrected: boolean }[]>(),
    /**
     * The IANA zone the day was judged in (the person's on its date: calendar/plan.ts `zoneOf`),
     * written whenever the day is computed: its wall times are shown in it, so a locked day
     * reads as it was locked after its area's zone changes. Null on days computed before
     * migration 0045 (they are shown in the person's zone of now, as before).
     */
    zone: text('zone'),
  },
  (t) => [
    primaryKey({ columns: [t.enrolleeId, t.date] }),
    // In the order attendance-days/ lists them (newest date first, then enrollee): a page of one
    // date is a seek and a short walk, not a sort of the whole day (10,000 people) per page. It
    // carries what the Today board reads of a date's days (board.ts), so that read walks the
    // index alone: 10,000 days a look-up each in the table took 37 ms at M, the walk 13 ms
    // (migration 0013; a day's update now rewrites its entry here too).
    index('fpa_days_date_enrollee').on(sql`${t.date} desc`, t.enrolleeId, t.status, t.firstIn, t.lastOut, t.lateSeconds, t.punchCount, t.schedule),
    index('fpa_days_employee').on(t.employeeKey, t.date),
  ],
);

/** Pay periods: dates `from`..`to` inclusive; once locked, their days never change again. */
export const payPeriods = sqliteTable(
  'fpa_pay_periods',
  {
    id: text('id').primaryKey(),
    fromDate: text('from_date').notNull(),
    toDate: text('to_date').notNull(),
    locked: integer('locked', { mode: 'boolean' }).notNull().default(false),
    lockedAt: integer('locked_at'),
    lockedBy: text('locked_by'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('fpa_pay_periods_from').on(t.fromDate)],
);
