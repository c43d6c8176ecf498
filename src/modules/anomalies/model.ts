/** Models of `anomalies/` (API.md, "Proof"). */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Instant, LocalDate, Nullable, OneOf, PageQuery, Text } from '../../platform/http/model';
import { ANOMALY_KINDS } from './tables';

export const AnomalyQuery = t.Object({
  from: t.Optional(LocalDate('First date (attendance zone), inclusive.')),
  to: t.Optional(LocalDate('Last date, inclusive.')),
  area: t.Optional(Text({ maxLength: 100, description: 'Only people of this area.' })),
  kind: t.Optional(Text({ maxLength: 200, description: `Comma-separated kinds: ${ANOMALY_KINDS.join(', ')}.` })),
  employee: t.Optional(Text({ maxLength: 200, description: 'Only this employee.' })),
  ...PageQuery,
});

export const Anomaly = t.Object(
  {
    id: t.String(),
    kind: OneOf(
      ANOMALY_KINDS,
      '`verified_without_biometric`: a PIN, password or card where the terminal holds the person’s biometric (not at a card-only reader, or one their template cannot reach); `impossible_travel`: two terminals too far apart (TRAVEL_MINUTES) for the time between; `while_on_leave`: a punch on a day of leave; `repeated_punch`: the same person again within DUPLICATE_WINDOW (on the later punch of the two, whichever arrived first).',
    ),
    employee: Nullable(t.String()),
    enrollee: t.String(),
    device: Nullable(t.String({ description: 'Serial number of the terminal; null for a manual or imported punch.' })),
    punch: t.String({ description: 'The punch’s id (`punches/`): it carries the kind among its flags.' }),
    at: Instant('When the punch happened.'),
    date: t.String({ description: 'Its date in the attendance zone.' }),
    details: t.Record(t.String(), t.Unknown(), {
      description:
        'Per kind: `verify_type` and `biometrics` (the kinds enrolled); `other_device`, `other_punch`, `other_at`, `from_area`, `to_area`, `minutes_apart`, `minutes_needed`; `leave` (its kind); `previous_punch`, `previous_at`, `seconds_apart`, `window_seconds`.',
    }),
    detected_at: Instant(),
  },
  { title: 'Anomaly' },
);

export const AnomalyList = t.Object({ results: t.Array(Anomaly), next_cursor: Nullable(t.String()) });

/** The wire shape of one anomaly (`anomalies/`, `anomaly_detected`; the console reads it). */
export type AnomalyView = Static<typeof Anomaly>;
