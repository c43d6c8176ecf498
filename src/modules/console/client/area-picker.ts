/**
 * The area picker: areas are chosen from those that exist, never typed (a typo used to create an
 * area nobody meant). Several areas: a group of checkboxes; one area: a select. Both offer
 * “Create new area…”, which asks for the name (and a description) in a dialog, creates it, and
 * chooses it.
 */
import type { Static } from '@sinclair/typebox';
import type { Area } from '../../areas';
import { api, can, currentSession, everyRow } from './api';
import { field, h, input } from './dom';
import { onSubmit } from './form-errors';
import { timeZoneInput } from './time-zones';

export type AreaView = Static<typeof Area>;

let cache: Promise<AreaView[]> | null = null;

/** Forgets the areas loaded: each page draw asks again (an area made elsewhere, or on first use, shows). */
export function forgetAreas(): void {
  cache = null;
}

/** Every area (the caller's), loaded once per page draw and after a creation. */
export function loadAreas(fresh = false): Promise<AreaView[]> {
  if (fresh || !cache) cache = everyRow<AreaView>('areas/');
  const loading = cache;
  // A failed load is not kept: the next page asks again.
  loading.catch(() => {
    if (cache === loading) cache = null;
  });
  return loading;
}

let uid = 0;

/** Asks for a new area's name and description, creates it; its name, or null when cancelled. */
export function createAreaDialog(): Promise<string | null> {
  return new Promise((resolve) => {
    const name = input({ required: true, autocomplete: 'off', maxlength: 100 });
    const description = input({ autocomplete: 'off', maxlength: 500 });
    const zone = timeZoneInput({ maxlength: 64 });
    const cancel = h('button', { type: 'button' }, 'Cancel');
    const form = h(
      'form',
      { class: 'stack' },
      h('h2', {}, 'New area'),
      field('Area name', name, 'As people will see it, e.g. Head Office.'),
      field('Description', description, 'Optional: where it is, who is in it.'),
      field('Time zone', zone, 'Optional: where its people work, e.g. Asia/Kolkata. Empty: the attendance time zone.'),
      h('div', { class: 'actions' }, cancel, h('button', { type: 'submit', class: 'primary' }, 'Create area')),
    );
    const dialog = h('dialog', { class: 'confirm', 'aria-label': 'New area' }, form);
    let done = false;
    const finish = (value: string | null) => {
      if (done) return;
      done = true;
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    onSubmit(form, { name, description, time_zone: zone }, async () => {
      const created = await api.post<AreaView>('areas/', {
        name: name.value.trim(),
        description: description.value.trim() || null,
        ...(zone.value.trim() ? { time_zone: zone.value.trim() } : {}),
      });
      await loadAreas(true);
      finish(created.name);
    });
    cancel.addEventListener('click', () => finish(null));
    dialog.addEventListener('close', () => finish(null));
    document.body.append(dialog);
    dialog.showModal();
    name.focus();
  });
}

export interface AreaPicker {
  element: HTMLElement;
  /** The chosen names. */
  value(): string[];
  /** The control errors about `areas` are shown beside. */
  control: HTMLElement;
}

/**
 * What choosing no area means in a form: `everyone` for a caller of every area; for one limited
 * to areas the server puts the record in the caller's own areas (areas/names.ts `areasWithin`).
 */
export function noneChosen(everyone: string): string {
  const own = currentSession().areas;
  return own.length === 0 ? everyone : `your areas (${own.join(', ')})`;
}

/** Checkboxes for several areas, with “Create new area…” for those who may create one. */
export async function areasPicker(label: string, chosen: readonly string[], hint?: string): Promise<AreaPicker> {
  const areas = await loadAreas();
  const group = h('fieldset', { class: 'areas-picker', id: `areas-${++uid}` }, h('legend', {}, label));
  const list = h('div', { class: 'checks' });
  const boxes: HTMLInputElement[] = [];
  const add = (name: string, checked: boolean, kept = false) => {
    const box = h('input', { type: 'checkbox', value: name, id: `area-${uid}-${boxes.length}`, checked, disabled: kept });
    boxes.push(box);
    const label = h('label', { for: box.id }, kept ? `${name} (not yours: kept)` : name);
    list.append(h('span', { class: 'check' }, box, label));
  };
  for (const a of areas) add(a.name, chosen.includes(a.name));
  // An area the record holds that the caller cannot see stays chosen, shown, and cannot be
  // unticked: the server keeps it whatever is sent (areas/names.ts `areasAfterSetting`).
  for (const name of chosen) if (!areas.some((a) => a.name === name)) add(name, true, true);
  group.append(list);
  if (can('POST areas/')) {
    const create = h('button', { type: 'button', class: 'link' }, 'Create new area…');
    create.addEventListener('click', async () => {
      const name = await createAreaDialog();
      if (!name) return create.focus();
      add(name, true);
      boxes[boxes.length - 1]?.focus();
    });
    group.append(create);
  }
  if (hint) group.append(h('small', { class: 'hint' }, hint));
  // Only the caller's own areas are sent: a kept one is another area's, and sending it is 403
  // ("you may only use your own areas"); the server keeps it whatever is sent.
  return { element: h('div', { class: 'field' }, group), control: group, value: () => boxes.filter((b) => b.checked && !b.disabled).map((b) => b.value) };
}

const NEW = '\u0000new';

/** A select of one area (optionally “Any area”), with “Create new area…” as its last option. */
export async function areaSelect(options: { selected?: string; any?: string; create?: boolean } = {}): Promise<HTMLSelectElement> {
  const areas = await loadAreas();
  const select = h(
    'select',
    {},
    options.any !== undefined ? h('option', { value: '' }, options.any) : null,
    ...areas.map((a) => h('option', { value: a.name, selected: a.name === options.selected }, a.name)),
    options.create === false || !can('POST areas/') ? null : h('option', { value: NEW }, 'Create new area…'),
  );
  let previous = select.value;
  select.addEventListener('change', async () => {
    if (select.value !== NEW) {
      previous = select.value;
      return;
    }
    const name = await createAreaDialog();
    if (!name) {
      select.value = previous;
      select.focus();
      return;
    }
    const option = h('option', { value: name }, name);
    select.insertBefore(option, select.querySelector(`option[value="${NEW}"]`));
    select.value = name;
    previous = name;
    select.focus();
  });
  return select;
}
