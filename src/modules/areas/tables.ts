import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

const createdAt = () => integer('created_at').notNull();

// Triggers of migration 0013 count the Today board's roster version up on its changes
// (enrollees/roster.ts): a migration that rebuilds this table must create them again.
export const areas = sqliteTable('fpa_areas', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  description: text('description'),
  /** IANA zone its people's attendance is judged in (null: ATTENDANCE_TIME_ZONE). */
  timeZone: text('time_zone'),
  createdAt: createdAt(),
});
