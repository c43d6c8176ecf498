/** The audit module's HTTP model. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Instant, Int, Nullable, Page, PageQuery, RangeBound, Text } from '../../platform/http/model';

export const AuditEntry = t.Object({
  id: Int(),
  actor: t.String({ description: 'Who: an administrator (token subject), `agent:<id>`, `device:<serial>`, `system` or `operator`.' }),
  actor_kind: Nullable(
    t.String({
      description: 'What kind of actor: `user`, `api_key`, `token`, `host`, `operator`, `terminal`, `job`, `agent`; null for entries older than accounts.',
    }),
  ),
  actor_id: Nullable(t.String({ description: "The actor's id: the user's or API key's id, the token's subject, the terminal's serial, the job's name." })),
  action: t.String({ description: 'What, e.g. `device.approved`, `consent.withdrawn`, `punch.voided`.' }),
  target_type: t.String(),
  target_id: Nullable(t.String()),
  at: Instant(),
  details: t.Record(t.String(), t.Unknown()),
});

export type AuditEntryView = Static<typeof AuditEntry>;

export const AuditList = {
  query: t.Object({
    actor: t.Optional(Text({ maxLength: 200 })),
    actor_kind: t.Optional(Text({ maxLength: 20, description: 'Only entries by actors of this kind.' })),
    actor_id: t.Optional(Text({ maxLength: 200, description: 'Only entries by the actor of this id (a user id, an API key id…).' })),
    action: t.Optional(Text({ maxLength: 100 })),
    from: t.Optional(RangeBound('First day (a local date of the attendance zone, inclusive) or instant.')),
    to: t.Optional(RangeBound('Last day (inclusive) or instant.')),
    ...PageQuery,
  }),
  response: Page(AuditEntry),
};
