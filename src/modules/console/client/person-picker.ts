/**
 * The person picker: one person, found on the server as the officer types (`enrollees/?search=`,
 * a part of the name or the start of the employee id), never from a list of everyone loaded
 * first: a company of 10,000 people does not fit in one page of the API, and whoever was past
 * the first page could not be chosen. An ARIA combobox: a labelled text field, its suggestions
 * a listbox (arrow keys move, Enter or a click chooses, Escape closes), how many match said in a
 * live region. What was typed without choosing counts too: an employee id, “Name (id)”, or a
 * text only one person matches.
 */
import type { EnrolleeView } from '../../enrollees';
import { api, type List, query } from './api';
import { h, input } from './dom';
import { FieldError } from './form-errors';
import { isolated } from './format';

/** A person as the pickers and the pages' names know them. */
export type Person = Pick<EnrolleeView, 'id' | 'employee' | 'display_name'>;

const SHOWN = 20;
const TYPING_PAUSE_MS = 200;

/** How a person reads in the field and the list: “Anna Albers (N1)” (a right-to-left name kept apart from its id). */
export const personLabel = (p: Person) => `${isolated(p.display_name)} (${p.employee})`;

export interface PersonPicker {
  /** The labelled field (label, text field, suggestions, hint). */
  element: HTMLElement;
  /** The text field, beside which an error is shown. */
  control: HTMLInputElement;
  /**
   * The person chosen or typed; null when the field is empty. A text nobody or several people
   * match throws a FieldError about `field` (shown beside the control).
   */
  person(): Promise<Person | null>;
}

export interface PickerOptions {
  label: string;
  hint?: string;
  /** The API field errors are about (`enrollee`, `employee`); the control is named so. */
  field: string;
  /** Only active people (a manual punch); default: active and deactivated. */
  activeOnly?: boolean;
  preset?: Person;
  required?: boolean;
}

let uid = 0;

export function personPicker(options: PickerOptions): PersonPicker {
  let chosen: Person | null = options.preset ?? null;
  const { element, control } = personCombo(options, (p, field) => {
    chosen = p;
    field.value = personLabel(p);
  });
  control.value = options.preset ? personLabel(options.preset) : '';
  control.addEventListener('input', () => {
    chosen = null;
  });
  const current = () => (chosen && control.value.trim() === personLabel(chosen) ? chosen : null);
  return { element, control, person: () => resolve(control.value.trim(), current(), options) };
}

/**
 * The combobox itself: the labelled field, its suggestions from the server as the officer types,
 * `choose` called with the one chosen (one person: it fills the field; several,
 * people-chooser.ts: it is added to those chosen).
 */
export function personCombo(
  options: PickerOptions,
  choose: (p: Person, control: HTMLInputElement) => void,
): { element: HTMLElement; control: HTMLInputElement } {
  const id = `person-${++uid}`;
  const control = input({
    id,
    name: options.field,
    role: 'combobox',
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-autocomplete': 'list',
    'aria-expanded': 'false',
    'aria-controls': `${id}-list`,
    'aria-describedby': options.hint ? `${id}-hint` : null,
    placeholder: 'Name or employee id',
    required: options.required ?? false,
  });
  const list = h('ul', { id: `${id}-list`, role: 'listbox', class: 'person-options', 'aria-label': 'Matching people', hidden: true });
  const status = h('span', { class: 'visually-hidden', role: 'status' });
  const element = h(
    'div',
    { class: 'field person-picker' },
    h('label', { for: id }, options.label),
    h('div', { class: 'combo' }, control, list),
    status,
    options.hint ? h('small', { id: `${id}-hint`, class: 'hint' }, options.hint) : null,
  );
  suggestions(control, list, status, options, (p) => choose(p, control));
  return { element, control };
}

/** The suggestions under the field as the officer types; `choose` takes the one chosen among them. */
function suggestions(control: HTMLInputElement, list: HTMLElement, status: HTMLElement, options: PickerOptions, choose: (p: Person) => void): void {
  let serial = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const box = listbox(control, list, choose);
  const search = async (text: string, first = false) => {
    const mine = ++serial;
    const found = await api.get<List<Person>>(`enrollees/${peopleQuery({ search: text, limit: SHOWN }, options)}`).catch(() => null);
    // An answer to an older text arriving late is dropped; so is one arriving once the officer
    // has left the field (the form sent meanwhile).
    if (mine !== serial || !found || control.value.trim() !== text || document.activeElement !== control) return;
    box.show(found.results);
    if (first) box.key('ArrowDown');
    status.textContent = matchesSaid(found.results.length, found.next_cursor !== null, text);
  };
  control.addEventListener('input', () => {
    clearTimeout(timer);
    const text = control.value.trim();
    if (text === '') return box.close();
    timer = setTimeout(() => void search(text), TYPING_PAUSE_MS);
  });
  control.addEventListener('keydown', (event) => {
    // ↓ opens the list again (closed by Escape, or on coming back to the field), on its first
    // suggestion, as the ARIA combobox pattern has it.
    if (event.key === 'ArrowDown' && box.closed() && control.value.trim() !== '') {
      event.preventDefault();
      clearTimeout(timer);
      void search(control.value.trim(), true);
      return;
    }
    if (box.key(event.key)) event.preventDefault();
  });
  control.addEventListener('blur', () => {
    clearTimeout(timer);
    box.close();
  });
}

