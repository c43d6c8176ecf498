import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const createdAt = () => integer('created_at').notNull();

/** Counters decided in the database (device PINs), so several instances never collide. */
export const counters = sqliteTable('fpa_counters', {
  name: text('name').primaryKey(),
  value: integer('value').notNull(),
});

export const ENROLLEE_STATUSES = ['active', 'deactivated', 'deleted'] as const;

export type EnrolleeStatus = (typeof ENROLLEE_STATUSES)[number];

// Triggers of migration 0013 count the Today board's roster version up on its changes
// (enrollees/roster.ts): a migration that rebuilds this table must create them again.
export const enrollees = sqliteTable(
  'fpa_enrollees',
  {
    id: text('id').primaryKey(),
    employeeKey: text('employee_key').notNull(),
    devicePin: text('device_pin').notNull().unique(),
    displayName: text('display_name').notNull(),
    /**
     * The name as the sort by name orders it: folded, ignoring accents and case (platform/
     * name-key.ts), written with the name. Migration 0039 adds it empty; each start fills those
     * of the people stored before (a SQL migration cannot fold accents: changes.ts `keyNames`).
     */
    nameKey: text('name_key').notNull(),
    /** The card number (decimal) sent to terminals with the user; one enrollee per card (a deleted one lets go of it). */
    card: text('card'),
    /**
     * An administrator removed the person's card (and has not set one since): no card is their
     * decision, so a terminal still holding the old badge, or any other, is corrected rather than
     * copied (card-rules.ts `cardFromTerminal`).
     */
    cardRemoved: integer('card_removed', { mode: 'boolean' }).notNull().default(false),
    /**
     * The service handed this PIN out (true) rather than an adopted terminal user keeping theirs
     * (false). An allocated PIN was held by no terminal then, so wherever it appears afterwards it
     * is this enrollee (enrollment/walk-up.ts); an adopted one may be another person elsewhere.
     */
    pinAllocated: integer('pin_allocated', { mode: 'boolean' }).notNull().default(true),
    status: text('status', { enum: ENROLLEE_STATUSES }).notNull().default('active'),
    deactivatedAt: integer('deactivated_at'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    // The sorts of `enrollees/` (search.ts), each ending with the id so that a cursor seeks.
    index('fpa_enrollees_employee').on(t.employeeKey, t.id),
    index('fpa_enrollees_name_key').on(t.nameKey, t.id),
    index('fpa_enrollees_pin_number').on(sql`cast(${t.devicePin} as integer)`, t.id),
    index('fpa_enrollees_created').on(t.createdAt, t.id),
    uniqueIndex('fpa_enrollees_card').on(t.card),
  ],
);

// Triggers of migration 0013 count the Today board's roster version up on its changes
// (enrollees/roster.ts): a migration that rebuilds this table must create them again.
export const enrolleeAreas = sqliteTable(
  'fpa_enrollee_areas',
  {
    enrolleeId: text('enrollee_id').notNull(),
    areaId: text('area_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.enrolleeId, t.areaId] }), index('fpa_enrollee_areas_area').on(t.areaId)],
);

/**
 * Area membership is dated by its changes: each row holds the areas a person had before a
 * change, so the calendar plans a date before the move with the areas of then (calendar/
 * service.ts `people`) and a move never re-judges the days before it. A person's moves are in
 * the order the database stored them (`rowid`), never by `changed_at`: instances' clocks differ.
 */
export const enrolleeAreaChanges = sqliteTable(
  'fpa_enrollee_area_changes',
  {
    enrolleeId: text('enrollee_id').notNull(),
    changedAt: integer('changed_at').notNull(),
    /** The area ids before the change. */
    areasBefore: text('areas_before', { mode: 'json' }).$type<string[]>().notNull(),
    /**
     * The first date judged under the new areas (the local date after the move's, or a later
     * move's before it); null on moves recorded before migration 0025, which take effect on
     * the date after `changed_at`'s in ATTENDANCE_TIME_ZONE.
     */
    effectiveFrom: text('effective_from'),
    /**
     * When the terminals of the areas left let go of the person: null until the move's effective
     * date begins and job `follow-area-moves` takes them off those terminals (fleet/area-moves.ts);
     * meanwhile those areas still count as the person's for the fleet (area-membership.ts
     * `terminalAreaIdsOf`). Moves recorded before migration 0028 took them off at once: their
     * `changed_at`.
     */
    terminalsLeftAt: integer('terminals_left_at'),
  },
  (t) => [
    primaryKey({ columns: [t.enrolleeId, t.changedAt] }),
    // The few moves whose terminals still hold the person, by the date they let go.
    index('fpa_enrollee_area_changes_pending').on(t.effectiveFrom).where(sql`terminals_left_at is null`),
  ],
);

export type EnrolleeRow = typeof enrollees.$inferSelect;
