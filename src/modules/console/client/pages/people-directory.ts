/**
 * The built-in employee directory on the People page: the employees not enrolled yet (active, and
 * nobody enrolled for them), 50 a page by employee id, each of whom can be deactivated (someone
 * who left before being enrolled, or whose person was deleted elsewhere); and the inactive
 * employees (who left), reactivated or erased from the directory. The server works the lists out
 * (`employees/?enrolled=false&active=true`, `employees/?active=false`): compared here with a page of
 * each list, anyone past the API's 1,000 was left out. Nothing when there are none, or no built-in
 * directory (a host's own answers 404).
 */

import type { EmployeeView } from '../../../employees';
import { api, can, type List, query } from '../api';
import { announce, button, type Child, confirmAction, h, replace, section, table } from '../dom';
import { count, dateTime } from '../format';

const PAGE = 50;

type Redraw = () => Promise<void>;

/** The directory's sections of the People page: not enrolled yet, and inactive (each null when empty or not served). */
export async function directorySections(redraw: Redraw): Promise<(HTMLElement | null)[]> {
  if (!can('GET employees/')) return [null, null];
  const path = (e: EmployeeView) => `employees/${encodeURIComponent(e.id)}/`;
  const changes = can('PATCH employees/{id}/');
  const notEnrolled = pagedEmployees('not-enrolled', { enrolled: 'false', active: 'true' }, ['Employee ID', 'Name', ...(changes ? [''] : [])], (e) => [
    e.id,
    e.name,
    ...(changes ? [deactivateButton(e, path(e), redraw)] : []),
  ]);
  const inactive = pagedEmployees('inactive-employees', { active: 'false' }, ['Employee ID', 'Name', 'Inactive since', ...(changes ? [''] : [])], (e) => [
    e.id,
    e.name,
    dateTime(e.deactivated_at),
    ...(changes
      ? [h('span', { class: 'actions' }, reactivateButton(e, path(e), redraw), can('DELETE employees/{id}/') && eraseButton(e, path(e), redraw))]
      : []),
  ]);
  const [open, left] = await Promise.all([notEnrolled, inactive]);
  return [
    open && section('Employees not enrolled yet', ...open, can('POST enrollees/') && h('p', { class: 'muted' }, 'Enter an employee ID above to enroll them.')),
    left &&
      section(
        'Inactive employees',
        h(
          'p',
          { class: 'muted' },
          'People who left: not offered for enrollment. Reactivate someone who comes back; Erase removes their name from the employee directory (the reports of the dates they worked keep it until the retention period ends).',
        ),
        ...left,
      ),
  ];
}

function deactivateButton(e: EmployeeView, path: string, redraw: Redraw): HTMLElement {
  return button(
    'Deactivate',
    async () => {
      const asked = await confirmAction(`Deactivate ${e.name} (${e.id}) in the employee directory?`, {
        action: 'Deactivate',
        detail: 'For someone who left: they are no longer offered for enrollment and cannot be enrolled until reactivated (Inactive employees, below).',
      });
      if (!asked) return;
      await api.patch(path, { active: false });
      await redraw();
      announce(`${e.name} is inactive in the employee directory.`);
    },
    { 'aria-label': `Deactivate ${e.name}` },
  );
}

function reactivateButton(e: EmployeeView, path: string, redraw: Redraw): HTMLElement {
  return button(
    'Reactivate',
    async () => {
      await api.patch(path, { active: true });
      await redraw();
      announce(`${e.name} is active again in the employee directory: enroll them above, or reactivate their person.`);
    },
    { 'aria-label': `Reactivate ${e.name}` },
  );
}

function eraseButton(e: EmployeeView, path: string, redraw: Redraw): HTMLElement {
  return button(
    'Erase',
    async () => {
      const asked = await confirmAction(`Erase ${e.name} (${e.id}) from the employee directory?`, {
        action: 'Erase',
        typed: e.id,
        detail:
          'Their name and employee ID are removed from the directory. The reports of the dates they worked still name them until the retention period ends. Someone who comes back is added again.',
      });
      if (!asked) return;
      await api.delete(path);
      await redraw();
      announce(`${e.id} erased from the employee directory.`);
    },
    { 'aria-label': `Erase ${e.name}`, class: 'danger' },
  );
}

/**
 * A list of the directory's employees, a page at a time with its pager and a short status (not a
 * live region: each page was read out whole); null when the first page is empty or not served.
 */
async function pagedEmployees(id: string, filter: Record<string, string>, headers: string[], row: (e: EmployeeView) => Child[]): Promise<HTMLElement[] | null> {
  const results = h('div', { id });
  const shown = h('p', { class: 'visually-hidden', role: 'status' });
  // Cursors of the pages seen so far: Previous goes back one.
  let cursors: (string | null)[] = [null];
  let nobody = false;
  const load = async (page: number): Promise<void> => {
    const list = await api.get<List<EmployeeView>>(`employees/${query({ ...filter, limit: PAGE, cursor: cursors[page] })}`);
    cursors = [...cursors.slice(0, page + 1), list.next_cursor];
    replace(results, table(headers, list.results.map(row)), pager(page, list, load));
    // (The first page's is written before the section is on the page: not announced, read with it.)
    const first = page * PAGE + 1;
    shown.textContent = `Employees ${first} to ${first + list.results.length - 1} shown.`;
    nobody = page === 0 && list.results.length === 0;
  };
  const loaded = await load(0).then(
    () => true,
    () => false,
  );
  return !loaded || nobody ? null : [shown, results];
}

function pager(page: number, list: List<EmployeeView>, load: (page: number) => Promise<void>): HTMLElement {
  if (page === 0 && !list.next_cursor) return h('p', { class: 'muted' }, count(list.results.length, 'employee', 'employees'));
  const first = page * PAGE + 1;
  return h(
    'div',
    { class: 'actions pager' },
    page > 0 ? button('Previous employees', () => load(page - 1)) : null,
    h('span', { class: 'muted' }, `Employees ${first} to ${first + list.results.length - 1}`),
    list.next_cursor ? button('Next employees', () => load(page + 1)) : null,
  );
}

/** Whether the employee's entry is to be deactivated with their person: in the built-in directory, active, and the caller may. */
export async function directoryEntryOf(employee: string): Promise<EmployeeView | null> {
  if (!can('PATCH employees/{id}/')) return null;
  const entry = await api.get<EmployeeView>(`employees/${encodeURIComponent(employee)}/`).catch(() => null);
  return entry?.active ? entry : null;
}

/** After a person's deletion: their directory entry made inactive (a failure is said, the deletion stands). */
export async function deactivateEntry(entry: EmployeeView): Promise<string> {
  return api.patch(`employees/${encodeURIComponent(entry.id)}/`, { active: false }).then(
    () => ' Their employee ID is inactive in the employee directory.',
    () => ' Their employee ID could not be made inactive in the employee directory: do it under People › Employees not enrolled yet.',
  );
}
