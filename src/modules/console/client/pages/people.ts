/** People: everyone the service knows (employees, and which of them are enrolled), and adding someone. */

import type { EmployeeView } from '../../../employees';
import type { EnrolleeView } from '../../../enrollees';
import { ApiError, api, can, type List } from '../api';
import { areasPicker, noneChosen } from '../area-picker';
import { announce, badge, field, h, input, navigate, replace, section, table } from '../dom';
import { onSubmit } from '../form-errors';
import { peopleList } from './people-list';

export async function peoplePage(main: HTMLElement): Promise<undefined> {
  const [enrollees, employees] = await Promise.all([
    api.get<List<EnrolleeView>>('enrollees/?limit=1000'),
    can('GET employees/')
      ? api.get<List<EmployeeView>>('employees/?limit=1000').catch(() => ({ results: [], next_cursor: null }) as List<EmployeeView>)
      : ({ results: [], next_cursor: null } as List<EmployeeView>),
  ]);
  const enrolled = new Set(enrollees.results.map((e) => e.employee));
  const notEnrolled = employees.results.filter((e) => !enrolled.has(e.id));

  const form = await addPersonForm();

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
    notEnrolled.length > 0 ? notEnrolledSection(notEnrolled) : null,
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
    const created = await api.post<EnrolleeView>('enrollees/', body);
    announce(`${created.display_name} added with PIN ${created.device_pin}.`);
    navigate(`#/people/${created.id}`);
  });
  return form;
}

function notEnrolledSection(notEnrolled: EmployeeView[]): HTMLElement {
  return section(
    'Employees not enrolled yet',
    table(
      ['Employee ID', 'Name', ''],
      notEnrolled.map((e) => [e.id, e.name, e.active ? '' : badge('Inactive', 'muted')]),
    ),
    can('POST enrollees/') && h('p', { class: 'muted' }, 'Enter an employee ID above to enroll them.'),
  );
}
