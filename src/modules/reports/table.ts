/**
 * A report as the three file formats see it: a title, a period, and one or more sheets (a
 * timesheet of an area has one per person), each a table of typed columns. The builders
 * (rows.ts, service.ts) fill it; csv.ts, xlsx.ts and pdf.ts write it. Rows are produced as they
 * are read (an async iterable), so the CSV and Excel files stream.
 */

/**
 * What a cell holds, by column kind:
 * - `text`: a string;
 * - `date`: a local date `YYYY-MM-DD`;
 * - `time`: a local wall time `YYYY-MM-DD HH:MM:SS` in the attendance zone (may be the next date);
 * - `hours`: a duration in seconds (written as hours);
 * - `count`: an integer;
 * - `status`, `flags`: codes (`absent`; `late early_leave`), written as words in Excel and PDF.
 */
export type ColumnKind = 'text' | 'date' | 'time' | 'hours' | 'count' | 'status' | 'flags';

export type Cell = string | number | null;

export interface Column {
  /** The CSV header (snake case, stable for integrations). */
  key: string;
  /** The Excel and PDF header. */
  label: string;
  kind: ColumnKind;
  /** Relative width: characters in Excel, a share of the page in PDF. */
  width: number;
  /** Left out of the PDF (a person's timesheet names them once, above the table). */
  pdf?: boolean;
}

export interface Row {
  /** The date a row is about, when it has one: times of a later date show it (a night shift's end). */
  date?: string;
  cells: Cell[];
}

export interface Sheet {
  /** The Excel sheet's name, and the PDF section's heading. */
  name: string;
  /**
   * The end of `name` that tells sheets apart (a timesheet's ` (E-1)`): an Excel sheet's name,
   * at most 31 characters, shortens the part before it and keeps it whole (xlsx.ts `sheetName`).
   */
  keep?: string;
  /** Lines under the heading (the person, their areas). */
  details: string[];
  columns: Column[];
  rows: AsyncIterable<Row> | Iterable<Row>;
  /** A totals row, filled once the rows have been read (Excel and PDF; CSV stays one record per line). */
  totals?: () => Row | null;
  /** Signature lines for the employee and the employer under the table (PDF). */
  signatures?: boolean;
}

export interface ReportDocument {
  /** `daily`, `timesheet`, `summary`, `exceptions`. */
  kind: string;
  title: string;
  /** As printed: `2026-03-01 to 2026-03-31`, or one date. */
  period: string;
  /** `All areas`, an area's name, or a person. */
  scope: string;
  company: string;
  /** The file's name without its extension. */
  basename: string;
  /** ATTENDANCE_TIME_ZONE: the zone of every time shown, unless areas have zones of their own (`timesIn`). */
  timeZone: string;
  /** Where the times are, as printed after "Times in": the zone, or each person's when areas have zones of their own. */
  timesIn: string;
  /** Printed under the last table (what marks mean). */
  notes: string[];
  sheets: AsyncIterable<Sheet>;
  /** The columns of the report's rows, for a report without a sheet (nobody in scope). */
  emptyColumns: Column[];
  /**
   * The report's rows counted up to `atMost` (the count may stop past it): its people (daily,
   * summary), a row per date for each person (timesheet) or its exceptions; never a totals row.
   * A PDF of more than its limit is refused from this count, before any of it is drawn (pdf.ts).
   */
  rowCount?: (atMost: number) => Promise<number>;
  /**
   * Its sheets counted up to `atMost` (the count may stop past it): a timesheet of an area has one
   * per person. Absent: one sheet. The Excel file of more than it makes sheets of is one sheet (xlsx.ts).
   */
  sheetCount?: (atMost: number) => Promise<number>;
  /**
   * What it was asked for, for the audit entry of its download: its parameters as they were
   * read (the date a daily report defaulted to included), and the person's id of a one-person report.
   */
  asked?: { parameters: Record<string, string>; enrollee?: string };
}

export const FORMATS = ['csv', 'xlsx', 'pdf'] as const;
export type Format = (typeof FORMATS)[number];

export const CONTENT_TYPES: Record<Format, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pdf: 'application/pdf',
};

/** Words for status codes in Excel and PDF (the CSV keeps the codes). */
export const STATUS_WORDS: Record<string, string> = {
  present: 'Present',
  incomplete: 'Missing punch',
  in_now: 'In, no out yet',
  absent: 'Absent',
  on_leave: 'On leave',
  holiday: 'Holiday',
  non_working_day: 'Day off',
  no_record: 'No record yet',
  not_due_yet: 'Not due yet',
  not_in_yet: 'Not in yet',
};

export const FLAG_WORDS: Record<string, string> = {
  late: 'late',
  early_leave: 'left early',
  overtime: 'overtime',
  worked_on_off_day: 'worked on a day off',
  worked_on_holiday: 'worked on a holiday',
  worked_on_leave: 'worked on leave',
  manual: 'manual punch',
  unconfirmed_terminal: 'punch from an unconfirmed terminal address',
  clock_ahead: 'punch dated after it arrived (terminal clock ahead)',
  dst_overlap: 'punch in the hour the clocks went back (ambiguous time)',
  clock_reset: 'punch dated by a terminal clock that started over (date wrong)',
  missing_punch: 'missing punch',
  absent: 'absent',
};

export const words = (kind: ColumnKind, value: Cell): string => {
  if (value === null || value === '') return '';
  if (kind === 'status') return STATUS_WORDS[String(value)] ?? String(value);
  if (kind === 'flags') {
    const codes = String(value)
      .split(' ')
      .filter((f) => f !== '');
    // Free text (a totals row's note) stays as it is.
    return codes.every((f) => f in FLAG_WORDS) ? codes.map((f) => FLAG_WORDS[f]).join(', ') : String(value);
  }
  return String(value);
};

/**
 * The whole minutes of a duration (rounded down), as the payroll export and `attendance-days/`
 * cut them: every format of a report works from these, so the PDF, the preview, the CSV and the
 * Excel file give payroll the same minute (41 min 42 s is 41 min in each).
 */
export const wholeMinutes = (seconds: number): number => Math.floor(seconds / 60);

/** Seconds as `H:MM` (whole minutes, rounded down), as the payroll export writes them. */
export function hoursMinutes(seconds: number): string {
  const minutes = wholeMinutes(seconds);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}

/** The whole minutes as hours, unrounded (an Excel cell: `0.00` shows two places, the sum is the minutes'). */
export const minuteHours = (seconds: number): number => wholeMinutes(seconds) / 60;

/**
 * The whole minutes as decimal hours, two places (CSV): 41 min is 0.68. Minutes × 5/3 is never
 * a half, so the rounding has no ties, and the minutes come back exactly (0.68 × 60 = 40.8 → 41).
 */
export const decimalHours = (seconds: number): number => Math.round((wholeMinutes(seconds) * 100) / 60) / 100;

/** A cell as printed (PDF, the on-screen preview): times `HH:MM` (`+1` when on a later date than the row's), durations `H:MM`, words for codes. */
export function printed(column: Column, cell: Cell, rowDate?: string): string {
  if (cell === null || cell === '') return '';
  switch (column.kind) {
    case 'time': {
      const text = String(cell);
      return `${text.slice(11, 16)}${rowDate && text.slice(0, 10) > rowDate ? ' +1' : ''}`;
    }
    case 'hours': {
      const seconds = Number(cell);
      return seconds === 0 && column.key !== 'worked_hours' && column.key !== 'expected_hours' ? '' : hoursMinutes(seconds);
    }
    case 'status':
    case 'flags':
      return words(column.kind, cell);
    default:
      return String(cell);
  }
}
