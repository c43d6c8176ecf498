/**
 * API keys: for payroll and HR integrations, each with a role and areas. A new key is shown
 * once (copy it into the integration now); the list shows when each key was last used; revoking
 * one stops it at once.
 */

import type { ApiKeyView } from '../../../users';
import { api, everyRow } from '../api';
import { announce, badge, button, confirmAction, field, h, input, replace, section, table } from '../dom';
import { dateTime } from '../format';
import { ROLE_NAMES } from '../roles';
import { areaNames, areaPicker, areasText, roleSelect, shownOnce } from './access';

function stateBadge(k: ApiKeyView): HTMLElement {
  if (k.status === 'revoked') return badge(`Revoked ${dateTime(k.revoked_at)}`, 'muted');
  if (k.status === 'expired') return badge('Expired', 'warn');
  return badge('Active', 'ok');
}

/** The form of a new key; the key (shown once) goes into the redrawn page. */
function createForm(main: HTMLElement, areas: readonly string[], redraw: () => Promise<void>): HTMLElement {
  const name = input({ required: true, autocomplete: 'off', placeholder: 'Payroll export' });
  const role = roleSelect('viewer');
  const expires = input({ type: 'date', 'aria-describedby': 'expires-hint' });
  const picker = areaPicker(areas);
  const form = h(
    'form',
    { class: 'inline-form', 'aria-label': 'Create an API key' },
    field('Name', name, 'What uses it.'),
    field('Role', role),
    field('Expires', expires, 'Optional: the key stops working at the start of this day (UTC).'),
    picker.element,
    h('button', { type: 'submit', class: 'primary' }, 'Create key'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const created = await api.post<ApiKeyView & { key: string }>('api-keys/', {
      name: name.value.trim(),
      role: role.value,
      areas: picker.chosen(),
      ...(expires.value ? { expires_at: `${expires.value}T00:00:00Z` } : {}),
    });
    await redraw();
    const slot = main.querySelector('#api-key-secret');
    if (slot) {
      replace(
        slot,
        shownOnce('API key', created.key, 'Put it in the integration now: it is shown this once. Send it as Authorization: Bearer <key>.', 'api-key-value'),
      );
    }
  });
  return form;
}

export async function apiKeysPage(main: HTMLElement): Promise<undefined> {
  const redraw = () => apiKeysPage(main).then(() => undefined);
  const [keys, areas] = await Promise.all([everyRow<ApiKeyView>('api-keys/'), areaNames()]);
  replace(
    main,
    h('h1', {}, 'API keys'),
    section(
      'Keys',
      table(
        ['Name', 'Key', 'Role', 'Areas', 'Created', 'Last used', 'Expires', 'State', ''],
        keys.map((k) => [
          k.name,
          h('code', {}, `${k.prefix}…`),
          ROLE_NAMES[k.role] ?? k.role,
          areasText(k.areas),
          `${dateTime(k.created_at)} by ${k.created_by}`,
          k.last_used_at ? dateTime(k.last_used_at) : 'Never',
          k.expires_at ? dateTime(k.expires_at) : 'Never',
          stateBadge(k),
          k.status === 'active'
            ? button(
                'Revoke',
                async () => {
                  if (!(await confirmAction(`Revoke the key “${k.name}”?`, { action: 'Revoke', detail: 'Whatever uses it is refused from now on.' }))) return;
                  await api.delete(`api-keys/${encodeURIComponent(k.id)}/`);
                  await redraw();
                  announce(`Key “${k.name}” revoked.`);
                },
                { class: 'danger', 'aria-label': `Revoke ${k.name}` },
              )
            : null,
        ]),
        'No keys yet.',
      ),
    ),
    section('Create a key', createForm(main, areas, redraw), h('div', { id: 'api-key-secret' })),
  );
  return undefined;
}
