/**
 * The rows of each report, as pure functions of stored attendance days (the attendance module
 * computed them: late, early leave, overtime and status are its rules, never re-derived here)
 * and, for timesheets, the punches of each day. Unit-tested in test/modules/reports.
 */
import { addDays, weekdayOf } from '../../platform/time/dates';
import { formatLocalWallTime } from '../../platform/time/zone';
import {
  type AttendanceDayRow,
  CLOCK_AHEAD,
  CLOCK_RESET,
  type CountedPunch,
  type DayTest,
  DST_OVERLAP,
  type LiveDay,
  type SummaryView,
  UNCONFIRMED_TERMINAL,
} from '../attendance';
import { type Cell, type Column, type Row, STATUS_WORDS, wholeMinutes } from './table';

/** Who a row is about. */
export interface Person {
  employee: string;
  name: string;
  areas: readonly string[];
}

export const EXCEPTION_KINDS = [
  'late',
  'early_leave',
  'absent',
  'missing_punch',
  'overtime',
  UNCONFIRMED_TERMINAL,
  CLOCK_AHEAD,
  DST_OVERLAP,
  CLOCK_RESET,
] as const;
export type ExceptionKind = (typeof EXCEPTION_KINDS)[number];
/** The kinds whose row has no hours: a punch without its pair, and the days HR is to review. */
const WITHOUT_HOURS: ReadonlySet<ExceptionKind> = new Set<ExceptionKind>(['missing_punch', UNCONFIRMED_TERMINAL, CLOCK_AHEAD, DST_OVERLAP, CLOCK_RESET]);

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

const col = (key: string, label: string, kind: Column['kind'], width: number, pdf = true): Column => ({ key, label, kind, width, pdf });

const local = (ms: number | null, zone: string): string | null => (ms === null ? null : formatLocalWallTime(new Date(ms), zone));

// ------------------------------------------------------------------------------------ daily

export const DAILY_COLUMNS: Column[] = [
  col('employee', 'Employee', 'text', 10),
  col('name', 'Name', 'text', 24),
  col('areas', 'Areas', 'text', 14),
  col('schedule', 'Schedule', 'text', 10),
  col('status', 'Status', 'status', 13),
  col('first_in', 'First in', 'time', 10),
  col('last_out', 'Last out', 'time', 10),
  col('worked_hours', 'Worked', 'hours', 8),
  col('expected_hours', 'Expected', 'hours', 8),
  col('late_hours', 'Late', 'hours', 7),
  col('early_leave_hours', 'Early leave', 'hours', 8),
  col('overtime_hours', 'Overtime', 'hours', 8),
  col('punches', 'Punches', 'count', 7),
  col('flags', 'Notes', 'flags', 22),
];

/** What is open right now: today's date, and who is still in from last night's shift (the Today board's). */
export interface OpenNow {
  /** Today where each person works (their zone's date now: README "Time zones"). */
  todayOf(enrolleeId: string): string;
  /** Every person's today there is: one date while no area has a zone of its own. */
  todays: readonly string[];
  /** Enrollees whose day of yesterday is still open on the board (attendance/board.ts `stillInFromLastNight`). */
  lastNight: ReadonlySet<string>;
}

/**
 * The status a report shows: a day left without its out while its shift can still close it (a
 * day of today, or last night's shift until its window ends) is someone still in (`in_now`), not
 * a missing punch, as on the Today board and the attendance grid; it becomes one only after that.
 */
export function shownStatus(day: Pick<AttendanceDayRow, 'status' | 'date' | 'enrolleeId'>, open: OpenNow): string {
  if (day.status !== 'incomplete') return day.status;
  const today = open.todayOf(day.enrolleeId);
  const stillIn = day.date === today || (open.lastNight.has(day.enrolleeId) && day.date === addDays(today, -1));
  return stillIn ? 'in_now' : day.status;
}

/** A board status as the report writes it for someone without a stored day. */
const LIVE_STATUS: Record<LiveDay['status'], string> = {
  scheduled: 'not_due_yet',
  not_in_yet: 'not_in_yet',
  absent: 'absent',
  on_leave: 'on_leave',
  holiday: 'holiday',
  off: 'non_working_day',
  // Never without a stored day of the date (`live` is each person's own shift of the date, not last night's).
  present: 'in_now',
  late: 'in_now',
};

