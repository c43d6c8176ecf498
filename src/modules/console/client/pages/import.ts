/**
 * Import people from a spreadsheet: choose a CSV file (`id,name,areas,card`), see what it would
 * change (a dry run: people to add, people to change, lines that cannot be used and why), then
 * import. Nothing of a line with a problem is stored.
 */
import type { Static } from '@sinclair/typebox';
import type { ImportResult } from '../../../employee-import';
import { api, currentSession } from '../api';
import { badge, h, replace, scrollsSideways, section, table } from '../dom';
import { badLines, fileImport } from '../file-import';
import { count } from '../format';

type Result = Static<typeof ImportResult>;

const ACTION: Record<Result['changes'][number]['action'], [string, 'ok' | 'info' | 'muted']> = {
  create: ['New', 'ok'],
  update: ['Changed', 'info'],
  unchanged: ['No change', 'muted'],
};

function whatChanges(fields: Result['changes'][number]['fields']): string {
  const parts: string[] = [];
  if (fields.name) parts.push(fields.name.from ? `name ${fields.name.from} → ${fields.name.to}` : `name ${fields.name.to}`);
  if (fields.areas) parts.push(fields.areas.from !== null ? `areas ${fields.areas.from || 'none'} → ${fields.areas.to}` : `areas ${fields.areas.to}`);
  if (fields.card) parts.push(fields.card.from ? `card ${fields.card.from} → ${fields.card.to}` : `card ${fields.card.to}`);
  return parts.join('; ') || '—';
}

function summary(result: Result): string {
  const verb = (n: number) => (result.dry_run ? 'would be' : n === 1 ? 'was' : 'were');
  const people = (n: number, what: string) => `${count(n, 'person', 'people')} ${verb(n)} ${what}`;
  return `${people(result.created, 'added')}, ${people(result.updated, 'changed')}, ${count(result.unchanged, 'line', 'lines')} already up to date, ${count(result.errors.length, 'line', 'lines')} cannot be used.`;
}

function report(result: Result): HTMLElement[] {
  return [
    h('p', { class: 'import-summary', role: 'status' }, summary(result)),
    badLines(result.errors, 'Nothing of these lines is stored. Correct them in the file and import it again.'),
    section(
      result.dry_run ? 'What the import would do' : 'What was imported',
      table(
        ['Line', 'Employee ID', 'Name', 'Change', 'What changes'],
        result.changes.map((c) => [String(c.line), c.employee, c.name, badge(...ACTION[c.action]), whatChanges(c.fields)]),
        'No line can be imported.',
      ),
    ),
  ].filter((x): x is HTMLElement => x !== null);
}

export async function importPage(main: HTMLElement): Promise<undefined> {
  const { form, out } = fileImport<Result>({
    label: 'CSV file',
    hint: 'A header row id,name,areas,card, its columns separated by commas or semicolons (as Excel saves CSV in many countries); several areas separated by “;” or “|”. Empty areas or card: kept as they are.',
    accept: '.csv,text/csv',
    maxBytes: currentSession().import_max_bytes,
    send: (csv, check) => api.postCsv<Result>(`employees/import/${check ? '?dry_run=true' : ''}`, String(csv)),
    report,
    summary,
    worth: (result) => result.created + result.updated > 0,
  });
  replace(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/people' }, 'People'), ' › ', 'Import'),
    h('h1', {}, 'Import people'),
    h(
      'p',
      {},
      'Add or update many people at once from a spreadsheet saved as CSV. The file is checked first: you see who would be added or changed, and which lines have a problem, before anything is stored.',
    ),
    section('Choose the file', form, ...exampleFile()),
    out,
  );
  return undefined;
}

/** What such a file looks like, labelled as an example (unlabelled, it passed for the content of the file chosen); on a phone its lines scroll, by keyboard too. */
function exampleFile(): HTMLElement[] {
  return [
    h('p', { class: 'muted' }, 'An example of such a file:'),
    scrollsSideways(
      h(
        'pre',
        { class: 'example', 'aria-label': 'An example file' },
        'id,name,areas,card\nE-001,Ada Obi,Head Office,10001\nE-002,Ben Lee,Head Office;Warehouse,',
      ),
    ),
  ];
}
