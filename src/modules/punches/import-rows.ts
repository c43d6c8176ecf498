/**
 * The records of `punches/import/`, read and checked one by one (pure: no database). A body is
 * CSV with a header row naming the columns `employee`, `at` and, optionally, `state` (in any
 * order, any case; other columns are ignored), or a JSON array of objects with the same fields.
 * Each record becomes a row or an error naming its line: the physical line it starts on in the
 * CSV (the header is line 1), its 1-based position in the JSON array.
 */
import { csvField, parseCsv } from '../../platform/csv';
import type { RecordsBody } from '../../platform/http/body';
import { parsePunchTime } from '../../platform/time/dates';

export interface ImportRow {
  line: number;
  employee: string;
  /** The instant, ms since the epoch. */
  at: number;
  state: number;
  /** The record as it was sent (CSV re-quoted, or JSON), kept as the punch's `raw`. */
  raw: string;
}

export interface ImportError {
  line: number;
  message: string;
}

/** How far ahead of the server's clock a punch may lie (as for terminals' `future_time`). */
const FUTURE_TOLERANCE_MS = 24 * 3_600_000;
const MAX_RAW = 500;
/** Whether the text holds a control character (U+0000–U+001F, U+007F), as the API's `Text` refuses. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

export function importRows(body: RecordsBody, timeZone: string, now: number): { rows: ImportRow[]; errors: ImportError[] } {
  return typeof body === 'string' ? csvRows(body, timeZone, now) : jsonRows(body, timeZone, now);
}

function csvRows(text: string, timeZone: string, now: number): { rows: ImportRow[]; errors: ImportError[] } {
  const rows: ImportRow[] = [];
  const errors: ImportError[] = [];
  const [header, ...records] = parseCsv(text);
  if (!header) return { rows, errors: [{ line: 1, message: 'the file is empty: a header row `employee,at,state` is needed' }] };
  if ('error' in header) return { rows, errors: [{ line: header.line, message: `the header row cannot be read: ${header.error}` }] };
  const names = header.fields.map((f) => f.trim().toLowerCase());
  const column = (name: string) => names.indexOf(name);
  const [employeeAt, atAt, stateAt] = [column('employee'), column('at'), column('state')];
  if (employeeAt < 0 || atAt < 0) {
    return { rows, errors: [{ line: header.line, message: 'the header row must name the columns `employee` and `at` (and optionally `state`)' }] };
  }
  for (const record of records) {
    if ('error' in record) {
      errors.push({ line: record.line, message: record.error });
      continue;
    }
    if (record.fields.length !== names.length) {
      errors.push({ line: record.line, message: `expected ${names.length} fields as in the header, found ${record.fields.length}` });
      continue;
    }
    const raw = record.fields.map(csvField).join(',');
    const checked = checkRow(record.fields[employeeAt], record.fields[atAt], stateAt < 0 ? undefined : record.fields[stateAt], timeZone, now);
    if (typeof checked === 'string') errors.push({ line: record.line, message: checked });
    else rows.push({ line: record.line, ...checked, raw: raw.slice(0, MAX_RAW) });
  }
  return { rows, errors };
}

function jsonRows(records: readonly unknown[], timeZone: string, now: number): { rows: ImportRow[]; errors: ImportError[] } {
  const rows: ImportRow[] = [];
  const errors: ImportError[] = [];
  records.forEach((record, index) => {
    const line = index + 1;
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      errors.push({ line, message: 'each record must be an object with `employee`, `at` and optionally `state`' });
      return;
    }
    const fields = record as Record<string, unknown>;
    const unknown = Object.keys(fields).filter((k) => k !== 'employee' && k !== 'at' && k !== 'state');
    if (unknown.length > 0) {
      errors.push({ line, message: `unknown field ${unknown[0]!.slice(0, 40)}: only employee, at and state` });
      return;
    }
    const { employee, at, state } = fields;
    if (typeof employee !== 'string' || typeof at !== 'string') {
      errors.push({ line, message: '`employee` and `at` must be strings' });
      return;
    }
    if (state !== undefined && state !== null && typeof state !== 'number' && typeof state !== 'string') {
      errors.push({ line, message: '`state` must be an integer from 0 to 255' });
      return;
    }
    const checked = checkRow(employee, at, state === undefined || state === null ? undefined : String(state), timeZone, now);
    if (typeof checked === 'string') errors.push({ line, message: checked });
    else rows.push({ line, ...checked, raw: JSON.stringify(record).slice(0, MAX_RAW) });
  });
  return { rows, errors };
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
  const at = parsePunchTime(atText ?? '', timeZone);
  if (at === null) return '`at` must be an ISO 8601 instant (2026-03-09T08:00:00Z) or a local time (2026-03-09 08:00)';
  if (at > now + FUTURE_TOLERANCE_MS) return '`at` lies more than a day in the future';
  if (at < Date.UTC(2001, 0, 1)) return '`at` lies before 2001 (a terminal clock that was reset?)';
  const stateValue = (stateText ?? '').trim();
  if (stateValue !== '' && !/^\d{1,3}$/.test(stateValue)) return '`state` must be an integer from 0 to 255';
  const state = stateValue === '' ? 0 : Number(stateValue);
  if (state > 255) return '`state` must be an integer from 0 to 255';
  return { employee, at, state };
}
