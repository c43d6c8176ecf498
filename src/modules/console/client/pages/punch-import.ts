/**
 * Import punches from a spreadsheet (`punches/import/`): the punches of another system (the old
 * attendance software's last month, a paper sheet typed in), one a line as
 * `employee,at,state`. The file is checked first (what would be added, what is already here,
 * lines that cannot be used and why), then imported. Nothing of a line with a problem is stored,
 * and importing the same file again adds nothing.
 */
import type { Static } from '@sinclair/typebox';
import type { PunchImport } from '../../../punches';
import { api, currentSession } from '../api';
import { h, replace, scrollsSideways, section } from '../dom';
import { badLines, fileImport } from '../file-import';
import { count } from '../format';

type Result = Static<typeof PunchImport.response>;

function summary(result: Result): string {
  const punches = (n: number) => count(n, 'punch', 'punches');
  const added = result.dry_run ? `${punches(result.imported)} would be added` : `${punches(result.imported)} added`;
  const parts = [added];
  if (result.duplicates > 0) parts.push(`${result.duplicates} already here or repeated in the file`);
  if (result.errors.length > 0) parts.push(`${count(result.errors.length, 'line', 'lines')} cannot be used`);
  return `${parts.join(', ')}.`;
}

function report(result: Result): HTMLElement[] {
  return [
    h('p', { class: 'import-summary', role: 'status' }, summary(result)),
    badLines(result.errors, 'Nothing of these lines is stored. Correct them in the file and import it again: what was added already is not added twice.'),
  ].filter((x): x is HTMLElement => x !== null);
}

export async function punchImportPage(main: HTMLElement): Promise<undefined> {
  const { form, out } = fileImport<Result>({
    label: 'CSV file',
    hint: 'A header row employee,at,state, its columns separated by commas or semicolons (as Excel saves CSV in many countries); state is optional (0 in, 1 out).',
    accept: '.csv,text/csv',
    maxBytes: currentSession().import_max_bytes,
    send: (csv, check) => api.postCsv<Result>(`punches/import/${check ? '?dry_run=true' : ''}`, String(csv)),
    report,
    summary,
    worth: (result) => result.imported > 0,
  });
  replace(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/punches' }, 'Punches'), ' › ', 'Import'),
    h('h1', {}, 'Import punches'),
    h(
      'p',
      {},
      'Add many punches at once from a spreadsheet saved as CSV: another system’s punches, or a sheet of times typed in. Each line is a person’s employee ID and the time. The file is checked first: you see how many punches would be added and which lines have a problem, before anything is stored. A terminal’s own file from its USB stick is imported on that terminal’s page instead.',
    ),
    section('Choose the file', form, ...exampleFile()),
    out,
  );
  return undefined;
}

/**
 * What such a file looks like, labelled as an example (on a phone its lines scroll, by keyboard
 * too); a time without an offset is read where its person works (README "Time zones").
 */
function exampleFile(): HTMLElement[] {
  const zone = currentSession().time_zone;
  return [
    h('p', { class: 'muted' }, `An example of such a file (a time without its offset is read in the person’s time zone: their area’s, else ${zone}):`),
    scrollsSideways(
      h(
        'pre',
        { class: 'example', 'aria-label': 'An example file' },
        'employee,at,state\nE-001,2026-11-02 08:01,0\nE-001,2026-11-02 17:05,1\nE-002,2026-11-02T09:00:00+01:00,0',
      ),
    ),
  ];
}
