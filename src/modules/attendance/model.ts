/** The attendance module's HTTP model. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Body, CsvBomQuery, IdList, Instant, Int, LocalDate, Nullable, OneOf, Page, PageQuery, QueryInt, Text, Uuid } from '../../platform/http/model';
import { Punch } from '../punches';
import { BOARD_COUNTS, BOARD_STATUSES } from './board-rules';
import { DAY_STATUSES } from './tables';

const COUNT_WORDS: Record<(typeof BOARD_COUNTS)[number], string> = {
  expected: 'People with a workday (a shift, or no schedule at all) on the date.',
  present: 'People who punched in on the date (late ones too), on any kind of day.',
  late: 'People whose first punch was after the shift’s start plus its grace in.',
  not_in_yet: 'Today: workday, no punch, the shift started more than its grace in ago and has not ended.',
  absent: 'Workday, no punch: the shift has ended (today) or the date is past.',
  on_leave: 'On leave, no punch.',
  holiday: 'Holiday, no punch.',
  off: 'A day off (weekend, or not one of the shift’s weekdays), no punch.',
  out: 'Came in and left (every punch paired).',
  in_now: 'Today: in now (a punch left without its pair).',
  scheduled: 'Workday, no punch, not due yet (before start plus grace in; a future date; no shift).',
};

export const AttendanceDay = t.Object(
  {
    employee: t.String(),
    enrollee: t.String({ format: 'uuid' }),
    date: LocalDate(
      'Local date in the person’s time zone (their areas’, else ATTENDANCE_TIME_ZONE); an overnight shift’s punches belong to the date it started.',
    ),
    first_in: Nullable(Instant()),
    last_out: Nullable(
      Instant(
        'The last clock-out: the last punch that closes a pair. A punch left without its pair (back from lunch, a stray tap) is not it; null before a pair.',
      ),
    ),
    worked_seconds: Int(),
    punch_count: Int(),
    status: OneOf(DAY_STATUSES),
    flags: t.Array(t.String(), {
      description:
        '`late`, `early_leave`, `overtime`, `worked_on_off_day`, `worked_on_holiday`, `worked_on_leave`, `manual` (a manual or imported punch counts), `unconfirmed_terminal` (a punch flagged `new_address`, from an address its terminal is not pinned to, counts), `clock_ahead` (a punch flagged `clock_ahead`, dated after it arrived, counts), `dst_overlap` (a punch at a wall time the fall-back night showed twice counts), `clock_reset` (a punch flagged `clock_reset`, dated by a terminal clock that started over, before 2001, counts): each for HR to review.',
    }),
    schedule: Nullable(t.String({ description: 'The expected shift’s name; null on days off or without a schedule.' })),
    expected_seconds: Int({ description: 'Shift length minus break on a workday; 0 otherwise.' }),
    late_seconds: Int(),
    early_leave_seconds: Int(),
    overtime_seconds: Int(),
  },
  { title: 'AttendanceDay' },
);

export type AttendanceDayView = Static<typeof AttendanceDay>;

const Employee = Text({ maxLength: 200, description: 'Employee key.' });

export const AttendanceDayList = {
  query: t.Object({
    employee: t.Optional(Employee),
    enrollee: t.Optional(IdList('One enrollee id, or up to 100 separated by commas (the console’s grid asks for the page of people it shows).')),
    from: t.Optional(LocalDate('First date, inclusive.')),
    to: t.Optional(LocalDate('Last date, inclusive.')),
    status: t.Optional(OneOf(DAY_STATUSES)),
    inactive: t.Optional(
      t.Boolean({
        description: 'true: only the days of people not active now, deactivated or deleted since (their days still count in the reports and the export).',
      }),
    ),
    ...PageQuery,
  }),
  response: Page(AttendanceDay),
};

export const Recompute = {
  body: Body({
    from: LocalDate('First date, inclusive.'),
    to: LocalDate('Last date, inclusive (at most 366 dates).'),
    enrollee: t.Optional(Text({ maxLength: 100, description: 'One enrollee (UUID or device PIN); default: everyone with days or punches in the range.' })),
  }),
  response: t.Object({ recomputed: Int({ description: 'Days recomputed (dates of locked pay periods are skipped).' }) }),
};

const Period = { from: LocalDate('First date, inclusive.'), to: LocalDate('Last date, inclusive.'), employee: t.Optional(Employee) };

export const ExportQuery = t.Object({ ...Period, ...CsvBomQuery });

const Summary = t.Object({
  employee: t.String(),
  enrollee: Uuid(),
  name: Nullable(t.String({ description: 'Display name, when known.' })),
  days: Int({ description: 'Days with a record in the range.' }),
  days_present: Int({ description: 'Status `present`.' }),
  days_incomplete: Int({ description: 'Status `incomplete` (a punch without its pair).' }),
  days_absent: Int(),
  days_on_leave: Int(),
  days_holiday: Int(),
  days_off: Int({ description: 'Status `non_working_day`.' }),
  days_late: Int(),
  days_early_leave: Int(),
  days_worked_off: Int({ description: 'Days worked on a weekend, holiday or leave day.' }),
  days_manual: Int({ description: 'Days counting a manual or imported punch.' }),
  worked_seconds: Int(),
  expected_seconds: Int(),
  overtime_seconds: Int(),
  late_seconds: Int(),
  early_leave_seconds: Int(),
});
export type SummaryView = Static<typeof Summary>;

export const SummaryList = {
  query: t.Object({ ...Period, ...PageQuery }),
  response: Page(Summary),
};

export const PayPeriod = t.Object({
  id: Uuid(),
  from: LocalDate(),
  to: LocalDate(),
  locked: t.Boolean({ description: 'Its days never change again; later punches for it are flagged `after_lock`.' }),
  locked_at: Nullable(Instant()),
  locked_by: Nullable(t.String()),
  created_at: Instant(),
});
export type PayPeriodView = Static<typeof PayPeriod>;

export const PayPeriodCreate = Body({ from: LocalDate('First date, inclusive.'), to: LocalDate('Last date, inclusive.') });
export const PayPeriodList = {
  query: t.Object({ from: t.Optional(LocalDate('Periods sharing a date with from..to.')), to: t.Optional(LocalDate()), ...PageQuery }),
  response: Page(PayPeriod),
};
export const PayPeriodParams = t.Object({ id: Uuid() });

export const DayPunches = {
  params: t.Object({ enrollee: Uuid(), date: LocalDate('The attendance day’s date.') }),
  response: t.Object({
    results: t.Array(Punch, {
      description:
        'Newest first: every punch the day’s attribution gives this date, voided and `after_lock` ones too; a night shift’s morning punch is on the date the shift started.',
    }),
  }),
};

const BoardCountsModel = t.Object(
  Object.fromEntries(BOARD_COUNTS.map((c) => [c, Int({ description: COUNT_WORDS[c] })])) as Record<(typeof BOARD_COUNTS)[number], ReturnType<typeof Int>>,
);

export const TodayBoard = {
  query: t.Object({
    date: t.Optional(
      LocalDate(
        'The date (default: today: each person’s own, in their time zone, when areas have zones of their own; with `area`, that area’s today is the board’s `date`); past and future dates work too.',
      ),
    ),
    area: t.Optional(Text({ maxLength: 100, description: 'Only the people of this area (its name).' })),
    status: t.Optional(OneOf(BOARD_STATUSES, 'Only the people of this status in `people` (the counts stay whole).')),
    count: t.Optional(
      OneOf(
        BOARD_COUNTS,
        'Only the people a count is made of in `people` (`in_now`; `present`: the on-time and the late), as its tile lists them; the counts stay whole.',
      ),
    ),
    enrollee: t.Optional(
      IdList(
        'Only these people in `people`: one enrollee id, or up to 100 separated by commas (the console’s attendance grid asks for the page of people it shows); the counts stay whole.',
      ),
    ),
    limit: t.Optional(
      QueryInt('limit', {
        minimum: 1,
        maximum: 100_000,
        description: 'At most this many people in `people`, the first by name (`people_total` says how many there are).',
      }),
    ),
  }),
  response: t.Object(
    {
      date: LocalDate(),
      as_of: Instant('When the board was read: statuses that depend on the time (not_in_yet, absent) are as of then.'),
      counts: BoardCountsModel,
      areas: t.Array(t.Object({ area: t.String(), counts: BoardCountsModel }), {
        description: 'The same counts per area (a person in two areas counts in both), by area name.',
      }),
      people: t.Array(
        t.Object({
          employee: t.String(),
          enrollee: Uuid(),
          display_name: t.String(),
          areas: t.Array(t.String()),
          status: OneOf(BOARD_STATUSES),
          expected: t.Boolean({ description: 'A workday for this person (counted in `expected`).' }),
          schedule: Nullable(t.String({ description: 'The shift’s name on a workday; null otherwise.' })),
          expected_start: Nullable(Instant()),
          expected_end: Nullable(Instant()),
          first_in: Nullable(Instant()),
          last_out: Nullable(Instant('The last punch when the person is out; null while in.')),
          late_seconds: Int({ description: 'How late the first punch was (from the shift’s start); 0 when on time.' }),
          in_now: t.Boolean({
            description: 'Today (and yesterday’s board while its night shift runs) only: a punch is left without its pair (in, or in-out-in).',
          }),
          in_now_date: Nullable(
            LocalDate(
              'While `in_now`, the date of the open day it counts: today’s, or yesterday’s for someone still in from last night’s shift; null otherwise.',
            ),
          ),
          date: t.Optional(
            LocalDate('Only when an area has a time zone of its own: the date this person’s row is of (their own today, in their zone, without `date`).'),
          ),
          time_zone: t.Optional(
            t.String({
              description:
                'Only when an area has a time zone of its own (or, with `date`, the person’s stored day was judged in a zone other than ATTENDANCE_TIME_ZONE): the zone their row’s times are read in: the person’s zone now, or with `date` the zone their stored day was judged in.',
            }),
          ),
        }),
        { description: 'By name.' },
      ),
      people_total: Int({ description: 'How many people `people` would hold without `limit`.' }),
    },
    { title: 'TodayBoard' },
  ),
};
export type TodayBoardView = Static<(typeof TodayBoard)['response']>;