/** The listbox of suggestions: shown, moved through (the active one is the field's active descendant), chosen from. */
function listbox(control: HTMLInputElement, list: HTMLElement, choose: (p: Person) => void) {
  let shown: Person[] = [];
  let active = -1;
  const close = () => {
    list.hidden = true;
    control.setAttribute('aria-expanded', 'false');
    control.removeAttribute('aria-activedescendant');
    active = -1;
  };
  const pick = (p: Person) => {
    choose(p);
    close();
  };
  const highlight = (i: number) => {
    active = (i + shown.length) % shown.length;
    for (const [j, o] of Array.from(list.children).entries()) o.setAttribute('aria-selected', String(j === active));
    const option = list.children[active] as HTMLElement | undefined;
    if (option) control.setAttribute('aria-activedescendant', option.id);
    option?.scrollIntoView({ block: 'nearest' });
  };
  const show = (people: Person[]) => {
    shown = people;
    active = -1;
    list.replaceChildren(
      ...people.map((p, i) => {
        const option = h('li', { id: `${list.id}-${i}`, role: 'option', 'aria-selected': 'false' }, personLabel(p));
        // mousedown, not click: the field keeps its focus (its blur would close the list first).
        option.addEventListener('mousedown', (event) => {
          event.preventDefault();
          pick(p);
        });
        return option;
      }),
    );
    list.hidden = people.length === 0;
    control.setAttribute('aria-expanded', String(people.length > 0));
  };
  /** A key pressed in the field; true when the list took it (↓/↑ move, Enter chooses, Escape closes). */
  const key = (name: string): boolean => {
    if (list.hidden) return false;
    const current = shown[active];
    if (name === 'ArrowDown' || name === 'ArrowUp') highlight(active + (name === 'ArrowDown' ? 1 : -1));
    // Enter on a suggestion chooses it; it does not submit the form.
    else if (name === 'Enter' && current) pick(current);
    else if (name === 'Escape') close();
    else return false;
    return true;
  };
  return { show, close, key, closed: () => list.hidden };
}

function matchesSaid(n: number, more: boolean, text: string): string {
  if (n === 0) return `No one matches “${text}”.`;
  if (more) return `The first ${n} people matching “${text}”: keep typing to narrow.`;
  return n === 1 ? '1 person matches.' : `${n} people match.`;
}

function peopleQuery(params: { search?: string; employee?: string; limit: number }, options: PickerOptions): string {
  return query({ ...params, sort: 'name', status: options.activeOnly ? 'active' : undefined });
}

/** The person a text typed without choosing names (people-chooser.ts adds them); a FieldError when nobody or several. */
export const personTyped = (text: string, options: PickerOptions): Promise<Person | null> => resolve(text.trim(), null, options);

/**
 * The person a text names: the one chosen; else the employee id typed (alone, or in
 * “Name (id)”); else the only one whose name or employee id the text matches. At most three
 * requests, each a page of the indexed list.
 */
async function resolve(text: string, chosen: Person | null, options: PickerOptions): Promise<Person | null> {
  if (text === '') return null;
  if (chosen) return chosen;
  const ask = (params: { search?: string; employee?: string; limit: number }) => api.get<List<Person>>(`enrollees/${peopleQuery(params, options)}`);
  const key = /\(([^()]+)\)\s*$/.exec(text)?.[1]?.trim();
  const exact = (await ask({ employee: key ?? text, limit: 1 })).results[0];
  if (exact) return exact;
  const found = await ask({ search: text, limit: SHOWN });
  if (found.results.length === 1 && !found.next_cursor) return found.results[0]!;
  const many = found.next_cursor ? `More than ${found.results.length} people` : `${found.results.length} people`;
  const message = found.results.length === 0 ? 'No one by that name or employee id.' : `${many} match “${text}”: pick one from the list.`;
  throw new FieldError(options.field, message);
}
