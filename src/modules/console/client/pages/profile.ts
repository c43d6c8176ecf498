/** Your profile: who you are signed in as, your password, and (with the factors module) your second factor. */

import type { MeView } from '../../../users';
import { api } from '../api';
import { announce, definitionList, field, h, input, replace, section } from '../dom';
import { dateTime } from '../format';
import { ROLE_NAMES } from '../roles';
import { areasText } from './access';
import { secondFactorsSection } from './second-factors';

const MIN = 12;

function passwordForm(): HTMLElement {
  const current = input({ type: 'password', autocomplete: 'current-password', required: true });
  const next = input({ type: 'password', autocomplete: 'new-password', required: true, minlength: MIN });
  const again = input({ type: 'password', autocomplete: 'new-password', required: true, minlength: MIN });
  const problem = h('p', { class: 'error', role: 'alert' });
  const form = h(
    'form',
    { class: 'stack narrow wide-fields', 'aria-label': 'Change password' },
    field('Current password', current),
    field('New password', next, `At least ${MIN} characters other than spaces.`),
    field('New password again', again),
    problem,
    h('button', { type: 'submit', class: 'primary' }, 'Change password'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    problem.textContent = '';
    if (next.value !== again.value) {
      problem.textContent = 'The two new passwords differ.';
      return;
    }
    try {
      await api.post('users/me/password/', { current_password: current.value, new_password: next.value });
    } catch (error) {
      problem.textContent = error instanceof Error ? error.message : String(error);
      return;
    }
    for (const box of [current, next, again]) box.value = '';
    announce('Password changed. Your other sessions have ended.');
  });
  return form;
}

export async function profilePage(main: HTMLElement): Promise<undefined> {
  const me = await api.get<MeView>('users/me/');
  const isUser = me.kind === 'user';
  const factors = isUser ? await secondFactorsSection() : null;
  // Sent here to set up a second factor first (main.ts): that comes first.
  const enrolling = document.documentElement.dataset.enrolling === 'true';
  replace(
    main,
    h('h1', {}, 'Your profile'),
    enrolling ? factors : null,
    section(
      'You',
      definitionList([
        ['Name', me.name],
        ['Username', me.username],
        ['Email', me.email],
        ['Role', ROLE_NAMES[me.role] ?? me.role],
        ['Areas', areasText(me.areas)],
        ['Session ends', me.expires_at ? dateTime(me.expires_at) : null],
      ]),
    ),
    isUser
      ? section('Password', passwordForm())
      : section('Password', h('p', { class: 'muted' }, 'You signed in with a link or a token: there is no password to change.')),
    enrolling ? null : factors,
  );
  return undefined;
}
