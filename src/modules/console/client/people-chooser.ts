/**
 * Several people chosen one by one (a schedule assigned to chosen people at once): the person
 * picker's search as the officer types (person-picker.ts, `enrollees/?search=`), each person
 * chosen added to a list under it, where a Remove button takes them off again. Never a list of
 * everyone to tick: past the API's page of 1,000 people the rest could not be chosen. From the
 * keyboard: type, ↓/↑ and Enter add a suggestion (Enter on a typed employee id, “Name (id)” or
 * a text one person matches adds them too, without sending the form); Tab reaches each Remove.
 * Whom it adds or removes, and how many are chosen, is announced.
 */
import { h } from './dom';
import { plainErrors, showErrors } from './form-errors';
import { figure } from './format';
import { type Person, type PickerOptions, personCombo, personLabel, personTyped } from './person-picker';

export interface PeopleChooser {
  /** The group: its legend, the search field, the people chosen. */
  element: HTMLElement;
  /** The search field, beside which an error is shown. */
  control: HTMLInputElement;
  /** The people chosen, and whoever is typed in the field not added yet (a FieldError when nobody or several match it). */
  people(): Promise<Person[]>;
  /** Nobody chosen any more (the form was sent). */
  clear(): void;
}

/**
 * `max`: at most this many chosen (the batch endpoint takes 1,000 people a request, one
 * transaction): the hint says so from the start, and one more is refused with the reason, never
 * left for the server to refuse the whole form.
 */
export function peopleChooser(options: { legend: string; field: string; activeOnly?: boolean; max?: number }): PeopleChooser {
  const picker: PickerOptions = {
    label: 'Add a person',
    field: options.field,
    activeOnly: options.activeOnly,
    hint: `Type a name or an employee ID, then choose.${options.max ? ` Up to ${figure(options.max)} people at once; for more, assign their area.` : ''}`,
  };
  const { element: combo, control } = personCombo(picker, (p, field) => {
    field.value = '';
    chosen.add(p);
  });
  // The Remove pressed is gone with its person: the search field takes the focus, not the page.
  const chosen = chosenList(options.legend, () => control.focus(), options.max ?? Number.POSITIVE_INFINITY);
  addTypedOnEnter(control, picker, chosen.add);
  return {
    element: h('fieldset', { class: 'people-chooser' }, h('legend', {}, options.legend), combo, chosen.list, chosen.said),
    control,
    async people() {
      const typed = await personTyped(control.value, picker);
      if (typed) {
        control.value = '';
        chosen.add(typed);
      }
      return chosen.people();
    },
    clear() {
      control.value = '';
      chosen.clear();
    },
  };
}

/** The people chosen, each with a Remove button; what changes is said in a live region. */
function chosenList(legend: string, removed: () => void, max: number) {
  const chosen = new Map<string, Person>();
  const list = h('ul', { class: 'chosen-people', 'aria-label': `${legend} chosen` });
  const said = h('span', { class: 'visually-hidden', role: 'status' });
  const howMany = () => (chosen.size === 0 ? 'Nobody chosen.' : chosen.size === 1 ? '1 person chosen.' : `${chosen.size} people chosen.`);
  const draw = () =>
    list.replaceChildren(
      ...[...chosen.values()].map((p) =>
        h(
          'li',
          {},
          h('span', {}, personLabel(p)),
          removeButton(p, () => remove(p)),
        ),
      ),
    );
  const remove = (p: Person) => {
    chosen.delete(p.id);
    draw();
    removed();
    said.textContent = `${p.display_name} removed. ${howMany()}`;
  };
  const add = (p: Person) => {
    const already = chosen.has(p.id);
    if (!already && chosen.size >= max) {
      said.textContent = `${p.display_name} not added: at most ${figure(max)} people at once. ${howMany()}`;
      return;
    }
    chosen.set(p.id, p);
    draw();
    said.textContent = `${p.display_name} ${already ? 'is already chosen' : 'added'}. ${howMany()}`;
  };
  const clear = () => {
    chosen.clear();
    draw();
    said.textContent = '';
  };
  return { list, said, add, clear, people: () => [...chosen.values()] };
}

function removeButton(p: Person, remove: () => void): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'link', 'aria-label': `Remove ${personLabel(p)}` }, 'Remove');
  button.addEventListener('click', remove);
  return button;
}

/**
 * Enter in the field with no suggestion highlighted adds whoever the text names (an employee id
 * typed whole), instead of sending the form half done; nobody or several are said beside it.
 */
function addTypedOnEnter(control: HTMLInputElement, picker: PickerOptions, add: (p: Person) => void): void {
  control.addEventListener('keydown', (event) => {
    // The suggestions took it (a highlighted one chosen), or nothing typed: the form's own Enter.
    if (event.key !== 'Enter' || event.defaultPrevented || control.value.trim() === '') return;
    event.preventDefault();
    void personTyped(control.value, picker)
      .then((p) => {
        if (!p) return;
        control.value = '';
        add(p);
      })
      .catch((error: unknown) => {
        const form = control.closest('form');
        if (form) showErrors(form, plainErrors(error), { [picker.field]: control });
      });
  });
}
