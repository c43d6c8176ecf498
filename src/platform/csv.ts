/**
 * CSV as RFC 4180 writes it: records end with CRLF (LF and a lone CR are read too), fields are
 * separated by commas, a field holding a comma, a quote or a line break is quoted and its quotes
 * doubled (the files we write). Read with semicolons too (`csvSeparatorOf`): Excel in many European locales (German,
 * French, Dutch…) saves "CSV" with `;` between fields, since `,` is their decimal comma.
 * Hand-written (about 150 lines, property-tested in test/property/csv.property.test.ts) rather
 * than a dependency: the import needs each record's line number and a per-record error that
 * never loses the records around it, and the export only needs the quoting rule.
 */

/** What separates the fields of a record: a comma, or (Excel in many European locales) a semicolon. */
export type CsvSeparator = ',' | ';';

/**
 * The separators outside quotes on a CSV text's header row: its first line with anything but
 * separators (after a byte-order mark; blank lines and Excel's empty rows before it are
 * skipped, as the reader skips them).
 */
export function headerSeparators(text: string): { commas: number; semicolons: number } {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < text.length) {
    let commas = 0;
    let semicolons = 0;
    let content = false;
    let quoted = false;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (quoted) {
        if (c === '"' && text[i + 1] === '"') i++;
        else if (c === '"') quoted = false;
        continue;
      }
      if (c === '\r' || c === '\n') break;
      if (c === '"') {
        quoted = true;
        content = true;
      } else if (c === ',') commas++;
      else if (c === ';') semicolons++;
      else content = true;
    }
    if (content) return { commas, semicolons };
    i += text[i] === '\r' && text[i + 1] === '\n' ? 2 : 1;
  }
  return { commas: 0, semicolons: 0 };
}

/**
 * The separator a CSV text is read with, told by its header row: `;` when the header row has
 * semicolons and no comma (outside quotes), else `,`. A header row names columns, so a file
 * separated by semicolons says so in its first line whatever its records hold (a decimal comma,
 * a comma in a name).
 */
export function csvSeparatorOf(text: string): CsvSeparator {
  const { commas, semicolons } = headerSeparators(text);
  return semicolons > 0 && commas === 0 ? ';' : ',';
}

/** One record of a CSV text: the fields, or why it could not be read. `line` is where it starts (1-based). */
export type CsvRecord = { line: number; fields: string[] } | { line: number; error: string };

/**
 * Splits a CSV text into records, its fields separated by `separator` (a comma unless told).
 * Never throws. A leading byte-order mark is dropped; blank lines are skipped, and so are records
 * of empty fields only (`,,,`: the empty rows Excel writes inside the range it saves, as blank as
 * a blank line). A record that breaks the quoting rules (text after a closing quote, a quote
 * inside an unquoted field, a quote never closed) is answered as an error for the line it
 * starts on, and reading resumes at the next line break outside quotes.
 */
export function parseCsv(text: string, separator: CsvSeparator = ','): CsvRecord[] {
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const at: Cursor = { input, i: 0, line: 1, separator };
  const records: CsvRecord[] = [];
  while (at.i < input.length) {
    const start = at.line;
    const record = readRecord(at);
    if ('error' in record) {
      // Resume after the end of this line (the rest of the record is dropped).
      skipLine(at);
      records.push({ line: start, error: record.error });
      continue;
    }
    if (record.fields.every((f) => f === '')) continue;
    records.push({ line: start, fields: record.fields });
  }
  return records;
}

/** Where reading is: the text, the index of the next character, the line it is on (1-based), and what separates fields. */
interface Cursor {
  input: string;
  i: number;
  line: number;
  separator: CsvSeparator;
}

/** One record from the cursor through its line break: its fields, or the first quoting rule it breaks (the cursor then stops there). */
function readRecord(at: Cursor): { fields: string[] } | { error: string } {
  const { input, separator } = at;
  const fields: string[] = [];
  let field = '';
  let atFieldStart = true;
  while (at.i < input.length) {
    const c = input[at.i]!;
    if (atFieldStart && c === '"') {
      at.i++;
      const quoted = readQuoted(at);
      if (quoted === null) return { error: 'a quoted field is never closed' };
      field = quoted;
      atFieldStart = false;
      const next = input[at.i];
      if (next !== undefined && next !== separator && next !== '\r' && next !== '\n') return { error: 'text after the closing quote of a field' };
      continue;
    }
    if (c === separator) {
      fields.push(field);
      field = '';
      atFieldStart = true;
      at.i++;
      continue;
    }
    if (c === '\r' || c === '\n') {
      at.i += c === '\r' && input[at.i + 1] === '\n' ? 2 : 1;
      at.line++;
      break;
    }
    if (c === '"') return { error: 'a quote inside an unquoted field (quote the whole field and double its quotes)' };
    field += c;
    atFieldStart = false;
    at.i++;
  }
  fields.push(field);
  return { fields };
}

/** A quoted field, from just after its opening quote through the closing one: "" is one quote, line breaks are data. Null when it is never closed. */
function readQuoted(at: Cursor): string | null {
  const { input } = at;
  let field = '';
  while (at.i < input.length) {
    const q = input[at.i]!;
    if (q === '"') {
      if (input[at.i + 1] === '"') {
        field += '"';
        at.i += 2;
        continue;
      }
      at.i++;
      return field;
    }
    if (q === '\n' || (q === '\r' && input[at.i + 1] !== '\n')) at.line++;
    field += q;
    at.i++;
  }
  return null;
}

/** Past the next line break (or to the end). */
function skipLine(at: Cursor): void {
  const { input } = at;
  while (at.i < input.length && input[at.i] !== '\n' && input[at.i] !== '\r') at.i++;
  if (at.i < input.length) {
    at.i += input[at.i] === '\r' && input[at.i + 1] === '\n' ? 2 : 1;
    at.line++;
  }
}

/** A field as CSV text: quoted when it holds a comma, a quote, a line break or edge spaces. */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * A field people will open in a spreadsheet: text that starts like a formula (`=`, `+`, `-`,
 * `@`, tab, CR) is prefixed with `'` so it is shown, not evaluated (OWASP "CSV injection").
 * For names and keys that came from outside, never for the numbers and times we write.
 */
export function csvText(value: string | null | undefined): string {
  if (value === null || value === undefined) return '';
  return csvField(/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
}

/** A CSV stream that starts with the UTF-8 byte-order mark (`?bom=true`, for Excel on Windows), or as it is. */
export function withByteOrderMark(stream: ReadableStream<Uint8Array>, bom: boolean | undefined): ReadableStream<Uint8Array> {
  if (!bom) return stream;
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start: (controller) => controller.enqueue(new Uint8Array([0xef, 0xbb, 0xbf])),
    }),
  );
}

/** One CSV record with its CRLF. */
export function csvRow(fields: readonly string[]): string {
  return `${fields.join(',')}\r\n`;
}
