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
});
