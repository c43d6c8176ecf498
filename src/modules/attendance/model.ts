/** The attendance module's HTTP model. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Instant, Int, LocalDate, Nullable, OneOf, Page, PageQuery, Text } from '../../platform/http/model';
import { DAY_STATUSES } from './tables';

export const AttendanceDay = t.Object(
  {
    employee: t.String(),
    enrollee: t.String({ format: 'uuid' }),
    date: LocalDate('Local date in ATTENDANCE_TIME_ZONE.'),
    first_in: Nullable(Instant()),
    last_out: Nullable(Instant()),
    worked_seconds: Int(),
    punch_count: Int(),
    status: OneOf(DAY_STATUSES),
    flags: t.Array(t.String(), { description: 'For example `late`, `early_leave`, `non_working_day`.' }),
  },
  { title: 'AttendanceDay' },
);

export const AttendanceDayList = {
  query: t.Object({
    employee: t.Optional(Text({ maxLength: 200 })),
    enrollee: t.Optional(Text({ maxLength: 100 })),
    from: t.Optional(LocalDate('First date, inclusive.')),
    to: t.Optional(LocalDate('Last date, inclusive.')),
    status: t.Optional(OneOf(DAY_STATUSES)),
    ...PageQuery,
  }),
  response: Page(AttendanceDay),
};

export type AttendanceDayView = Static<typeof AttendanceDay>;
