/**
 * The sign-in's second step, drawn when the password was right and a second factor is pending
 * (the server's `fpa_console_2fa` cookie): a passkey, a code from the authenticator app, or a
 * recovery code. No session exists yet, so these calls carry no CSRF token: the pending cookie
 * (SameSite=Strict) and the same-origin check stand in for it.
 */
import { startAuthentication } from '@simplewebauthn/browser';
import type { PendingSignInWire, SecondFactorsWire, SignedInWire, SsoWire } from '../../sign-in-factors';
import { ApiError, api, failureOf, reach } from './api';
import { button, field, h, input, replace } from './dom';
import { plainMessage } from './form-errors';

/**
 * A call of the sign-in's second step. A failure is said as every console page says it
 * (form-errors.ts `plainMessage`): no connection, the server's own failure, or the API's words.
 */
async function call<T>(method: string, path: string, body?: unknown): Promise<{ ok: true; value: T } | { ok: false; status: number; message: string }> {
  try {
    const response = await reach(path, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.ok) return { ok: true, value: response.status === 204 ? (undefined as T) : ((await response.json()) as T) };
    throw await failureOf(response);
  } catch (error) {
    const status = error instanceof ApiError ? error.status : 0;
    // The server's words say when to try again; "too many attempts" alone would not.
    const message = status === 429 && error instanceof ApiError ? `Too many wrong attempts. ${error.message}` : plainMessage(error);
    return { ok: false, status, message };
  }
}

/** The pending sign-in, or null when there is none (the ordinary sign-in page is shown instead). */
export async function pendingSignIn(): Promise<PendingSignInWire | null> {
  const answer = await call<PendingSignInWire>('GET', 'sign-in/second-factor');
  return answer.ok ? answer.value : null;
}

/** Signed in: the console opens (`started`), on the profile page when the role still needs a factor set up. */
let started: () => void = () => location.reload();
function opened(answer: SignedInWire): void {
  if (answer.must_enroll) location.hash = '#/profile';
  started();
}

/** Why single sign-on sent the person back (`?sso_error=` of the callback), in words; null when it did not. */
const SSO_PROBLEMS: Record<string, string> = {
  unknown_email: 'Your company account’s email belongs to no user of this console. Ask an administrator to invite you with that email.',
  unverified_email: 'Your company account’s email is not verified by the sign-in provider, so it cannot sign you in here.',
  disabled: 'Your account is disabled. Ask an administrator.',
  failed: 'Signing in with your company account did not finish. Try again.',
  unavailable: 'The company sign-in provider cannot be reached now. Sign in with your password, or try again later.',
  not_configured: 'Single sign-on is not set up on this server.',
};

export function ssoProblem(): string | null {
  const reason = new URLSearchParams(location.search).get('sso_error');
  if (!reason) return null;
  // Said once: the reason leaves the address bar.
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
  return SSO_PROBLEMS[reason] ?? SSO_PROBLEMS.failed ?? null;
}

/** "Sign in with …" when single sign-on is configured (a plain link: the server sends the browser to the provider). */
export async function ssoChoice(): Promise<HTMLElement | null> {
  const answer = await call<SsoWire>('GET', 'sso');
  if (!answer.ok || !answer.value.configured) return null;
  return h('p', { class: 'sso' }, h('a', { class: 'button', href: 'sso/start' }, `Sign in with ${answer.value.name ?? 'your company account'}`));
}

/** Whether the signed-in user must set up a second factor before the console opens (their role requires one). */
export async function enrollmentNeeded(): Promise<boolean> {
  const state = await api.get<SecondFactorsWire>('users/me/second-factors/').catch(() => null);
  return state?.required === true && state.second_factor === 'none';
}

function codeForm(kind: 'code' | 'recovery_code', error: HTMLElement): HTMLFormElement {
  const control =
    kind === 'code'
      ? input({ name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9 ]*', maxlength: 7, required: true })
      : input({ name: 'recovery_code', autocomplete: 'off', spellcheck: 'false', maxlength: 40, required: true });
  const form = h(
    'form',
    { class: 'stack' },
    field(
      kind === 'code' ? 'Code from your authenticator app' : 'Recovery code',
      control,
      kind === 'code' ? 'Six digits.' : 'One of the codes you kept when you set up your second factor. Each works once.',
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Continue')),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const submit = form.querySelector('button');
    if (submit) submit.disabled = true;
    // The last attempt's error goes as this one starts: a stale one read as this one's answer.
    replace(error);
    const answer = await call<SignedInWire>('POST', 'sign-in/second-factor', { [kind]: control.value });
    if (submit) submit.disabled = false;
    if (answer.ok) return opened(answer.value);
    replace(error, answer.message);
    control.select();
  });
  return form;
}

/** Draws the second step into `app`. */
export function drawSecondFactor(app: HTMLElement, pending: PendingSignInWire, startAgain: () => void, onSignedIn: () => void): void {
  started = onSignedIn;
  const error = h('p', { class: 'error', role: 'alert' });
  const parts: HTMLElement[] = [];
  if (pending.methods.includes('passkey')) {
    parts.push(
      h(
        'div',
        { class: 'actions' },
        button(
          'Use your passkey',
          async () => {
            replace(error);
            const options = await call<Parameters<typeof startAuthentication>[0]['optionsJSON']>('POST', 'sign-in/passkey/options', {});
            if (!options.ok) return void replace(error, options.message);
            let response: Awaited<ReturnType<typeof startAuthentication>>;
            try {
              response = await startAuthentication({ optionsJSON: options.value });
            } catch (e) {
              return void replace(error, `The passkey was not used: ${e instanceof Error ? e.message : String(e)}`);
            }
            const answer = await call<SignedInWire>('POST', 'sign-in/passkey', { response });
            if (answer.ok) return opened(answer.value);
            replace(error, answer.message);
          },
          { class: 'primary' },
        ),
      ),
    );
  }
  if (pending.methods.includes('totp')) parts.push(codeForm('code', error));
  const recovery = pending.methods.includes('recovery_code')
    ? h('details', {}, h('summary', {}, 'Use a recovery code instead'), codeForm('recovery_code', error))
    : null;
  const cancel = button('Start again', async () => {
    await call('POST', 'sign-in/cancel');
    startAgain();
  });
  replace(
    app,
    h(
      'main',
      { class: 'signin', id: 'main' },
      h('h1', {}, 'Confirm it’s you'),
      h(
        'p',
        {},
        'Signing in as ',
        h('strong', {}, pending.username),
        pending.first === 'sso' ? '. Your company account let you in; now your second factor.' : '. Your password was right; now your second factor.',
      ),
      error,
      ...parts,
      recovery,
      h('div', { class: 'actions' }, cancel),
    ),
  );
  (app.querySelector<HTMLInputElement>('input[name="code"]') ?? app.querySelector<HTMLButtonElement>('button.primary'))?.focus();
}
