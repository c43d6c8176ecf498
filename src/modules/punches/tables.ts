import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Where a punch came from: a terminal, an administrator's correction, or an imported file. */
export const PUNCH_SOURCES = ['device', 'manual', 'import'] as const;
export type PunchSource = (typeof PUNCH_SOURCES)[number];

/**
 * The `device_id` of punches no terminal sent (manual and imported ones): never a real device's
 * id (those are UUIDs), so the dedupe index below keeps one device-less punch per (PIN, local time).
 */
export const NO_DEVICE = '';

/**
 * A terminal's punch dated later than the moment it arrived, `received_at` (by more than the drift
 * tolerance DEVICE_CLOCK_DRIFT_MAX, at least a minute: the terminal's clock runs ahead), flagged
 * as it is stored (service.ts `storeUpload`): its day is to be reviewed (attendance's `clock_ahead`).
 */
export const CLOCK_AHEAD_FLAG = 'clock_ahead';

/**
 * A terminal's punch dated before 2001 (terminals/ingest.ts): its clock started over from its
 * first date (a flat clock battery sets 2000-01-01 at power-up), so the date is wrong; its day is
 * to be reviewed (attendance's `clock_reset`).
 */
export const CLOCK_RESET_FLAG = 'clock_reset';

/**
 * Every punch dated before this instant is one of a clock that started over (`clock_reset`: its
 * local year before 2001, in any zone, is before 2001-01-01T12:00Z). Retention cannot judge such
 * a punch by its date, which is years in the past from the moment it arrives: it keeps it as long
 * as punches received when it was received (retention/service.ts), so HR can review its day.
 */
export const RESET_CLOCK_DATED_BEFORE = Date.UTC(2001, 0, 1, 12);

/**
 * The punches whose day HR is to review, as SQL: those a terminal sent from an address other than
 * the one it is pinned to (`new_address`: devices/identity.ts NEW_ADDRESS_FLAG), those dated after
 * they arrived (`clock_ahead`), those at a wall time the fall-back night showed twice
 * (`dst_overlap`: platform/time/zone.ts, terminals/ingest.ts) and those of a clock started over
 * (`clock_reset`). The condition of their partial index below, written exactly so in a query for
 * SQLite to use that index.
 */
export const TO_REVIEW_SQL = `(flags like '%"new_address"%' or flags like '%"${CLOCK_AHEAD_FLAG}"%' or flags like '%"dst_overlap"%' or flags like '%"${CLOCK_RESET_FLAG}"%')`;

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
    source: text('source', { enum: PUNCH_SOURCES }).notNull().default('device'),
    /** A voided punch stays listed but no longer counts for attendance (corrections.ts). */
    voided: integer('voided', { mode: 'boolean' }).notNull().default(false),
    /** The reason an administrator gave for entering the punch by hand (manual punches). */
    correctionReason: text('correction_reason'),
    /** The reason an administrator gave for voiding the punch (corrections.ts). */
    voidReason: text('void_reason'),
  },
  (t) => [
    // One punch per (terminal, PIN, local time), the terminal's local date second: a terminal's
    // upload of a day lands in one run of the index, and a day's purge empties runs instead of
    // taking four entries out of every person's run of all history (one page per person, a
    // random page of a large index at each insert and each delete). The date is the wall time's
    // own first ten characters, so the rule is the same.
    uniqueIndex('fpa_punches_dedup').on(t.deviceId, sql`substr(${t.localTime}, 1, 10)`, t.devicePin, t.localTime),
    // An enrollee's punches, bucketed by UTC day (`punched_at / 86400000`, see buckets.ts): a day's
    // punches land in that day's corner of the index, a few pages that stay in cache, instead of
    // one random page per punch across all of history (which made this index most of the cost
    // of storing a punch). It holds what attendance reads of every punch (`countedIn`): no row read.
    // Also the index of ranges by instant alone (buckets.ts `punchedWithin`): no index on
    // `punched_at` by itself, one fewer for every punch stored.
    index('fpa_punches_enrollee_day').on(sql`${t.punchedAt} / 86400000`, t.enrolleeId, t.punchedAt, t.voided, t.source),
    // The few punches whose day is to be reviewed (an unconfirmed address, a clock ahead, an hour
    // shown twice, a clock started over), by enrollee and time: attendance marks the days they count for (`countedIn`)
    // with one look-up here, not a row read of every punch it counts (the index above has no
    // flags). Nearly empty on a fleet whose terminals stay where they are pinned, on time.
    index('fpa_punches_to_review').on(t.enrolleeId, t.punchedAt).where(sql.raw(TO_REVIEW_SQL)),
  ],
);

export type PunchRow = typeof punches.$inferSelect;

/** A punch row before the database gives it its sequence. */
export type NewPunch = Omit<PunchRow, 'sequence' | 'source' | 'voided' | 'correctionReason' | 'voidReason'> & {
  source?: PunchSource;
  correctionReason?: string | null;
};
