/**
 * CSV as RFC 4180 writes it: records end with CRLF (LF and a lone CR are read too), fields are
 * separated by commas, a field holding a comma, a quote or a line break is quoted and its quotes
 * doubled. Hand-written (about 100 lines, property-tested in test/property/csv.property.test.ts)
 * rather than a dependency: the import needs each record's line number and a per-record error
 * that never loses the records around it, and the export only needs the quoting rule.
 */

/** One record of a CSV text: the fields, or why it could not be read. `line` is where it starts (1-based). */
export type CsvRecord = { line: number; fields: string[] } | { line: number; error: string };

/**
 * Splits a CSV text into records. Never throws. A leading byte-order mark is dropped; blank
 * lines are skipped. A record that breaks the quoting rules (text after a closing quote, a quote
 * inside an unquoted field, a quote never closed) is answered as an error for the line it
 * starts on, and reading resumes at the next line break outside quotes.
 */
export function parseCsv(text: string): CsvRecord[] {
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  const n = input.length;
  while (i < n) {
    const start = line;
    const fields: string[] = [];
    let error: string | null = null;
    let field = '';
    let atFieldStart = true;
    let ended = false;
    while (i < n && !ended) {
      const c = input[i]!;
      if (atFieldStart && c === '"') {
        // A quoted field: up to the closing quote, "" being one quote; line breaks are data.
        i++;
        let closed = false;
        while (i < n) {
          const q = input[i]!;
          if (q === '"') {
            if (input[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            closed = true;
            break;
          }
          if (q === '\n' || (q === '\r' && input[i + 1] !== '\n')) line++;
          field += q;
          i++;
        }
        if (!closed) {
          error = 'a quoted field is never closed';
          break;
        }
        atFieldStart = false;
        const next = input[i];
        if (next !== undefined && next !== ',' && next !== '\r' && next !== '\n') {
          error = 'text after the closing quote of a field';
          break;
        }
        continue;
      }
      if (c === ',') {
        fields.push(field);
        field = '';
        atFieldStart = true;
        i++;
        continue;
      }
      if (c === '\r' || c === '\n') {
        i += c === '\r' && input[i + 1] === '\n' ? 2 : 1;
        line++;
        ended = true;
        continue;
      }
      if (c === '"') {
        error = 'a quote inside an unquoted field (quote the whole field and double its quotes)';
        break;
      }
      field += c;
      atFieldStart = false;
      i++;
    }
    if (error !== null) {
      // Resume after the end of this line (the rest of the record is dropped).
      while (i < n && input[i] !== '\n' && input[i] !== '\r') i++;
      if (i < n) {
        i += input[i] === '\r' && input[i + 1] === '\n' ? 2 : 1;
        line++;
      }
      records.push({ line: start, error });
      continue;
    }
    fields.push(field);
    if (fields.length === 1 && fields[0] === '') continue;
    records.push({ line: start, fields });
  }
  return records;
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

/** One CSV record with its CRLF. */
export function csvRow(fields: readonly string[]): string {
  return `${fields.join(',')}\r\n`;
}
