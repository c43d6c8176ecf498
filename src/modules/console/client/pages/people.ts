/** People: everyone the service knows (employees, and which of them are enrolled), and adding someone. */

import type { EmployeeView } from '../../../employees';
import type { EnrolleeView } from '../../../enrollees';
import { ApiError, api, can, type List, query } from '../api';
import { areasPicker, noneChosen } from '../area-picker';
import { announce, badge, button, field, h, input, navigate, replace, section, table } from '../dom';
import { FieldError, onSubmit } from '../form-errors';
import { count } from '../format';
import { peopleList } from './people-list';

const NOT_ENROLLED_PAGE = 50;

export async function peoplePage(main: HTMLElement): Promise<undefined> {
  const [form, notEnrolled] = await Promise.all([addPersonForm(), notEnrolledSection()]);

  replace(
    main,
    h('h1', {}, 'People'),
    can('POST enrollees/') &&
      section(
        'Add a person',
        form,
        can('POST employees/import/') && h('p', {}, 'Many people at once: ', h('a', { href: '#/people/import' }, 'import a CSV file'), '.'),
      ),
    await peopleList(),
    notEnrolled,
  );
  return undefined;
}

/** Enrolls an employee (added to the directory first when a name is given). */
async function addPersonForm(): Promise<HTMLElement> {
  const id = input({ required: true, autocomplete: 'off' });
  const name = input({ autocomplete: 'off' });
  const areas = await areasPicker('Areas', [], `Decides which terminals they are sent to; none chosen: ${noneChosen('default')}.`);
  const form = h(
    'form',
    { class: 'inline-form' },
    field('Employee ID', id, 'The HR system’s own number, e.g. E-001.'),
    field('Name', name, 'Needed when the employee is new to the service.'),
    areas.element,
    h('button', { type: 'submit', class: 'primary' }, 'Add person'),
  );
  onSubmit(form, { employee: id, id, name, areas: areas.control, card: areas.control }, async () => {
    const employee = id.value.trim();
    if (name.value.trim() && can('POST employees/')) {
      try {
        await api.post('employees/', { id: employee, name: name.value.trim() });
      } catch (error) {
        // Already in the directory (or the host keeps its own directory): go on with the enrollment.
        if (!(error instanceof ApiError) || (error.status !== 409 && error.status !== 404 && error.status !== 405)) throw error;
      }
    }
    const body: Record<string, unknown> = { employee };
    const areaList = areas.value();
    if (areaList.length > 0) body.areas = areaList;
    const created = await api.post<EnrolleeView>('enrollees/', body).catch((error: unknown) => {
      // Nobody in the directory by that ID, and no name given: the next step is the name, which adds them.
      if (error instanceof ApiError && error.code === 'unknown_employee' && !name.value.trim() && can('POST employees/'))
        throw new FieldError('employee', 'No employee has this ID in the employee directory. To add a new employee, type their name under Name too.');
      throw error;
    });
    announce(`${created.display_name} added with PIN ${created.device_pin}.`);
    navigate(`#/people/${created.id}`);
  });
  return form;
}

/**
 * The employees of the directory nobody is enrolled for, 50 a page by employee id. The server
 * works them out (`employees/?enrolled=false`): compared here with a page of each list, anyone
 * past the API's 1,000 was left out. Nothing when there are none, or no built-in directory.
 */
async function notEnrolledSection(): Promise<HTMLElement | null> {
  if (!can('GET employees/')) return null;
  // Not a live region (each page was read out whole): a short status says which are shown.
  const results = h('div', { id: 'not-enrolled' });
  const shown = h('p', { class: 'visually-hidden', role: 'status' });
  // Cursors of the pages seen so far: Previous goes back one.
  let cursors: (string | null)[] = [null];
  let nobody = false;
  const load = async (page: number): Promise<void> => {
    const list = await api.get<List<EmployeeView>>(`employees/${query({ enrolled: 'false', limit: NOT_ENROLLED_PAGE, cursor: cursors[page] })}`);
    cursors = [...cursors.slice(0, page + 1), list.next_cursor];
    replace(
      results,
      table(
        ['Employee ID', 'Name', 'Status'],
        list.results.map((e) => [e.id, e.name, e.active ? '' : badge('Inactive', 'muted')]),
      ),
      notEnrolledPager(page, list, load),
    );
    // (The first page's is written before the section is on the page: not announced, read with it.)
    const first = page * NOT_ENROLLED_PAGE + 1;
    shown.textContent = `Employees ${first} to ${first + list.results.length - 1} shown.`;
    nobody = page === 0 && list.results.length === 0;
  };
  // A host's own directory answers 404 here: nobody to list.
  const loaded = await load(0).then(
    () => true,
    () => false,
  );
  if (!loaded || nobody) return null;
  return section(
    'Employees not enrolled yet',
    shown,
    results,
    can('POST enrollees/') && h('p', { class: 'muted' }, 'Enter an employee ID above to enroll them.'),
  );
}

function notEnrolledPager(page: number, list: List<EmployeeView>, load: (page: number) => Promise<void>): HTMLElement {
  if (page === 0 && !list.next_cursor) return h('p', { class: 'muted' }, count(list.results.length, 'employee', 'employees'));
  const first = page * NOT_ENROLLED_PAGE + 1;
  return h(
    'div',
    { class: 'actions pager' },
    page > 0 ? button('Previous employees', () => load(page - 1)) : null,
    h('span', { class: 'muted' }, `Employees ${first} to ${first + list.results.length - 1}`),
    list.next_cursor ? button('Next employees', () => load(page + 1)) : null,
  );
}
