/** The audit module's HTTP model. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Instant, Int, Nullable, Page, PageQuery, RangeBound, Text } from '../../platform/http/model';

export const AuditEntry = t.Object({
  id: Int(),
  actor: t.String({ description: 'Who: an administrator (token subject), `agent:<id>`, `device:<serial>`, `system` or `operator`.' }),
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
    action: t.Optional(Text({ maxLength: 100 })),
    target: t.Optional(Text({ maxLength: 200, description: 'What the change was made to: a person’s id, a terminal’s serial…' })),
    from: t.Optional(RangeBound('First day (a local date of the attendance zone, inclusive) or instant.')),
    to: t.Optional(RangeBound('Last day (inclusive) or instant.')),
    ...PageQuery,
  }),
  response: Page(AuditEntry),
};
