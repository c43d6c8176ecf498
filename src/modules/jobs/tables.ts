import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** One row per periodic job: who holds it, until when, and how the last run went. */
export const jobLeases = sqliteTable('fpa_job_leases', {
  name: text('name').primaryKey(),
  holder: text('holder'),
  leaseUntil: integer('lease_until'),
  lastStartedAt: integer('last_started_at'),
  lastFinishedAt: integer('last_finished_at'),
  lastStatus: text('last_status'),
  lastResult: text('last_result', { mode: 'json' }).$type<Record<string, unknown>>(),
  lastHolder: text('last_holder'),
  /**
   * The latest scheduled slot (the time its schedule fired for, ms) an instance claimed a run of:
   * a tick for this slot or an earlier one is skipped, whichever instance it comes from. Runs on
   * request leave it alone.
   */
  lastSlot: integer('last_slot'),
});
