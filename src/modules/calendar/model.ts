/** The calendar module's HTTP model. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Body, Instant, Int, LocalDate, Nullable, OneOf, Page, PageQuery, Text, Uuid } from '../../platform/http/model';
import { DAY_TYPES } from './plan';

const Id = t.Object({ id: Uuid() });
const AreaName = Text({ maxLength: 100 });
const Areas = t.Array(AreaName, { maxItems: 50, uniqueItems: true });
const Weekdays = t.Array(Int({ minimum: 0, maximum: 6 }), { maxItems: 7, uniqueItems: true, description: '0 = Sunday … 6 = Saturday.' });
const Clock = t.String({
  pattern: '^([01]\\d|2[0-3]):[0-5]\\d$',
  description: 'Wall time `HH:MM` in the person’s time zone (their area’s, else ATTENDANCE_TIME_ZONE).',
});
const Duration = t.String({ pattern: '^(\\d+(ms|[dhms]))+$|^\\d+$', maxLength: 20, description: 'A duration like `10m`, `1h30m` (a bare number is seconds).' });
const Person = Text({ maxLength: 100, description: 'The enrollee (UUID or device PIN).' });
const created = { created_at: Instant() };

// ---------------------------------------------------------------- holidays

export const Holiday = t.Object({
  id: Uuid(),
  date: LocalDate(),
  name: t.String(),
  recurring: t.Boolean({ description: 'Repeats on the same month and day every year from its own year on.' }),
  cancelled: t.Boolean({ description: 'No holiday on this date for this scope (cancels a recurring one, or HOLIDAYS).' }),
  areas: t.Array(t.String(), { description: 'Area names; empty (and no enrollee): everyone.' }),
  enrollee: Nullable(Uuid('One enrollee only.')),
  ...created,
});
export type HolidayView = Static<typeof Holiday>;

export const HolidayCreate = Body({
  date: LocalDate(),
  name: Text({ maxLength: 100 }),
  recurring: t.Optional(t.Boolean()),
  areas: t.Optional(Areas),
  enrollee: t.Optional(Person),
  cancelled: t.Optional(t.Boolean()),
});
export const HolidayPatch = Body({
  date: t.Optional(LocalDate()),
  name: t.Optional(Text({ maxLength: 100 })),
  recurring: t.Optional(t.Boolean()),
  areas: t.Optional(Areas),
  enrollee: t.Optional(Nullable(Person)),
  cancelled: t.Optional(t.Boolean()),
});
export const HolidayList = {
  query: t.Object({ from: t.Optional(LocalDate('First date, inclusive.')), to: t.Optional(LocalDate('Last date, inclusive.')), ...PageQuery }),
  response: Page(Holiday),
};

// ---------------------------------------------------------------- schedules and assignments

export const WorkSchedule = t.Object({
  id: Uuid(),
  name: t.String(),
  start: t.String(),
  end: t.String(),
  overnight: t.Boolean({ description: 'The end is on the next date.' }),
  grace_in: t.String({ description: 'Arriving up to this long after the start is not late.' }),
  grace_out: t.String({ description: 'Leaving up to this long before the end is not early.' }),
  break: t.String({ description: 'Unpaid break within the shift.' }),
  weekdays: Nullable(t.Array(Int(), { description: 'Weekdays the shift starts on; null: every day but the weekend of the person’s areas.' })),
  used_elsewhere: t.Boolean({
    description:
      'Someone outside the caller’s areas works it (an assignment of another area, or of a person also in another area): a caller limited to areas may not change or delete it (403). Always false for a caller of every area.',
  }),
  ...created,
});
export type WorkScheduleView = Static<typeof WorkSchedule>;

export const WorkScheduleCreate = Body({
  name: Text({ maxLength: 100 }),
  start: Clock,
  end: Clock,
  grace_in: t.Optional(Duration),
  grace_out: t.Optional(Duration),
  break: t.Optional(Duration),
  weekdays: t.Optional(Nullable(Weekdays)),
});
export const WorkSchedulePatch = Body({
  name: t.Optional(Text({ maxLength: 100 })),
  start: t.Optional(Clock),
  end: t.Optional(Clock),
  grace_in: t.Optional(Duration),
  grace_out: t.Optional(Duration),
  break: t.Optional(Duration),
  weekdays: t.Optional(Nullable(Weekdays)),
});
export const WorkScheduleList = { query: t.Object({ ...PageQuery }), response: Page(WorkSchedule) };

export const ShiftAssignment = t.Object({
  id: Uuid(),
  schedule: t.String({ description: 'The schedule’s name.' }),
  schedule_id: Uuid(),
  enrollee: Nullable(Uuid()),
  area: Nullable(t.String()),
  from: LocalDate(),
  to: Nullable(LocalDate()),
  priority: Int(),
  ...created,
});
export type ShiftAssignmentView = Static<typeof ShiftAssignment>;

/** A new assignment; for an area's, how many of its people it does not reach on some of its dates. */
export const ShiftAssignmentCreated = t.Composite(
  [
    ShiftAssignment,
    t.Object({
      people_with_own_schedule: Nullable(
        Int({
          minimum: 0,
          description:
            'An area’s assignment: how many of its people have a schedule of their own on some of these dates, which goes first there (this one does not apply to them); null for a person’s.',
        }),
      ),
    }),
  ],
  { title: 'ShiftAssignmentCreated' },
);
export type ShiftAssignmentCreatedView = Static<typeof ShiftAssignmentCreated>;