/**
 * One person's day. Without a stored day: today, where the Today board puts them on today's own
 * shift (`live`: not due yet, not in yet, absent once their shift is over, on leave…, with their
 * schedule and the time their plan expects, as the day will be stored: an absence keeps its
 * expected time; a night still running from yesterday is yesterday's row, not this one); any other
 * date (or nobody on the board), `no_record`.
 */
export function dailyRow(date: string, person: Person, day: AttendanceDayRow | null, zone: string, when: { open: OpenNow; live?: LiveDay }): Row {
  const { open, live } = when;
  return {
    date,
    cells: [
      person.employee,
      person.name,
      person.areas.join(', '),
      day ? day.schedule : (live?.schedule ?? null),
      day ? shownStatus(day, open) : live ? LIVE_STATUS[live.status] : 'no_record',
      local(day?.firstIn ?? null, zone),
      local(day?.lastOut ?? null, zone),
      day?.workedSeconds ?? 0,
      day?.expectedSeconds ?? live?.expectedSeconds ?? 0,
      day?.lateSeconds ?? 0,
      day?.earlyLeaveSeconds ?? 0,
      day?.overtimeSeconds ?? 0,
      day?.punchCount ?? 0,
      day ? day.flags.join(' ') : null,
    ],
  };
}

// -------------------------------------------------------------------------------- timesheet

export const TIMESHEET_COLUMNS: Column[] = [
  col('employee', 'Employee', 'text', 10, false),
  col('name', 'Name', 'text', 22, false),
  col('date', 'Date', 'date', 11),
  col('weekday', 'Day', 'text', 5),
  col('status', 'Status', 'status', 13),
  col('schedule', 'Schedule', 'text', 10, false),
  col('punches', 'Punches', 'text', 22),
  col('first_in', 'First in', 'time', 10, false),
  col('last_out', 'Last out', 'time', 10, false),
  col('worked_hours', 'Worked', 'hours', 8),
  col('expected_hours', 'Expected', 'hours', 8),
  col('late_hours', 'Late', 'hours', 7),
  col('early_leave_hours', 'Early leave', 'hours', 8),
  col('overtime_hours', 'Overtime', 'hours', 8),
  col('flags', 'Notes', 'flags', 20),
];

/** `07:58 12:00* 16:31`: local times of the punches, a manual or imported one marked `*`, a later date's `+1`. */
export function punchList(date: string, punches: readonly CountedPunch[], zone: string): string {
  return punches
    .map((p) => {
      const wall = formatLocalWallTime(new Date(p.at), zone);
      const later = wall.slice(0, 10) > date ? '+1' : '';
      return `${wall.slice(11, 16)}${later}${p.corrected ? '*' : ''}`;
    })
    .join(' ');
}

/** One date of a person's timesheet; a date without a stored day is an empty row (no record). */
export function timesheetRow(date: string, person: Person, day: AttendanceDayRow | null, punches: readonly CountedPunch[], zone: string, open: OpenNow): Row {
  return {
    date,
    cells: [
      person.employee,
      person.name,
      date,
      WEEKDAYS[weekdayOf(date)]!,
      day ? shownStatus(day, open) : null,
      day?.schedule ?? null,
      punchList(date, punches, zone),
      local(day?.firstIn ?? null, zone),
      local(day?.lastOut ?? null, zone),
      day?.workedSeconds ?? null,
      day?.expectedSeconds ?? null,
      day?.lateSeconds ?? null,
      day?.earlyLeaveSeconds ?? null,
      day?.overtimeSeconds ?? null,
      day ? day.flags.join(' ') : null,
    ],
  };
}

/** A status after its count in a totals note: `1 absent`, `2 on leave`, `1 holiday`, `3 holidays`. */
function statusCounted(status: 'absent' | 'on_leave' | 'holiday', n: number): string {
  const word = STATUS_WORDS[status]!.toLowerCase();
  return status === 'holiday' && n !== 1 ? `${word}s` : word;
}

/**
 * The totals of a timesheet's days: the durations summed, the days worked counted; the row names
 * its person (`person`), as an Excel sheet of many people's timesheets needs.
 */
