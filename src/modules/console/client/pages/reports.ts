/**
 * Reports: a page per report (daily, timesheet, summary, exceptions), each with its filters
 * (a date or a period, an area from `areas/`, a person found by name or employee id) and a
 * download button per format. The browser downloads the file itself (../download.ts), with a
 * status beside the buttons while it is prepared; a refusal shows beside them in plain words,
 * not as a file of JSON.
 */

import type { ReportPreviewView } from '../../../reports';
import { API, ApiError, api, can, everyRow, query } from '../api';
import { button, field, h, input, replace, section, select } from '../dom';
import { downloadFile } from '../download';
import { FieldError } from '../form-errors';
import { localDate } from '../format';
import { personPicker } from '../person-picker';
import { previewOf } from './report-preview';

type Kind = 'daily' | 'timesheet' | 'summary' | 'exceptions';

const REPORTS: { kind: Kind; title: string; about: string }[] = [
  { kind: 'daily', title: 'Daily', about: 'Everyone’s day on one date: first in, last out, worked, late, early leave and status.' },
  {
    kind: 'timesheet',
    title: 'Timesheet',
    about:
      'A person’s period, one row per date with every punch and the totals; the PDF has signature lines for the employee and the employer. Without a person: one per person of the area.',
  },
  { kind: 'summary', title: 'Summary', about: 'Per person the totals of the period: days present, absent, on leave, late; hours worked, expected, overtime.' },
  {
    kind: 'exceptions',
    title: 'Exceptions',
    about:
      'One row per late arrival, early leave, absence, missing punch or overtime in the period, and per day to review: one that counts a punch from an unconfirmed terminal address, one dated after it arrived (a terminal clock ahead), one in the hour the clocks went back, or one dated by a terminal clock that started over (a flat clock battery).',
  },
];

const FORMATS: [string, string][] = [
  ['csv', 'CSV'],
  ['xlsx', 'Excel'],
  ['pdf', 'PDF'],
];

const EXCEPTION_KINDS: [string, string][] = [
  ['late', 'Late'],
  ['early_leave', 'Early leave'],
  ['absent', 'Absent'],
  ['missing_punch', 'Missing punch'],
  ['overtime', 'Overtime'],
  ['unconfirmed_terminal', 'Unconfirmed terminal address'],
  ['clock_ahead', 'Terminal clock ahead'],
  ['dst_overlap', 'Hour the clocks went back'],
  ['clock_reset', 'Terminal clock started over'],
];

/** The first and last date of the month before the one `today` is in (payroll's usual period). */
function lastMonth(today: string): [string, string] {
  const first = new Date(`${today.slice(0, 8)}01T12:00:00Z`);
  const end = new Date(first.getTime() - 86_400_000);
  const start = `${end.toISOString().slice(0, 8)}01`;
  return [start, end.toISOString().slice(0, 10)];
}

export async function reportsPage(main: HTMLElement, params: string[]): Promise<undefined> {
  const current = REPORTS.find((r) => r.kind === params[0]) ?? REPORTS[0]!;
  const areas = await everyRow<{ name: string }>('areas/');
  const tabs = h(
    'nav',
    { class: 'tabs', 'aria-label': 'Reports' },
    h('ul', {}, ...REPORTS.map((r) => h('li', {}, h('a', { href: `#/reports/${r.kind}`, 'aria-current': r.kind === current.kind ? 'page' : null }, r.title)))),
  );
  const filters = filtersOf(current.kind, areas);
  const problem = h('p', { class: 'error', role: 'alert', id: 'report-problem' });
  // What a download is doing, beside its buttons: "Preparing the file…" while the server builds it.
  const status = h('p', { class: 'download-status', role: 'status', id: 'report-status' });
  const shown = h('div', { id: 'report-preview' });
  // The filters' query, or null once what is wrong with them is shown beside them.
  const asked = async (): Promise<string | null> => {
    problem.textContent = '';
    for (const note of Array.from(main.querySelectorAll('.field-error'))) note.remove();
    for (const marked of Array.from(main.querySelectorAll('[aria-invalid]'))) marked.removeAttribute('aria-invalid');
    const q = await fetched(() => filters.query(), problem);
    if (q === null) return null;
    if (typeof q === 'string') return q;
    refuse(q, problem);
    return null;
  };
  const preview = button(
    'Preview',
    async () => {
      const q = await asked();
      if (q === null) return;
      const read = await fetched(() => api.get<ReportPreviewView>(`reports/${current.kind}/preview/${q}`), problem);
      replace(shown, read ? previewOf(read) : null);
    },
    { class: 'primary', 'aria-describedby': 'report-problem' },
  );
  const downloads = downloadButtons(current.kind, asked, status, problem);
  replace(
    main,
    h('h1', {}, 'Reports'),
    tabs,
    section(
      `${current.title} report`,
      h('p', {}, current.about),
      h('form', { class: 'inline-form', onsubmit: (e: Event) => e.preventDefault() }, ...filters.fields),
      h('div', { class: 'actions downloads' }, preview, ...downloads, status),
      problem,
      shown,
      // For whoever connects other systems (they manage API keys); HR has no use for the path.
      can('POST api-keys/') && h('p', { class: 'api-hint' }, `Integrations: GET ${API}/reports/${current.kind}.csv (or .xlsx, .pdf) with the same filters.`),
    ),
  );
  return undefined;
}

