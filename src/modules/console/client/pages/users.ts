/**
 * Users: who may sign in, with their role and areas. Invite someone (the link is shown once, to
 * hand over by a channel of your choice), change a role or areas, disable, reset a lost password
 * or second factor (a new link; every session ends), remove.
 */

import type { UserView } from '../../../users';
import { api, everyRow, outsideMine } from '../api';
import { announce, badge, button, confirmAction, field, h, input, replace, section, table } from '../dom';
import { dateTime } from '../format';
import { ROLE_NAMES, type Role } from '../roles';
import { areaNames, areaPicker, areasText, roleSelect, shownOnce } from './access';
import { factorPolicySection } from './second-factors';

type Invited = UserView & { invite_url: string; invite_expires_at: string };

function statusBadge(u: UserView): HTMLElement {
  if (u.status === 'disabled') return badge('Disabled', 'muted');
  if (u.status === 'invited') return badge('Invited', 'info');
  return badge('Active', 'ok');
}

/**
 * Whether the server would refuse to disable, remove or demote this user: the one owner who can
 * act (users/service.ts `assertNotLastOwner`). The page does not offer what would be refused.
 */
function isLastOwner(u: UserView, all: readonly UserView[]): boolean {
  return u.role === 'owner' && !u.disabled && !all.some((o) => o.id !== u.id && o.role === 'owner' && !o.disabled);
}

/** The row's editor: role and areas, saved together (the last owner's role stays owner). */
function editor(u: UserView, areas: readonly string[], done: () => Promise<void>, lastOwner: boolean): HTMLElement {
  const role = roleSelect(u.role, { 'aria-label': `Role of ${u.username}` });
  // Demoting the last owner would be refused: the role is shown, not offered.
  role.disabled = lastOwner;
  const picker = areaPicker(areas, u.areas, `Areas of ${u.username}`);
  const form = h('form', { class: 'stack user-editor' }, field('Role', role), picker.element, h('button', { type: 'submit', class: 'primary' }, 'Save'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    await api.patch(`users/${encodeURIComponent(u.id)}/`, { role: role.value as Role, areas: picker.chosen() });
    await done();
    announce(`${u.username}: role and areas saved.`);
  });
  return form;
}

