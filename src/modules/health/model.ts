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
  commands: t.Object({ pending: Int({ description: 'Waiting to be sent or answered.' }), failed: Int() }),
  webhooks: t.Object({
    backlog: Int({ description: 'Messages not delivered yet.' }),
    oldest_pending_at: Nullable(Instant()),
    oldest_pending_age_seconds: Nullable(Int()),
  }),
  jobs: t.Array(t.Object({ name: t.String(), last_status: Nullable(t.String()), last_finished_at: Nullable(Instant()), next_run_at: Nullable(Instant()) })),
  punches_today: Int({ description: 'Punches since midnight in ATTENDANCE_TIME_ZONE.' }),
});

export type HealthView = Static<typeof Health>;