/**
 * A download button per format. One file at a time: the page learns that a download has begun
 * from a cookie the server sets (../download.ts), so every button waits while one is prepared.
 */
function downloadButtons(kind: Kind, asked: () => Promise<string | null>, status: HTMLElement, problem: HTMLElement): HTMLButtonElement[] {
  let preparing = false;
  const buttons: HTMLButtonElement[] = FORMATS.map(([format, label]) =>
    button(
      `Download ${label}`,
      async () => {
        if (preparing) return;
        status.textContent = '';
        const q = await asked();
        if (q === null) return;
        preparing = true;
        for (const b of buttons) b.setAttribute('aria-disabled', 'true');
        try {
          await download(`reports/${kind}.${format}${format === 'csv' ? withBom(q) : q}`, status, problem);
        } finally {
          preparing = false;
          for (const b of buttons) b.removeAttribute('aria-disabled');
        }
      },
      { 'data-format': format, 'aria-describedby': 'report-problem report-status' },
    ),
  );
  return buttons;
}

const NOT_FOUND = 'That person or area does not exist, or is outside the areas you may see.';
const SIGNED_OUT = 'Your session has ended. Sign in again.';

/** A refusal beside the control it is about (announced, and tied to the control), or under the buttons. */
function refuse(refusal: Refusal, problem: HTMLElement): void {
  if (!refusal.at) {
    problem.textContent = refusal.error;
    return;
  }
  const id = `${refusal.at.id || 'report-filter'}-error`;
  const note = h('small', { class: 'field-error error', id, role: 'alert' }, refusal.error);
  refusal.at.setAttribute('aria-invalid', 'true');
  const described = new Set((refusal.at.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean)).add(id);
  refusal.at.setAttribute('aria-describedby', [...described].join(' '));
  refusal.at.after(note);
  refusal.at.focus();
}

/** What `ask` answers, or null once its refusal is shown under the buttons in plain words. */
async function fetched<T>(ask: () => Promise<T>, problem: HTMLElement): Promise<T | null> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) problem.textContent = NOT_FOUND;
    else problem.textContent = error instanceof Error ? error.message : String(error);
    return null;
  }
}

/**
 * A CSV downloaded here is opened by a person, in Excel more often than not: it asks for the
 * byte-order mark Excel on Windows needs to read UTF-8 (José, not JosÃ©). The API's default
 * (none: a CSV is for machines) is left to machines.
 */
function withBom(q: string): string {
  return `${q}${q ? '&' : '?'}bom=true`;
}

/**
 * The browser downloads the file itself (../download.ts: nothing of it is held in this page), and
 * the status beside the buttons says what is happening: "Preparing the file…" while the server
 * builds it (a PDF is built whole first; a month's Excel timesheets of everyone stream for a
 * while after their first byte, in the browser's downloads), then that it is on its way. A
 * refusal is said under the buttons, as for the preview.
 */
async function download(path: string, status: HTMLElement, problem: HTMLElement): Promise<void> {
  status.textContent = 'Preparing the file…';
  const outcome = await downloadFile(path);
  if ('started' in outcome) {
    status.textContent = outcome.started ? `Downloading ${outcome.started}: your browser saves it.` : '';
    return;
  }
  status.textContent = '';
  const { code, message } = outcome.refused;
  problem.textContent = code === 'not_found' ? NOT_FOUND : code === 'unauthorized' ? SIGNED_OUT : message;
}

/** What is wrong with the filters, and the control it is about (the message is shown beside it). */
interface Refusal {
  error: string;
  at?: HTMLElement;
}

