/** The jobs module's HTTP model. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Body, Instant, NoOtherProperties, Nullable, OneOf, Text } from '../../platform/http/model';

export const Job = t.Object(
  {
    name: t.String(),
    description: t.String(),
    schedule: Nullable(t.String({ description: 'Cron pattern with seconds; null for jobs only run by hand.' })),
    scheduled: t.Boolean(),
    running: t.Boolean(),
    holder: Nullable(t.String()),
    last_started_at: Nullable(Instant()),
    last_finished_at: Nullable(Instant()),
    last_status: Nullable(t.String()),
    last_result: Nullable(t.Record(t.String(), t.Unknown())),
    last_holder: Nullable(t.String()),
    next_run_at: Nullable(Instant()),
  },
  { title: 'Job' },
);

export type JobView = Static<typeof Job>;

export const JobList = t.Object({ results: t.Array(Job), next_cursor: t.Null() });
export const JobParams = t.Object({ name: t.String({ pattern: '^[a-z][a-z0-9-]{0,63}$' }) });
export const JobRun = t.Optional(
  Body(
    {
      params: t.Optional(
        // A key outside the pattern is refused, not ignored: a record allows any other key by default.
        t.Record(t.String({ pattern: '^[a-z_]{1,32}$' }), Text({ minLength: 0, maxLength: 200 }), {
          additionalProperties: NoOtherProperties,
          maxProperties: 20,
          description: 'Job parameters, e.g. `{"date": "2026-01-05"}` for generate-absences.',
        }),
      ),
    },
    { title: 'JobRun' },
  ),
);
export const JobOutcome = t.Object(
  {
    job: t.String(),
    status: OneOf(['succeeded', 'failed', 'skipped']),
    result: t.Record(t.String(), t.Unknown()),
    summary: t.String({ description: 'The one line a script prints.' }),
    started_at: Instant(),
    finished_at: Instant(),
  },
  { title: 'JobOutcome' },
);
