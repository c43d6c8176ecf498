/** The health module's HTTP model. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Instant, Int, Nullable, OneOf } from '../../platform/http/model';

export const Health = t.Object({
  status: OneOf(['ok']),
  at: Instant(),
  terminals: t.Object({
    online: Int({ description: 'Approved terminals heard from within DEVICE_OFFLINE_AFTER.' }),
    offline: Int(),
    pending: Int({ description: 'Waiting for approval.' }),
    disabled: Int(),
  }),
  commands: t.Object({
    pending: Int({ description: 'Waiting to be sent or answered.' }),
    failed: Int(),
    deletes_pending: Int({
      description:
        'Of the pending, the deletes (a withdrawn or deleted person’s data, a user taken off): they never expire, and wait for terminals offline or removed.',
    }),
  }),
  webhooks: t.Object({
    status: OneOf(
      ['ok', 'warning'],
      '`warning` while an endpoint is disabled (its messages are held), dead letters are kept, or an endpoint has failed for 10 minutes: payroll is missing messages; the rest of the service is not affected.',
    ),
    backlog: Int({ description: 'Messages not delivered yet, those held for disabled endpoints included.' }),
    held: Int({ description: 'Of the backlog, the messages held for disabled endpoints (sent once enabled).' }),
    oldest_pending_at: Nullable(Instant()),
    oldest_pending_age_seconds: Nullable(Int()),
    endpoints_disabled: Int({ description: 'Endpoints disabled (410 Gone, or failing for WEBHOOK_DISABLE_AFTER).' }),
    dead_letters: Int({ description: 'Messages dead-lettered within RETENTION_DELIVERIES_DAYS and not sent again since (`recover`, `redeliver`).' }),
    attention: t.Array(
      t.Object({
        endpoint: t.String({ format: 'uuid' }),
        disabled: t.Boolean(),
        failing_since: Nullable(
          Instant(
            'Since when every delivery to it failed: an active endpoint once for 10 minutes or more; a disabled one, as its own view says (null when disabled by hand).',
          ),
        ),
        held: Int({ description: 'Its messages held until it is enabled (0 while active).' }),
        dead_letters: Int(),
      }),
      { description: 'The endpoints that need someone: disabled, holding dead letters, or failing for 10 minutes.' },
    ),
  }),
  jobs: t.Array(t.Object({ name: t.String(), last_status: Nullable(t.String()), last_finished_at: Nullable(Instant()), next_run_at: Nullable(Instant()) })),
  punches_today: Int({ description: 'Punches since midnight in ATTENDANCE_TIME_ZONE.' }),
});

export type HealthView = Static<typeof Health>;
