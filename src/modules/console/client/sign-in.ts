/**
 * What the console shows before anyone is signed in: the username-and-password form (the
 * one-time link of `npm run fpa:console-link` still works for operators), and the page of an
 * invite or reset link (`#/invite/<token>`), where a person chooses their password. Both end
 * with a session cookie set by the server, and then the console starts.
 */

import type { InviteInfoView } from '../../users';
import { signInPost } from './api';
import { field, h, input, replace } from './dom';
import { showErrors } from './form-errors';
import { count } from './format';
import { drawSecondFactor, pendingSignIn, ssoChoice, ssoProblem } from './second-factor';

const minutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));

function card(...children: (Node | null)[]): HTMLElement {
  return h('main', { class: 'signin', id: 'main' }, h('h1', {}, 'Attendance console'), ...children);
}

/** The sign-in form; `notice` says why it is shown (signed out, session ended). */
export function signInForm(app: HTMLElement, started: () => void, notice?: string): void {
  // The tab says what is on screen: not the page the session ended on.
  document.title = 'Sign in: Attendance console';
  const username = input({ name: 'username', autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: 'false' });
  const password = input({ type: 'password', name: 'password', autocomplete: 'current-password', required: true });
  const problem = h('p', { class: 'error', role: 'alert', id: 'sign-in-error' });
  // Why single sign-on failed, when it did: said until the next attempt, not after it.
  const ssoError = ssoProblem();
  const ssoSaid = ssoError ? h('p', { class: 'error', role: 'alert' }, ssoError) : null;
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h('form', { class: 'stack wide-fields', 'aria-label': 'Sign in' }, field('Username', username), field('Password', password), problem, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    problem.textContent = '';
    ssoSaid?.remove();
    try {
      const answer = await signInPost('password', { username: username.value.trim(), password: password.value });
      if (answer.status === 204) return started();
      if (answer.status === 200 && answer.body) {
        // A second step is needed (a second factor): second-factor.ts draws it.
        const pending = await pendingSignIn();
        if (pending) return drawSecondFactor(app, pending, () => signInForm(app, started), started);
        problem.textContent = 'This sign-in has expired: sign in again.';
        return;
      }
      password.value = '';
      problem.textContent =
        answer.status === 429
          ? `Too many failed sign-ins. Try again in ${count(minutes(answer.retryAfter ?? 60), 'minute', 'minutes')}.`
          : answer.status === 401
            ? 'Wrong username or password.'
            : answer.message;
      password.focus();
    } finally {
      submit.disabled = false;
    }
  });
  const sso = h('div', { class: 'sso-slot' });
  replace(
    app,
    card(
      notice ? h('p', { role: 'status' }, notice) : null,
      ssoSaid,
      form,
      sso,
      // The operator's one-time link (npm run fpa:console-link) is in the README, not for everyone's eyes.
      h('p', { class: 'hint-block' }, 'No account yet? Ask an administrator for an invite.'),
    ),
  );
  username.focus();
  void ssoChoice().then((choice) => choice && sso.append(choice));
}

/** The new password, typed twice; sent with the link's token. */
function choosePasswordForm(info: InviteInfoView, token: string, started: () => void, gone: () => void): { form: HTMLElement; focus: HTMLElement } {
  const min = info.password_min_length;
  const password = input({ type: 'password', autocomplete: 'new-password', required: true, minlength: min });
  const again = input({ type: 'password', autocomplete: 'new-password', required: true, minlength: min });
  const problem = h('p', { class: 'error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary' }, info.purpose === 'invite' ? 'Set password and sign in' : 'Set new password and sign in');
  const form = h(
    'form',
    { class: 'stack wide-fields', 'aria-label': 'Choose a password' },
    h('input', { type: 'hidden', autocomplete: 'username', value: info.username }),
    field('New password', password, `At least ${min} characters other than spaces. A few unrelated words make a strong one.`),
    field('New password again', again),
    problem,
    submit,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    problem.textContent = '';
    // Said beside the field it is about (aria-invalid, aria-describedby, focused), as every form.
    showErrors(form, [], {});
    // Spaces do not count (the server's rule, users/passwords.ts): twelve of them are no password.
    if (password.value.replace(/\s/gu, '').length < min) {
      return showErrors(form, [{ field: 'password', message: `The password needs at least ${min} characters other than spaces.` }], { password });
    }
    if (password.value !== again.value) return showErrors(form, [{ field: 'again', message: 'The two passwords differ.' }], { again });
    submit.disabled = true;
    try {
      const answer = await signInPost('invite', { token, password: password.value });
      if (answer.status === 204) {
        // The token leaves the address bar (and the history) once it is spent.
        history.replaceState(null, '', `${location.pathname}#/`);
        return started();
      }
      if (answer.status === 404) return gone();
      problem.textContent = answer.message;
    } finally {
      submit.disabled = false;
    }
  });
  return { form, focus: password };
}

/** The page of an invite or reset link: whose it is, and a new password typed twice. */
export async function invitePage(app: HTMLElement, token: string, started: () => void): Promise<void> {
  document.title = 'Choose a password: Attendance console';
  const checked = await signInPost<InviteInfoView>('invite/check', { token });
  const gone = () => {
    replace(
      app,
      card(
        h('p', { class: 'error', role: 'alert' }, 'This link has been used, has expired, or was replaced by a newer one.'),
        h(
          'p',
          {},
          'Ask an administrator for a new one. ',
          h(
            'a',
            {
              href: '#/',
              onclick: (event: Event) => {
                event.preventDefault();
                history.replaceState(null, '', `${location.pathname}#/`);
                started();
              },
            },
            'Sign in',
          ),
        ),
      ),
    );
  };
  if (checked.status !== 200 || !checked.body) return gone();
  const info = checked.body;
  const { form, focus } = choosePasswordForm(info, token, started, gone);
  replace(
    app,
    card(
      h(
        'p',
        {},
        info.purpose === 'invite' ? 'Welcome, ' : 'A new password for ',
        h('strong', {}, info.name),
        ` (username `,
        h('strong', {}, info.username),
        info.purpose === 'invite' ? '). Choose your password to finish setting up your account.' : '). Choose a new password.',
      ),
      form,
    ),
  );
  focus.focus();
}
