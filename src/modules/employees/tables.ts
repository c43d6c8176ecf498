import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

const createdAt = () => integer('created_at').notNull();

/** Facts recorded once, such as the employee model chosen at the first migration. */
export const meta = sqliteTable('fpa_meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/**
 * The built-in employee directory (standalone default; a host may pass its own). `deactivated_at`:
 * when an inactive employee became so (retention erases those inactive past its horizon whom no
 * person names any more); null while active.
 */
export const employees = sqliteTable('fpa_employees', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  active: integer('active', { mode: 'boolean' }).notNull().default(true),
  createdAt: createdAt(),
  deactivatedAt: integer('deactivated_at'),
});
