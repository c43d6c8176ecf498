/** Models of `devices/{sn}/completeness/` (API.md, "Proof"). */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Instant, Int, LocalDate, Nullable, OneOf } from '../../platform/http/model';
import { RECOVERY_REASONS, RECOVERY_STATUSES } from './tables';

export const CompletenessQuery = t.Object({
  from: t.Optional(LocalDate('First local date of the terminal, inclusive (default: 30 days before `to`).')),
  to: t.Optional(LocalDate('Last local date, inclusive (default: today in the terminal’s zone); at most 366 days after `from`.')),
});

export const COMPLETENESS_STATUSES = ['complete', 'recovering', 'gap', 'possible_gap', 'unknown'] as const;

export const CompletenessDay = t.Object(
  {
    date: t.String({ description: 'A local date of the terminal.' }),
    stored: Int({ description: 'Punches kept from this terminal on that date (voided ones included).' }),
    reported: Nullable(
      Int({
        description:
          'Records of that date the terminal said it holds, as of `reported_at` (in `reported_from`–`reported_to` for a re-upload); null: it said nothing of that date.',
      }),
    ),
    reported_at: Nullable(Instant('When the terminal said so.')),
    reported_by: Nullable(
      OneOf(
        ['reupload', 'count'],
        '`reupload`: the distinct records it re-sent for that date, within `reported_from`–`reported_to`; `count`: its total record count agreed with the punches stored from it at `reported_at`, so every record of that date up to then is stored: `reported` is how many of that date were stored then.',
      ),
    ),
    reported_from: Nullable(
      t.String({
        description:
          'For `reupload`: the first wall time of that date the re-upload asked for (`YYYY-MM-DD HH:MM:SS`, the terminal’s clock): the date’s midnight, or later when its range began on that date. Null otherwise.',
      }),
    ),
    reported_to: Nullable(t.String({ description: 'For `reupload`: the last wall time of that date the re-upload asked for. Null otherwise.' })),
    recovered: Int({ description: 'Punches of that date found by re-uploads (not stored before).' }),
    status: OneOf(
      COMPLETENESS_STATUSES,
      '`complete`: everything the terminal holds for that date is stored; `recovering`: a re-upload is under way; `gap`: the terminal holds records of that date not stored, not recovered yet; `possible_gap`: records are missing (`counts.missing`, or lost with a cleared log: `counts.missing_at_clear`) and this is one of several dates they may bear, which one is not known; `unknown`: the terminal said nothing since, or it was not connected then.',
    ),
  },
  { title: 'CompletenessDay' },
);

export const Recovery = t.Object(
  {
    id: t.String(),
    reason: OneOf(RECOVERY_REASONS),
    from: t.String({ description: 'Start of the range asked, terminal wall time.' }),
    to: t.String(),
    status: OneOf(RECOVERY_STATUSES),
    command: Nullable(Int({ description: 'The `reupload_logs` command (`devices/{sn}/commands/`).' })),
    missing: Nullable(Int({ description: 'Records the counts said were missing (count_mismatch).' })),
    recovered: Nullable(Int()),
    return_code: Nullable(Int()),
    queued_at: Instant(),
    finished_at: Nullable(Instant()),
  },
  { title: 'PunchRecovery' },
);

export const CompletenessReport = t.Object(
  {
    serial_number: t.String(),
    from: t.String(),
    to: t.String(),
    counts: t.Object({
      reported: Nullable(Int({ description: 'The record count (`TransactionCount`) the terminal last reported.' })),
      reported_at: Nullable(Instant()),
      agreed_at: Nullable(Instant('When its count last agreed with the punches stored from it.')),
      missing: Nullable(Int({ description: 'Records missing by the counts, while a gap is open.' })),
      cleared_at: Nullable(Instant('When the terminal last reported a count below the one before: its log cleared, or the terminal reset.')),
      missing_at_clear: Nullable(
        Int({
          description:
            'Records the counts said were missing when its log was cleared (those of earlier clears added): lost with the log, and said by the dates they may bear. Null: none was missing then.',
        }),
      ),
    }),
    days: t.Array(CompletenessDay),
    recoveries: t.Array(Recovery, { description: 'Re-uploads overlapping the dates, newest first.' }),
  },
  { title: 'Completeness' },
);

/** The wire shape of `devices/{sn}/completeness/` (the console reads it). */
export type CompletenessView = Static<typeof CompletenessReport>;