interface Filters {
  fields: HTMLElement[];
  /** The query string, or what is wrong with the filters (the person typed is looked up first). */
  query(): Promise<string | Refusal>;
}

/** The period of a report: two dates, the usual periods a click away, and their check. */
interface Period {
  fields: HTMLElement[];
  params(): { from: string; to: string };
  check(): Refusal | null;
}

function periodFilter(today: string): Period {
  const [monthFrom, monthTo] = lastMonth(today);
  const from = input({ type: 'date', value: monthFrom, required: true, name: 'from' });
  const to = input({ type: 'date', value: monthTo, required: true, name: 'to' });
  const preset = (label: string, range: [string, string]) =>
    button(
      label,
      () => {
        [from.value, to.value] = range;
      },
      { class: 'preset' },
    );
  return {
    fields: [
      field('From', from),
      field('To', to),
      h(
        'div',
        { class: 'presets', role: 'group', 'aria-label': 'Period' },
        preset('Last month', [monthFrom, monthTo]),
        preset('This month', [`${today.slice(0, 8)}01`, today]),
      ),
    ],
    params: () => ({ from: from.value, to: to.value }),
    check: () => {
      if (!from.value) return { error: 'Choose the first date.', at: from };
      if (!to.value) return { error: 'Choose the last date.', at: to };
      if (to.value < from.value) return { error: 'The last date is before the first.', at: to };
      if (Date.parse(to.value) - Date.parse(from.value) >= 366 * 86_400_000) return { error: 'A report covers at most 366 days.', at: to };
      return null;
    },
  };
}

/** A person by name or employee id, found on the server as it is typed (../person-picker.ts). */
function personFilter(): { fields: HTMLElement[]; employee(): Promise<string | Refusal | null> } {
  const picker = personPicker({ label: 'Person', field: 'employee', hint: 'Leave empty for everyone in the area.' });
  return {
    fields: [picker.element],
    employee: async () => {
      try {
        return (await picker.person())?.employee ?? null;
      } catch (error) {
        if (error instanceof FieldError) return { error: error.message, at: picker.control };
        throw error;
      }
    },
  };
}

function kindsFilter(): { fields: HTMLElement[]; kinds(): string | Refusal } {
  const boxes = EXCEPTION_KINDS.map(([value, label]) => {
    const box = input({ type: 'checkbox', name: 'kind', value, checked: true });
    return { box, el: h('label', { class: 'check' }, box, label) };
  });
  const set = h('fieldset', { class: 'event-types' }, h('legend', {}, 'Exceptions'), ...boxes.map((b) => b.el));
  return {
    fields: [set],
    kinds: () => {
      const chosen = boxes.filter((b) => b.box.checked).map((b) => b.box.value);
      if (chosen.length === 0) return { error: 'Choose at least one kind of exception.', at: set };
      return chosen.length === boxes.length ? '' : chosen.join(',');
    },
  };
}

function filtersOf(kind: Kind, areas: { name: string }[]): Filters {
  const today = localDate();
  const area = select([['', 'All areas'], ...areas.map((a): [string, string] => [a.name, a.name])], { name: 'area' });
  const areaField = field('Area', area);
  if (kind === 'daily') {
    const date = input({ type: 'date', value: today, required: true, name: 'date' });
    return {
      fields: [field('Date', date), areaField],
      query: async () => (date.value ? query({ date: date.value, area: area.value }) : { error: 'Choose a date.', at: date }),
    };
  }
  const period = periodFilter(today);
  if (kind === 'timesheet') {
    const person = personFilter();
    return {
      fields: [...period.fields, h('div', { class: 'row-break' }), areaField, ...person.fields],
      query: async () => {
        const employee = await person.employee();
        const wrong = period.check() ?? (employee !== null && typeof employee !== 'string' ? employee : null);
        if (wrong) return wrong;
        return query({ ...period.params(), employee: employee as string | null, area: employee ? '' : area.value });
      },
    };
  }
  if (kind === 'summary')
    return { fields: [...period.fields, areaField], query: async () => period.check() ?? query({ ...period.params(), area: area.value }) };
  const kinds = kindsFilter();
  return {
    fields: [...period.fields, areaField, ...kinds.fields],
    query: async () => {
      const chosen = kinds.kinds();
      const wrong = period.check() ?? (typeof chosen === 'string' ? null : chosen);
      return wrong ?? query({ ...period.params(), area: area.value, kind: chosen as string });
    },
  };
}
