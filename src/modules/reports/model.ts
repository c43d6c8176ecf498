/** The reports module's HTTP model: the query of each report (the files themselves are CSV, XLSX or PDF). */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { LocalDate, Nullable, QueryInt, Text } from '../../platform/http/model';
import { EXCEPTION_KINDS } from './rows';

const Area = Text({ maxLength: 100, description: 'Only the people of this area (by name); default: every area the caller may see.' });
const From = LocalDate('First date, inclusive (local date of each person’s time zone: their area’s, else ATTENDANCE_TIME_ZONE).');
const To = LocalDate('Last date, inclusive (at most 366 dates from `from`).');

export const DailyQuery = t.Object({
  date: t.Optional(
    LocalDate('The date (local date of each person’s time zone: their area’s, else ATTENDANCE_TIME_ZONE); default: today in ATTENDANCE_TIME_ZONE.'),
  ),
  area: t.Optional(Area),
});

export const TimesheetQuery = t.Object({
  from: From,
  to: To,
  employee: t.Optional(Text({ maxLength: 200, description: 'One person’s timesheet (employee key); without it, one sheet or page per person of the area.' })),
  area: t.Optional(Area),
});

export const SummaryQuery = t.Object({ from: From, to: To, area: t.Optional(Area) });

const KIND = `(${EXCEPTION_KINDS.join('|')})`;

export const ExceptionsQuery = t.Object({
  from: From,
  to: To,
  area: t.Optional(Area),
  kind: t.Optional(
    t.String({
      pattern: `^${KIND}(,${KIND})*$`,
      maxLength: 200,
      description: `Comma-separated kinds among ${EXCEPTION_KINDS.map((k) => `\`${k}\``).join(', ')}; default: all.`,
    }),
  ),
});

/** `reports/{kind}/preview/`: the report's query, and how many rows to show. */
export const PreviewLimit = t.Object({
  limit: t.Optional(QueryInt('limit', { minimum: 1, maximum: 500, description: 'Rows shown at most, over every sheet (default 100).' })),
});

export const ReportPreview = t.Object(
  {
    title: t.String(),
    period: t.String(),
    scope: t.String({ description: '`All areas`, an area, or a person.' }),
    time_zone: t.String({ description: 'ATTENDANCE_TIME_ZONE: the zone of every time shown, unless areas have zones of their own (`times_in`).' }),
    times_in: t.String({
      description:
        'Where the times shown are, as the files print it after “Times in”: the zone, or each person’s (their area’s) when areas have zones of their own.',
    }),
    notes: t.Array(t.String(), { description: 'What marks mean (as under the PDF’s last table).' }),
    sheets: t.Array(
      t.Object({
        name: t.String(),
        details: t.Array(t.String()),
        columns: t.Array(t.Object({ key: t.String({ description: 'The CSV header.' }), label: t.String() })),
        rows: t.Array(t.Array(t.String()), { description: 'Cells as printed: times HH:MM (+1 on a later date), durations H:MM, words for codes.' }),
        totals: Nullable(t.Array(t.String(), { description: 'The totals row, when the sheet was shown whole and has one.' })),
      }),
    ),
    truncated: t.Boolean({ description: 'More rows than `limit`: the files have them all.' }),
  },
  { title: 'ReportPreview' },
);
export type ReportPreviewView = Static<typeof ReportPreview>;