export function timesheetTotals(days: readonly AttendanceDayRow[], person?: Person): Row {
  const sum = (pick: (d: AttendanceDayRow) => number) => days.reduce((n, d) => n + pick(d), 0);
  const worked = days.filter((d) => d.status === 'present' || d.status === 'incomplete').length;
  const count = (status: string) => days.filter((d) => d.status === status).length;
  const notes = [
    `${worked} ${worked === 1 ? 'day' : 'days'} worked`,
    ...(['absent', 'on_leave', 'holiday'] as const).flatMap((s) => (count(s) > 0 ? [`${count(s)} ${statusCounted(s, count(s))}`] : [])),
  ];
  return {
    cells: [
      person?.employee ?? null,
      person?.name ?? null,
      'Total',
      null,
      null,
      null,
      null,
      null,
      null,
      sum((d) => d.workedSeconds),
      sum((d) => d.expectedSeconds),
      sum((d) => d.lateSeconds),
      sum((d) => d.earlyLeaveSeconds),
      sum((d) => d.overtimeSeconds),
      notes.join(', '),
    ],
  };
}

// ---------------------------------------------------------------------------------- summary

export const SUMMARY_COLUMNS: Column[] = [
  col('employee', 'Employee', 'text', 10),
  col('name', 'Name', 'text', 22),
  col('days', 'Days', 'count', 6, false),
  col('days_present', 'Present', 'count', 7),
  col('days_incomplete', 'Missing punch', 'count', 8),
  col('days_absent', 'Absent', 'count', 7),
  col('days_on_leave', 'On leave', 'count', 7),
  col('days_holiday', 'Holiday', 'count', 7),
  col('days_off', 'Days off', 'count', 7, false),
  col('days_late', 'Days late', 'count', 7),
  col('days_early_leave', 'Days left early', 'count', 7),
  col('days_worked_off', 'Days off worked', 'count', 7, false),
  col('days_manual', 'Days with a manual punch', 'count', 7, false),
  col('worked_hours', 'Worked', 'hours', 9),
  col('expected_hours', 'Expected', 'hours', 9),
  col('overtime_hours', 'Overtime', 'hours', 9),
  col('late_hours', 'Late', 'hours', 8),
  col('early_leave_hours', 'Early leave', 'hours', 8),
];

const SUMMARY_FIELDS = [
  'days',
  'days_present',
  'days_incomplete',
  'days_absent',
  'days_on_leave',
  'days_holiday',
  'days_off',
  'days_late',
  'days_early_leave',
  'days_worked_off',
  'days_manual',
  'worked_seconds',
  'expected_seconds',
  'overtime_seconds',
  'late_seconds',
  'early_leave_seconds',
] as const satisfies readonly (keyof SummaryView)[];

export function summaryRow(s: SummaryView): Row {
  return { cells: [s.employee, s.name ?? '', ...SUMMARY_FIELDS.map((f) => Number(s[f]) || 0)] };
}

/**
 * The totals of summary rows (every figure summed). A duration sums the rows' whole minutes, as
 * each row is printed and written (table.ts `wholeMinutes`), so the totals row is the sum of the
 * rows above it in every format (two people's 0:41 are 1:22, not the 1:23 of their seconds).
 */
export function summaryTotals(rows: readonly Row[]): Row {
  const totals: Cell[] = ['Total', rows.length === 1 ? '1 person' : `${rows.length} people`];
  for (let i = 2; i < SUMMARY_COLUMNS.length; i++) {
    const figure = (r: Row) => Number(r.cells[i]) || 0;
    const whole = SUMMARY_COLUMNS[i]!.kind === 'hours' ? (r: Row) => wholeMinutes(figure(r)) * 60 : figure;
    totals.push(rows.reduce((n, r) => n + whole(r), 0));
  }
  return { cells: totals };
}

// ------------------------------------------------------------------------------- exceptions

