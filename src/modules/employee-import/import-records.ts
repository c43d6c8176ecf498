/**
 * The records of `employees/import/`, read and checked one by one (pure: no database). CSV with
 * a header row naming `id` and `name`, and optionally `areas` and `card` (any order, any case);
 * or a JSON array of objects with the same fields. Each record becomes a row or an error naming
 * its line: the physical line it starts on in the CSV (the header is line 1), its 1-based
 * position in a JSON array.
 *
 * - `areas`: area names separated by `;` or `|` (a comma separates fields), in a JSON record an
 *   array of names too. Empty: the person keeps their areas (a new person: `default`).
 * - `card`: the badge number (leading zeros dropped, 1 to 4294967295). Empty: kept as it is.
 * - The same `id` or the same card on two lines: the second is refused.
 */
import type { RecordsBody } from '../../platform/http/body';
import { hasControl, type LineError, type RecordFormat, readRecords } from '../../platform/records';
import { normaliseCard } from '../enrollees';

export interface PersonRow {
  line: number;
  id: string;
  name: string;
  /** Absent: keep (new: `default`). */
  areas?: string[];
  /** Normalised; absent: keep (new: none). */
  card?: string;
}

export type RowError = LineError;

const COLUMNS = ['id', 'name', 'areas', 'card'] as const;
const MAX_ID = 100;
const MAX_NAME = 200;

/** The rows of a body, then the file-wide refusals (a repeated id or card). */
export function personRows(body: RecordsBody): { rows: PersonRow[]; errors: RowError[] } {
  const read = readRecords(body, PERSON_RECORDS);
  return refuseRepeats(read.rows, read.errors);
}

const PERSON_RECORDS: RecordFormat<PersonRow> = {
  empty: 'the file is empty: a header row `id,name,areas,card` is needed',
  header(names) {
    const unknown = names.filter((n) => !(COLUMNS as readonly string[]).includes(n));
    const repeated = names.filter((n, i) => names.indexOf(n) !== i);
    if (names.includes('id') && names.includes('name') && unknown.length === 0 && repeated.length === 0) return null;
    const why = unknown.length > 0 ? ` (unknown: ${unknown.join(', ')})` : repeated.length > 0 ? ` (repeated: ${repeated.join(', ')})` : '';
    return `the header row must name the columns id and name, and may name areas and card${why}`;
  },
  csv: ({ line, cell }) => withLine(line, checkRow(cell('id'), cell('name'), cell('areas'), cell('card'))),
  notAnObject: 'each record must be an object with id and name, and optionally areas and card',
  json({ line, fields: r }) {
    // As every body of the API: a field it does not name is refused, not dropped silently.
    const unknown = Object.keys(r).filter((k) => !(COLUMNS as readonly string[]).includes(k));
    if (unknown.length > 0) return `unknown fields: ${unknown.join(', ')} (a record has id, name, areas and card)`;
    const text = (v: unknown) => (v === undefined || v === null ? undefined : typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
    const areas = Array.isArray(r.areas) ? (r.areas.every((a) => typeof a === 'string') ? r.areas.join(';') : null) : text(r.areas);
    const [id, name, card] = [text(r.id), text(r.name), text(r.card)];
    if (id === null || name === null || card === null || areas === null) return 'id, name and card must be text, areas text or a list of names';
    return withLine(line, checkRow(id, name, areas, card));
  },
};

function withLine(line: number, checked: Omit<PersonRow, 'line'> | string): PersonRow | string {
  return typeof checked === 'string' ? checked : { line, ...checked };
}

/** One record's fields checked; a message when it cannot be used. */
function checkRow(id: string | undefined, name: string | undefined, areas: string | undefined, card: string | undefined): Omit<PersonRow, 'line'> | string {
  const key = (id ?? '').trim();
  const display = (name ?? '').trim();
  if (!key) return 'the id is empty';
  if (key.length > MAX_ID || hasControl(key)) return `the id must be 1 to ${MAX_ID} characters without control characters`;
  if (!display) return 'the name is empty';
  if (display.length > MAX_NAME || hasControl(display)) return `the name must be 1 to ${MAX_NAME} characters without control characters`;
  const row: Omit<PersonRow, 'line'> = { id: key, name: display };
  const areaNames = (areas ?? '')
    .split(/[;|]/)
    .map((a) => a.trim())
    .filter(Boolean);
  if (areaNames.length > 0) {
    const bad = areaNames.find((a) => a.length > 100 || a.includes('/') || hasControl(a));
    if (bad !== undefined) return `the area name "${bad}" is not valid (1 to 100 characters, no slash)`;
    row.areas = [...new Set(areaNames)];
  }
  const cardText = (card ?? '').trim();
  if (cardText) {
    const checked = normaliseCard(cardText);
    if (!checked.ok) return `the card "${cardText}" is not a badge number (digits, 1 to 4294967295)`;
    row.card = checked.card;
  }
  return row;
}

function refuseRepeats(rows: PersonRow[], errors: RowError[]): { rows: PersonRow[]; errors: RowError[] } {
  const ids = new Map<string, number>();
  const cards = new Map<string, number>();
  const kept: PersonRow[] = [];
  const refused = [...errors];
  for (const row of rows) {
    const idLine = ids.get(row.id);
    const cardLine = row.card !== undefined ? cards.get(row.card) : undefined;
    if (idLine !== undefined) refused.push({ line: row.line, message: `the id ${row.id} is already on line ${idLine}` });
    else if (cardLine !== undefined) refused.push({ line: row.line, message: `the card ${row.card} is already on line ${cardLine}` });
    else {
      ids.set(row.id, row.line);
      if (row.card !== undefined) cards.set(row.card, row.line);
      kept.push(row);
    }
  }
  refused.sort((a, b) => a.line - b.line);
  return { rows: kept, errors: refused };
}
