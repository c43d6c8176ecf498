/**
 * The records of an import body, read one by one (pure: no database): CSV with a header row
 * naming the columns (any order, any case), its fields separated by commas or, when its header
 * row has semicolons and no comma (Excel in many European locales), by semicolons; or a JSON
 * array of objects. Each record becomes a row
 * or an error naming its line: the physical line it starts on in the CSV (the header is line 1),
 * its 1-based position in a JSON array. What a record must hold is the importer's own
 * (`employees/import/`, `punches/import/`): it hands its checks in as a `RecordFormat`.
 */
import { csvSeparatorOf, headerSeparators, parseCsv } from './csv';
import type { RecordsBody } from './http/body';

/** A record that cannot be used, or a file that cannot be read, by the line it is on. */
export interface LineError {
  line: number;
  message: string;
}

export interface ReadRecords<Row> {
  rows: Row[];
  errors: LineError[];
}

/** An importer's records: what its header must name, and each record's check (its row, or what is wrong). */
export interface RecordFormat<Row> {
  /** The message for a file without a single line (it names the header row wanted). */
  empty: string;
  /** What is wrong with the header row's names (trimmed, lower case); null when they do. */
  header(names: readonly string[]): string | null;
  /** A CSV record: `cell(name)` is its field in that column (undefined when the header has none). */
  csv(record: { line: number; fields: readonly string[]; cell(name: string): string | undefined }): Row | string;
  /** The message for an item of a JSON array that is not an object. */
  notAnObject: string;
  /** A JSON record (an object). */
  json(record: { line: number; fields: Record<string, unknown> }): Row | string;
}

export function readRecords<Row>(body: RecordsBody, format: RecordFormat<Row>): ReadRecords<Row> {
  return typeof body === 'string' ? csvRecords(body, format) : jsonRecords(body, format);
}

function csvRecords<Row>(text: string, format: RecordFormat<Row>): ReadRecords<Row> {
  const rows: Row[] = [];
  const errors: LineError[] = [];
  const [header, ...records] = parseCsv(text, csvSeparatorOf(text));
  if (!header) return { rows, errors: [{ line: 1, message: format.empty }] };
  if ('error' in header) return { rows, errors: [{ line: header.line, message: `the header row cannot be read: ${header.error}${separatorSaid(text)}` }] };
  const names = withoutTrailingBlanks(header.fields.map((f) => f.trim().toLowerCase()));
  const wrong = format.header(names);
  if (wrong !== null) return { rows, errors: [{ line: header.line, message: `${wrong}${separatorSaid(text)}` }] };
  for (const record of records) {
    if ('error' in record) {
      errors.push({ line: record.line, message: record.error });
      continue;
    }
    if (record.fields.length < names.length || record.fields.slice(names.length).some((f) => f.trim() !== '')) {
      errors.push({ line: record.line, message: `expected ${names.length} fields as in the header, found ${record.fields.length}` });
      continue;
    }
    const line = record.line;
    const fields = record.fields.slice(0, names.length);
    const cell = (name: string) => {
      const at = names.indexOf(name);
      return at < 0 ? undefined : fields[at];
    };
    const checked = format.csv({ line, fields, cell });
    if (typeof checked === 'string') errors.push({ line, message: checked });
    else rows.push(checked);
  }
  return { rows, errors };
}

/**
 * What a header row that cannot be used was read as: the separator found in it (a file saved by
 * another program may separate its columns by tabs, say, and then it holds neither).
 */
function separatorSaid(text: string): string {
  const { commas, semicolons } = headerSeparators(text);
  if (semicolons > 0 && commas === 0) return '; its columns were read as separated by semicolons (;), the separator of its header row';
  if (commas > 0) return '; its columns were read as separated by commas (,), the separator of its header row';
  return '; its header row has no comma (,) or semicolon (;) between the column names: save the file as CSV, its columns separated by commas or semicolons';
}

/**
 * The header's names without the blank ones at its end, whose columns are then ignored where
 * empty: Excel saves the empty columns of its range too (`id,name,areas,card,,`, each row ending
 * `,,`). A value under no header still costs its record (the field count says so).
 */
function withoutTrailingBlanks(names: string[]): string[] {
  let end = names.length;
  while (end > 0 && names[end - 1] === '') end--;
  return names.slice(0, end);
}

function jsonRecords<Row>(records: readonly unknown[], format: RecordFormat<Row>): ReadRecords<Row> {
  const rows: Row[] = [];
  const errors: LineError[] = [];
  records.forEach((record, index) => {
    const line = index + 1;
    const checked = isRecord(record) ? format.json({ line, fields: record }) : format.notAnObject;
    if (typeof checked === 'string') errors.push({ line, message: checked });
    else rows.push(checked);
  });
  return { rows, errors };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The text without its control characters: C0 (U+0000–U+001F), DEL and C1 (U+0080–U+009F), for
 * text the service did not check itself (a terminal's) before it is stored: an escape sequence
 * (`ESC [2J`, an OSC title) would otherwise reach a screen, a log or a file as it came.
 */
export function withoutControls(text: string): string {
  return text.replace(/\p{Cc}/gu, '');
}

/** Whether the text holds a control character (U+0000–U+001F, U+007F), as the API's `Text` refuses. */
export function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}