export const ShiftAssignmentCreate = Body({
  schedule: Text({ maxLength: 100, description: 'Schedule name or id.' }),
  enrollee: t.Optional(Person),
  area: t.Optional(AreaName),
  from: LocalDate('First date, inclusive.'),
  to: t.Optional(LocalDate('Last date, inclusive; absent: open-ended.')),
  priority: t.Optional(Int({ minimum: -1000, maximum: 1000, description: 'Higher wins among assignments of the same kind (default 0).' })),
});
export const ShiftAssignmentBatch = Body(
  {
    schedule: Text({ maxLength: 100, description: 'Schedule name or id.' }),
    enrollees: t.Array(Person, { minItems: 1, maxItems: 1000, description: 'The people (UUID or device PIN); each gets their own assignment.' }),
    from: LocalDate('First date, inclusive.'),
    to: t.Optional(LocalDate('Last date, inclusive; absent: open-ended.')),
    priority: t.Optional(Int({ minimum: -1000, maximum: 1000 })),
  },
  { title: 'ShiftAssignmentBatch' },
);
export const ShiftAssignmentsCreated = t.Object({ results: t.Array(ShiftAssignment), next_cursor: t.Null() });
export const ShiftAssignmentList = {
  query: t.Object({
    enrollee: t.Optional(Person),
    area: t.Optional(AreaName),
    from: t.Optional(LocalDate('Assignments covering a date from this one, inclusive.')),
    to: t.Optional(LocalDate('… up to this one, inclusive.')),
    ...PageQuery,
  }),
  response: Page(ShiftAssignment),
};

// ---------------------------------------------------------------- leaves and weekends

export const Leave = t.Object({ id: Uuid(), enrollee: Uuid(), employee: t.String(), from: LocalDate(), to: LocalDate(), kind: t.String(), ...created });
export type LeaveView = Static<typeof Leave>;

export const LeaveCreate = Body({
  enrollee: Person,
  from: LocalDate('First date, inclusive.'),
  to: LocalDate('Last date, inclusive.'),
  kind: Text({ maxLength: 50, description: 'For example `annual`, `sick`, `unpaid`.' }),
});
export const LeaveList = {
  query: t.Object({
    enrollee: t.Optional(Person),
    employee: t.Optional(Text({ maxLength: 200 })),
    from: t.Optional(LocalDate('Leaves covering a date from this one, inclusive.')),
    to: t.Optional(LocalDate('… up to this one, inclusive.')),
    ...PageQuery,
  }),
  response: Page(Leave),
};

export const Weekend = t.Object({
  id: Uuid(),
  area: t.String(),
  from: Nullable(LocalDate('First date it applies to; null: every date.')),
  days: t.Array(Int(), { description: 'Days off, 0 = Sunday.' }),
  ...created,
});
export type WeekendView = Static<typeof Weekend>;

export const WeekendCreate = Body({ area: AreaName, days: Weekdays, from: t.Optional(LocalDate('First date it applies to; absent: every date.')) });
export const WeekendList = { query: t.Object({ area: t.Optional(AreaName), ...PageQuery }), response: Page(Weekend) };

// ---------------------------------------------------------------- the resolved calendar

const PlannedShift = t.Object({
  name: t.String(),
  expected_start: Instant(),
  expected_end: Instant('May be on the next date (an overnight shift).'),
  expected_seconds: Int({ description: 'End − start − break.' }),
  grace_in_seconds: Int(),
  grace_out_seconds: Int(),
  break_seconds: Int(),
});

const CalendarDay = t.Object({
  date: LocalDate(),
  day_type: OneOf(DAY_TYPES),
  schedule: Nullable(PlannedShift),
  holiday: Nullable(t.String({ description: 'The holiday’s name.' })),
  leave: Nullable(t.String({ description: 'The leave’s kind (also on a weekend or holiday within it).' })),
});
export type CalendarDayView = Static<typeof CalendarDay>;

export const CalendarQuery = t.Object({
  enrollee: t.Optional(Person),
  employee: t.Optional(Text({ maxLength: 200, description: 'Instead of `enrollee`: the employee key.' })),
  from: LocalDate('First date, inclusive.'),
  to: LocalDate('Last date, inclusive (at most 366 days).'),
});
export const CalendarResponse = t.Object({ enrollee: Uuid(), employee: t.String(), results: t.Array(CalendarDay) });

export { Id };

export const RosterQuery = t.Object({
  area: AreaName,
  from: LocalDate('First date, inclusive.'),
  to: LocalDate('Last date, inclusive (at most 42 days).'),
  ...PageQuery,
});
export const RosterResponse = Page(
  t.Object(
    { enrollee: Uuid(), employee: t.String(), display_name: t.String(), days: t.Array(CalendarDay) },
    { title: 'RosterRow', description: 'One person of the area and the plan of each date.' },
  ),
);