export const EXCEPTION_COLUMNS: Column[] = [
  col('date', 'Date', 'date', 11),
  col('employee', 'Employee', 'text', 10),
  col('name', 'Name', 'text', 22),
  col('kind', 'Exception', 'flags', 13),
  col('hours', 'Hours', 'hours', 7),
  col('schedule', 'Schedule', 'text', 10),
  col('first_in', 'First in', 'time', 10),
  col('last_out', 'Last out', 'time', 10),
  col('worked_hours', 'Worked', 'hours', 8),
  col('punches', 'Punches', 'count', 7),
];

/**
 * The exceptions of one day, in EXCEPTION_KINDS order, limited to `kinds`: `late` (the time
 * late), `early_leave` (the time left early), `absent` (the expected time), `missing_punch` (a
 * punch without its pair, once its shift can no longer close it: no duration), `overtime` (the
 * overtime), and the days to review, with no duration: `unconfirmed_terminal` (a punch from an
 * address its terminal is not pinned to counts for the day), `clock_ahead` (a punch dated after it
 * arrived: its terminal's clock ran ahead), `dst_overlap` (a punch at a wall time the fall-back
 * night showed twice: which of the two it was, its bare wall time does not say) and `clock_reset`
 * (a punch dated by a terminal clock that started over, a flat clock battery: its date is wrong).
 */
export function exceptionsOf(day: AttendanceDayRow, person: Person, kinds: ReadonlySet<ExceptionKind>, zone: string, open: OpenNow): Row[] {
  const hours: Record<ExceptionKind, number | null> = {
    late: day.flags.includes('late') ? day.lateSeconds : null,
    early_leave: day.flags.includes('early_leave') ? day.earlyLeaveSeconds : null,
    absent: day.status === 'absent' ? day.expectedSeconds : null,
    missing_punch: shownStatus(day, open) === 'incomplete' ? 0 : null,
    overtime: day.overtimeSeconds > 0 ? day.overtimeSeconds : null,
    unconfirmed_terminal: day.flags.includes(UNCONFIRMED_TERMINAL) ? 0 : null,
    clock_ahead: day.flags.includes(CLOCK_AHEAD) ? 0 : null,
    dst_overlap: day.flags.includes(DST_OVERLAP) ? 0 : null,
    clock_reset: day.flags.includes(CLOCK_RESET) ? 0 : null,
  };
  return EXCEPTION_KINDS.filter((kind) => kinds.has(kind) && hours[kind] !== null).map((kind) => ({
    date: day.date,
    cells: [
      day.date,
      person.employee,
      person.name,
      kind,
      WITHOUT_HOURS.has(kind) ? null : hours[kind],
      day.schedule,
      local(day.firstIn, zone),
      local(day.lastOut, zone),
      day.workedSeconds,
      day.punchCount,
    ],
  }));
}

/** The days still open now: everyone's of a today there is, and last night's of those still in, by their yesterday. */
function openDays(open: OpenNow): { date: string; enrollees?: string[] }[] {
  const lastNight = new Map<string, string[]>();
  for (const id of open.lastNight) {
    const yesterday = addDays(open.todayOf(id), -1);
    lastNight.set(yesterday, [...(lastNight.get(yesterday) ?? []), id]);
  }
  return [...open.todays.map((date) => ({ date })), ...[...lastNight].map(([date, enrollees]) => ({ date, enrollees }))];
}

/**
 * What makes a day a row of each kind asked, as exceptionsOf decides, for counting the rows
 * before they are drawn (a PDF past its limit is refused first): a day still open (today's, or
 * last night's while the Today board carries its person in) is someone still in, no missing punch.
 */
export function exceptionTests(kinds: ReadonlySet<ExceptionKind>, open: OpenNow): DayTest[] {
  const tests: Record<ExceptionKind, DayTest> = {
    late: { flag: 'late' },
    early_leave: { flag: 'early_leave' },
    absent: { status: 'absent' },
    missing_punch: { status: 'incomplete', except: openDays(open) },
    overtime: { overtime: true },
    unconfirmed_terminal: { flag: UNCONFIRMED_TERMINAL },
    clock_ahead: { flag: CLOCK_AHEAD },
    dst_overlap: { flag: DST_OVERLAP },
    clock_reset: { flag: CLOCK_RESET },
  };
  return EXCEPTION_KINDS.filter((kind) => kinds.has(kind)).map((kind) => tests[kind]);
}
