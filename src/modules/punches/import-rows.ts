/**
 * The records of `punches/import/`, read and checked one by one (pure: no database). A body is
 * CSV with a header row naming the columns `employee`, `at` and, optionally, `state` (in any
 * order, any case; other columns are ignored), or a JSON array of objects with the same fields.
 * Each record becomes a row or an error naming its line: the physical line it starts on in the
 * CSV (the header is line 1), its 1-based position in the JSON array.
 */
import { csvField } from '../../platform/csv';
import type { RecordsBody } from '../../platform/http/body';
import { hasControl, type LineError, type RecordFormat, readRecords } from '../../platform/records';
import { isWallTime, parsePunchTime } from '../../platform/time/dates';

export interface ImportRow {
  line: number;
  employee: string;
  /** The instant, ms since the epoch. */
  at: number;
  /** `dst_gap` or `dst_overlap`: a wall time its zone skipped or showed twice (parsePunchTime). */
  flags: string[];
  state: number;
  /** The record as it was sent (CSV re-quoted, or JSON), kept as the punch's `raw`. */
  raw: string;
  /** `at` as given when it is a wall time (no offset): it is read again in the person's zone. */
  wall?: string;
}

export type ImportError = LineError;

/** How far ahead of the server's clock a punch may lie (as for terminals' `future_time`). */
const FUTURE_TOLERANCE_MS = 24 * 3_600_000;
const MAX_RAW = 500;

export function importRows(body: RecordsBody, timeZone: string, now: number): { rows: ImportRow[]; errors: ImportError[] } {
  return readRecords(body, punchRecords(timeZone, now));
}

function punchRecords(timeZone: string, now: number): RecordFormat<ImportRow> {
  const row = (line: number, checked: Omit<ImportRow, 'line' | 'raw'> | string, raw: string): ImportRow | string =>
    typeof checked === 'string' ? checked : { line, ...checked, raw: raw.slice(0, MAX_RAW) };
  return {
    empty: 'the file is empty: a header row `employee,at,state` is needed',
    header: (names) =>
      names.includes('employee') && names.includes('at') ? null : 'the header row must name the columns `employee` and `at` (and optionally `state`)',
    csv: ({ line, fields, cell }) => row(line, checkRow(cell('employee'), cell('at'), cell('state'), timeZone, now), fields.map(csvField).join(',')),
    notAnObject: 'each record must be an object with `employee`, `at` and optionally `state`',
    json({ line, fields }) {
      const unknown = Object.keys(fields).filter((k) => k !== 'employee' && k !== 'at' && k !== 'state');
      if (unknown.length > 0) return `unknown field ${unknown[0]!.slice(0, 40)}: only employee, at and state`;
      const { employee, at, state } = fields;
      if (typeof employee !== 'string' || typeof at !== 'string') return '`employee` and `at` must be strings';
      if (state !== undefined && state !== null && typeof state !== 'number' && typeof state !== 'string') return '`state` must be an integer from 0 to 255';
      const stateText = state === undefined || state === null ? undefined : String(state);
      return row(line, checkRow(employee, at, stateText, timeZone, now), JSON.stringify(fields));
    },
  };
}

/** One record's fields checked: the row's values, or what is wrong (never quoting the value). */
function checkRow(
  employeeText: string | undefined,
  atText: string | undefined,
  stateText: string | undefined,
  timeZone: string,
  now: number,
): Omit<ImportRow, 'line' | 'raw'> | string {
  const employee = (employeeText ?? '').trim();
  if (employee === '') return '`employee` is empty';
  if (employee.length > 200 || hasControl(employee)) return '`employee` must be 1 to 200 printable characters';
  const read = parsePunchTime(atText ?? '', timeZone);
  if (read === null) return '`at` must be an ISO 8601 instant (2026-03-09T08:00:00Z) or a local time (2026-03-09 08:00)';
  const { at, flags } = read;
  if (at > now + FUTURE_TOLERANCE_MS) return '`at` lies more than a day in the future';
  const wall = isWallTime(atText ?? '') ? { wall: (atText ?? '').trim() } : {};
  if (at < Date.UTC(2001, 0, 1)) return '`at` lies before 2001 (a terminal clock that was reset?)';
  const stateValue = (stateText ?? '').trim();
  if (stateValue !== '' && !/^\d{1,3}$/.test(stateValue)) return '`state` must be an integer from 0 to 255';
  const state = stateValue === '' ? 0 : Number(stateValue);
  if (state > 255) return '`state` must be an integer from 0 to 255';
  return { employee, at, flags, state, ...wall };
}
