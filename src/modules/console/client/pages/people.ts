/** People: everyone the service knows (employees, and which of them are enrolled), and adding someone. */

import type { EnrolleeView } from '../../../enrollees';
import { ApiError, api, can } from '../api';
import { areasPicker, noneChosen } from '../area-picker';
import { announce, field, h, input, navigate, replace, section } from '../dom';
import { FieldError, onSubmit } from '../form-errors';
import { directorySections } from './people-directory';
import { peopleList } from './people-list';

export async function peoplePage(main: HTMLElement): Promise<undefined> {
  const redraw = () => peoplePage(main).then(() => undefined);
  const [form, directory] = await Promise.all([addPersonForm(), directorySections(redraw)]);

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
    ...directory,
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
