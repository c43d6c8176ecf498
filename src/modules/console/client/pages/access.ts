/** Pieces the Users and API keys pages share: the role picker, the area picker, a link or key shown once with a copy button. */
import { everyRow } from '../api';
import { announce, button, h, select } from '../dom';
import { ROLE_NAMES, type Role } from '../roles';

export const ROLE_OPTIONS = (Object.entries(ROLE_NAMES) as [Role, string][]).map(([value, label]): [string, string] => [value, label]);

export const roleSelect = (selected: Role = 'viewer', attrs: Record<string, string> = {}) => select(ROLE_OPTIONS, attrs, selected);

/** The names of the areas catalogue (`areas/`): accounts are limited to areas that exist. */
export async function areaNames(): Promise<string[]> {
  return (await everyRow<{ name: string }>('areas/')).map((a) => a.name);
}

/** One checkbox per area; none ticked means every area (or what `none` says it means). */
export function areaPicker(
  all: readonly string[],
  chosen: readonly string[] = [],
  legend = 'Areas',
  none = 'every area',
): { element: HTMLElement; chosen(): string[] } {
  const boxes = all.map((name, i) => {
    const box = h('input', { type: 'checkbox', value: name, id: `area-${legend.replace(/\W/g, '')}-${i}`, checked: chosen.includes(name) });
    return { box, element: h('div', { class: 'check' }, box, h('label', { for: box.id }, name)) };
  });
  return {
    element: h(
      'fieldset',
      { class: 'event-types areas' },
      h('legend', {}, `${legend} (none ticked: ${none})`),
      ...(boxes.length > 0 ? boxes.map((b) => b.element) : [h('span', { class: 'muted' }, 'No areas yet: everywhere.')]),
    ),
    chosen: () => boxes.filter((b) => b.box.checked).map((b) => b.box.value),
  };
}

export const areasText = (areas: readonly string[]) => (areas.length === 0 ? 'All areas' : areas.join(', '));

/** A secret or a link given out once, with a copy button. */
export function shownOnce(title: string, value: string, note: string, id: string): HTMLElement {
  const code = h('code', { class: 'secret', tabindex: 0, id }, value);
  const copy = button('Copy', async () => {
    try {
      await navigator.clipboard.writeText(value);
      announce('Copied.');
    } catch {
      // No clipboard (plain HTTP on another host): select the text for Ctrl+C.
      getSelection()?.selectAllChildren(code);
      announce('Press Ctrl+C to copy the selected text.');
    }
  });
  return h('div', { class: 'once', role: 'alert' }, h('h3', {}, title), h('p', {}, note), code, h('div', { class: 'actions' }, copy));
}
