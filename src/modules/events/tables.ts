import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The durable event log. `sequence` is assigned in the transaction that records the event, so
 * a later commit always carries a higher sequence (as for punches): following the log with
 * `after=<sequence>` never skips an event. AUTOINCREMENT keeps sequences from being reused
 * after the newest rows were purged.
 */
export const eventLog = sqliteTable('fpa_events', {
  sequence: integer('sequence').primaryKey({ autoIncrement: true }),
  /** Stable public id (`evt_…`): the `webhook-id` of every delivery of this event. */
  id: text('id').notNull(),
  type: text('type').notNull(),
  at: integer('at').notNull(),
  /** JSON: ids and facts, never template bytes, keys or secrets. */
  data: text('data').notNull(),
  /**
   * Whom the event is about (subjects.ts), as recorded: the person (enrollee id) and the terminal
   * (serial number). A reader limited to areas is answered newest first on these (newest.ts), in
   * the query, instead of reading every event's data (a punch's is its row) to filter it.
   */
  aboutEnrollee: text('about_enrollee'),
  aboutDevice: text('about_device'),
});

/**
 * Where each follower of the log stands: every event up to `position` has been applied to its
 * derived state, in the same transaction as that state (so a crash neither loses nor repeats one).
 */
export const logFollowers = sqliteTable('fpa_log_followers', {
  name: text('name').primaryKey(),
  position: integer('position').notNull(),
  /**
   * Where the follower stopped inside the event after `position`, when one step could not apply
   * all of it (follower.ts, `FollowerStop`): `{ "at": sequence, "state": … }`; null otherwise.
   */
  resume: text('resume'),
  updatedAt: integer('updated_at').notNull(),
});
