/** The punches module's HTTP model. */
import { t } from 'elysia';
import { Instant, Int, Nullable, Page, PageQuery, RangeBound, Text } from '../../platform/http/model';

export const Punch = t.Object(
  {
    sequence: Int({ description: 'Assigned in commit order; the polling cursor.' }),
    id: t.String({ format: 'uuid' }),
    employee: Nullable(t.String()),
    enrollee: Nullable(t.String({ format: 'uuid' })),
    device_pin: t.String(),
    device: t.String({ description: 'Serial number of the terminal.' }),
    punched_at: Instant('UTC instant.'),
    local_time: t.String({ description: 'Wall time on the terminal, as sent.' }),
    utc_offset_minutes: Int(),
    state: Int(),
    verify_type: Int(),
    work_code: t.String(),
    flags: t.Array(t.String(), { description: 'For example `unknown_pin`, `dst_overlap`, `dst_gap`, `future_time`, `clock_reset`.' }),
    received_at: Instant(),
  },
  { title: 'Punch' },
);

/** `?after=`: a non-negative sequence (as text, so a too-large number is refused rather than rounded). */
export const After = t.String({ pattern: '^\\d{1,15}$', description: 'The last sequence already seen; 0 or absent for the start.' });

export const PunchLatest = {
  query: t.Object({ after: t.Optional(After), limit: PageQuery.limit }),
  response: t.Object({ results: t.Array(Punch), last_sequence: Int({ description: 'Pass as `after` in the next poll.' }) }),
};

export const PunchList = {
  query: t.Object({
    employee: t.Optional(Text({ maxLength: 200 })),
    device: t.Optional(t.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' })),
    from: t.Optional(RangeBound('First day (a local date, inclusive) or instant.')),
    to: t.Optional(RangeBound('Last day (a local date, inclusive) or instant (inclusive).')),
    ...PageQuery,
  }),
  response: Page(Punch),
};

export const StreamQuery = t.Object({
  after: t.Optional(After),
  access_token: t.Optional(Text({ maxLength: 4096, description: 'Administrator JWT, for browsers that cannot set headers on a WebSocket.' })),
});
