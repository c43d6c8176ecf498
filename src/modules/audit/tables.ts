import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

const createdAt = () => integer('created_at').notNull();

export const auditLog = sqliteTable(
  'fpa_audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    actor: text('actor').notNull(),
    /** `user`, `api_key`, `token`, `host`, `operator`, `terminal`, `job`, `agent` (null: not known, rows before issue 25). */
    actorKind: text('actor_kind'),
    actorId: text('actor_id'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [
    // By id alone: `audit-log/?target=` names the thing, not its kind.
    index('fpa_audit_target').on(t.targetId),
    index('fpa_audit_created').on(t.createdAt),
    index('fpa_audit_actor').on(t.actorKind, t.actorId),
    // The person an entry is about when its target is something of theirs (a leave, a punch, a
    // shift assignment): `audit-log/?target=<person>` finds those too.
    index('fpa_audit_person').on(sql`json_extract(${t.details}, '$.enrollee')`),
  ],
);
