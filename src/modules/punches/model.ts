/** The punches module's HTTP model. */
import { t } from 'elysia';
import { Body, DigitsText, Instant, Int, Nullable, OneOf, Page, PageQuery, RangeBound, Text, Uuid } from '../../platform/http/model';
import { PUNCH_SOURCES } from './tables';

export const Punch = t.Object(
  {
    sequence: Int({ description: 'Assigned in commit order; the polling cursor.' }),
    id: t.String({ format: 'uuid' }),
    employee: Nullable(t.String()),
    enrollee: Nullable(t.String({ format: 'uuid' })),
    device_pin: t.String(),
    device: Nullable(t.String({ description: 'Serial number of the terminal; null for manual and imported punches.' })),
    punched_at: Instant('UTC instant.'),
    local_time: t.String({
      description: 'Wall time on the terminal, as sent (manual and imported punches: in the person’s time zone, their areas’ or else ATTENDANCE_TIME_ZONE).',
    }),
    utc_offset_minutes: Int(),
    state: Int(),
    verify_type: Int(),
    work_code: t.String(),
    flags: t.Array(t.String(), {
      description:
        'For example `unknown_pin` (a terminal’s own user), `stale_offset`, `dst_overlap`, `dst_gap`, `clock_ahead` (dated after it arrived: the terminal’s clock ran ahead), `future_time` (more than a day ahead), `clock_reset`, `unknown_state` (the terminal sent a state that could not be read; `state` is 0), `unknown_verify` (a verify mode that is no number, such as `FP`; `verify_type` is 0), `after_lock` (its date was in a locked pay period).',
    }),
    received_at: Instant(),
    source: OneOf(PUNCH_SOURCES, 'Where it came from: a terminal, an administrator (`punches/manual/`) or a file (`punches/import/`).'),
    voided: t.Boolean({ description: 'Voided by an administrator: still listed, no longer counted for attendance.' }),
    correction_reason: Nullable(
      t.String({
        description: 'The reason an administrator gave for entering this punch by hand (a manual punch); null for other punches. A void does not change it.',
      }),
    ),
    void_reason: Nullable(t.String({ description: 'The reason an administrator gave for voiding this punch; null while it is not voided.' })),
  },
  { title: 'Punch' },
);

/** `?after=`: a non-negative sequence (as text, so a too-large number is refused rather than rounded). */
export const After = DigitsText('The last sequence already seen; 0 or absent for the start.');

export const PunchLatest = {
  query: t.Object({ after: t.Optional(After), limit: PageQuery.limit }),
  response: t.Object({ results: t.Array(Punch), last_sequence: Int({ description: 'Pass as `after` in the next poll.' }) }),
};

export const PunchList = {
  query: t.Object({
    employee: t.Optional(Text({ maxLength: 200 })),
    device: t.Optional(t.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' })),
    source: t.Optional(OneOf(PUNCH_SOURCES)),
    from: t.Optional(RangeBound('First day (a date in ATTENDANCE_TIME_ZONE, inclusive; not the terminal’s own date) or instant.')),
    to: t.Optional(RangeBound('Last day (a date in ATTENDANCE_TIME_ZONE, inclusive) or instant (inclusive).')),
    ...PageQuery,
  }),
  response: Page(Punch),
};

const PunchTime = Text({
  maxLength: 40,
  description:
    'An ISO 8601 instant (`2026-03-09T08:00:00Z`, `…+05:30`) or a wall time in the person’s time zone (their areas’, else ATTENDANCE_TIME_ZONE: `2026-03-09 08:00`).',
});
const Reason = Text({
  maxLength: 500,
  description: 'Why (not blank: spaces alone are refused; kept without the spaces around it): in the audit log with who did it.',
});

export const PunchManual = {
  body: Body(
    {
      enrollee: Text({ maxLength: 100, description: 'The enrollee (UUID or device PIN).' }),
      at: PunchTime,
      state: t.Optional(Int({ minimum: 0, maximum: 255, description: 'Punch state as terminals send it (0 check-in, 1 check-out, …); default 0.' })),
      reason: Reason,
    },
    { title: 'PunchManual' },
  ),
  response: Punch,
};

export const PunchImport = {
  /** Read by readRecordsBody; each record is checked on its own (import-rows.ts), so a bad one costs only itself. */
  body: t.Union([
    t.String({
      contentMediaType: 'text/csv',
      description:
        'A header row naming `employee`, `at` and optionally `state`, then one punch a line. Columns separated by commas, or by semicolons when the header row has semicolons and no comma (Excel in many European locales).',
    }),
    t.Array(t.Unknown(), {
      description:
        '`application/json`: records `{ "employee", "at", "state"? }`; `at` an ISO 8601 instant or a local time of the person’s time zone (their areas’, else ATTENDANCE_TIME_ZONE).',
    }),
  ]),
  query: t.Object({
    dry_run: t.Optional(t.Boolean({ description: 'Check the file and answer what an import would do; store nothing.' })),
  }),
  response: t.Object({
    dry_run: t.Boolean({ description: 'True: nothing was stored; the counts say what an import would do.' }),
    imported: Int({ description: 'Punches stored now (dry run: that would be).' }),
    duplicates: Int({ description: 'Records of punches already stored (same enrollee, same instant) or repeated in the file.' }),
    errors: t.Array(
      t.Object({
        line: Int({ description: 'CSV: the line the record starts on (the header is line 1); JSON: its 1-based position.' }),
        message: t.String(),
      }),
      { description: 'Records not used; nothing of them is stored.' },
    ),
  }),
};

export const PunchVoid = {
  params: t.Object({ id: Uuid() }),
  body: Body({ reason: Reason }, { title: 'PunchVoid' }),
  response: Punch,
};

export const StreamQuery = t.Object({
  after: t.Optional(After),
  access_token: t.Optional(Text({ maxLength: 4096, description: 'Administrator JWT, for browsers that cannot set headers on a WebSocket.' })),
});