/** The invite form: the link (shown once) goes into the redrawn page. */
function inviteForm(main: HTMLElement, areas: readonly string[], redraw: () => Promise<void>): HTMLElement {
  const name = input({ required: true, autocomplete: 'off', placeholder: 'Ada Obi' });
  const username = input({ required: true, autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', placeholder: 'ada' });
  const email = input({ type: 'email', autocomplete: 'off', placeholder: 'optional' });
  const role = roleSelect('hr');
  const picker = areaPicker(areas);
  const form = h(
    'form',
    { class: 'inline-form', 'aria-label': 'Invite someone' },
    field('Name', name),
    field('Username', username, 'What they sign in with.'),
    field('Email', email, 'For single sign-on, if you use it.'),
    field('Role', role),
    picker.element,
    h('button', { type: 'submit', class: 'primary' }, 'Invite'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const created = await api.post<Invited>('users/', {
      name: name.value.trim(),
      username: username.value.trim(),
      ...(email.value.trim() ? { email: email.value.trim() } : {}),
      role: role.value,
      areas: picker.chosen(),
    });
    await redraw();
    showLinkAfterRedraw(main, 'Invite link', created.invite_url, created.invite_expires_at, created.name);
  });
  return form;
}

/** Disable or enable, after asking (disabling ends sessions and keys). */
function disableButton(u: UserView, redraw: () => Promise<void>): HTMLElement {
  return button(
    u.disabled ? 'Enable' : 'Disable',
    async () => {
      const detail = 'Their sessions end and their API keys are revoked now.';
      if (!u.disabled && !(await confirmAction(`Disable ${u.name}?`, { action: 'Disable', detail }))) return;
      await api.patch(`users/${encodeURIComponent(u.id)}/`, { disabled: !u.disabled });
      await redraw();
      announce(`${u.username} ${u.disabled ? 'enabled' : 'disabled'}.`);
    },
    { 'aria-label': `${u.disabled ? 'Enable' : 'Disable'} ${u.username}` },
  );
}

/** A reset, after asking: a new link (shown once); the password and every session end. */
function resetButton(main: HTMLElement, u: UserView, redraw: () => Promise<void>): HTMLElement {
  return button(
    'Reset',
    async () => {
      const detail = 'Their password and second factor stop working and every session ends; a new link sets a new password.';
      if (!(await confirmAction(`Reset ${u.name}’s sign-in?`, { action: 'Reset', detail }))) return;
      const reset = await api.post<{ invite_url: string; invite_expires_at: string }>(`users/${encodeURIComponent(u.id)}/reset/`);
      await redraw();
      showLinkAfterRedraw(main, 'Reset link', reset.invite_url, reset.invite_expires_at, u.name);
    },
    { 'aria-label': `Reset ${u.username}` },
  );
}

function removeButton(u: UserView, redraw: () => Promise<void>): HTMLElement {
  return button(
    'Remove',
    async () => {
      const detail = 'They can no longer sign in; their API keys are revoked.';
      if (!(await confirmAction(`Remove ${u.name}?`, { action: 'Remove', typed: u.username, detail }))) return;
      await api.delete(`users/${encodeURIComponent(u.id)}/`);
      await redraw();
      announce(`${u.username} removed.`);
    },
    { class: 'danger', 'aria-label': `Remove ${u.username}` },
  );
}

export async function usersPage(main: HTMLElement): Promise<undefined> {
  const redraw = () => usersPage(main).then(() => undefined);
  const [users, areas] = await Promise.all([everyRow<UserView>('users/'), areaNames()]);
  const linkSlot = h('div', { id: 'invite-link' });
  const editSlot = h('div', { id: 'user-editor' });
  const actions = (u: UserView) => {
    // A caller limited to areas changes only accounts wholly within them (the server says 403).
    const outside = outsideMine(u.areas);
    if (outside.length > 0) {
      return h('span', { class: 'muted' }, `Also in ${outside.join(', ')}: changed by an administrator of those areas.`);
    }
    const lastOwner = isLastOwner(u, users);
    return h(
      'div',
      { class: 'actions' },
      button('Change', () => replace(editSlot, section(`Role and areas of ${u.name}`, editor(u, areas, redraw, lastOwner))), {
        'aria-label': `Change ${u.username}`,
      }),
      lastOwner ? null : disableButton(u, redraw),
      u.disabled ? null : resetButton(main, u, redraw),
      lastOwner
        ? h('span', { class: 'muted', 'data-last-owner': '' }, 'The last owner: make another owner to disable or remove them.')
        : removeButton(u, redraw),
    );
  };
  replace(
    main,
    h('h1', {}, 'Users'),
    section(
      'People who sign in',
      table(
        ['Name', 'Username', 'Role', 'Areas', 'Second factor', 'State', ''],
        users.map((u) => [
          u.name,
          u.username,
          ROLE_NAMES[u.role] ?? u.role,
          areasText(u.areas),
          u.second_factor === 'none' ? 'None' : u.second_factor === 'totp' ? 'Authenticator app' : 'Passkey',
          statusBadge(u),
          actions(u),
        ]),
        'Nobody yet.',
      ),
      editSlot,
    ),
    section(
      'Invite someone',
      h('p', { class: 'muted' }, 'They get a link that works once; there they choose their password.'),
      inviteForm(main, areas, redraw),
      linkSlot,
    ),
    await factorPolicySection(),
  );
  return undefined;
}

/** After a redraw the page is new: the link goes into the new page's slot. */
function showLinkAfterRedraw(main: HTMLElement, title: string, url: string, expires: string, who: string): void {
  const slot = main.querySelector('#invite-link');
  if (!slot) return;
  replace(
    slot,
    shownOnce(
      title,
      url,
      `Give this link to ${who} (it is shown this once). It works once, until ${dateTime(expires)}, and sets their password.`,
      'invite-url',
    ),
  );
  slot.scrollIntoView({ block: 'nearest' });
}
