/**
 * The profile's second factors: an authenticator app (QR code, the secret as text, confirmed by
 * a first code), passkeys (made by the browser: @simplewebauthn/browser), recovery codes (shown
 * once, made again on demand); and, for an owner, the roles that must have a second factor.
 */
import { browserSupportsWebAuthn, startRegistration } from '@simplewebauthn/browser';
import type { FactorPolicyWire, PasskeyAddedWire, PasskeyWire, RecoveryCodesWire, SecondFactorsWire, TotpSetupWire } from '../../../sign-in-factors';
import { ApiError, api } from '../api';
import { announce, askPassword, badge, button, field, h, input, replace, section, showOnce, table } from '../dom';
import { dateTime } from '../format';

const KIND_WORDS: Record<SecondFactorsWire['second_factor'], string> = {
  none: 'None yet',
  totp: 'Authenticator app',
  passkey: 'Passkey',
};

const ROLE_WORDS: Record<string, string> = {
  owner: 'Owners',
  admin: 'Administrators',
  hr: 'HR officers',
  manager: 'Managers',
  installer: 'Installers',
  viewer: 'Viewers',
};

/** The QR code the server drew (SVG), parsed as SVG: never inserted as HTML. */
function qrImage(svg: string): Element {
  const parsed = new DOMParser().parseFromString(svg, 'image/svg+xml').documentElement;
  const node = document.importNode(parsed, true);
  node.setAttribute('role', 'img');
  node.setAttribute('aria-label', 'QR code for your authenticator app');
  node.setAttribute('class', 'qr');
  return node;
}

const LAST_FACTOR = 'If it is your last second factor, your recovery codes go with it: the next one you set up comes with new codes.';

/** Sends a change the server asks the password for: its answer, or null when refused (a wrong password, too many tries: said). */
async function withPassword<T>(send: () => Promise<T>): Promise<{ answer: T } | null> {
  try {
    return { answer: await send() };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const wrong = error.code === 'forbidden' && error.details.field === 'current_password' && error.details.reason === undefined;
    announce(wrong ? 'That is not your current password: nothing was changed.' : error.message, 'bad');
    return null;
  }
}

/** The body that adds a factor: the password asked again of a user who has one (not of one who signs in only by single sign-on); null when cancelled. */
async function addingProof(state: SecondFactorsWire, title: string): Promise<{ current_password?: string } | null> {
  if (!state.password_set) return {};
  const password = await askPassword(title, { action: 'Continue', detail: 'A new second factor signs in to your account: your password is asked first.' });
  return password === null ? null : { current_password: password };
}

function recoveryCodesOnce(codes: string[]): HTMLElement {
  const box = showOnce(
    'Your recovery codes',
    codes.join('\n'),
    'Each code signs you in once if you lose your phone or passkey. Keep them somewhere safe (printed, or in a password manager): they are not shown again.',
  );
  box.classList.add('recovery-codes');
  return box;
}

/** Setting up an authenticator app: scan or type, then confirm with the first code. */
function totpSetup(setup: TotpSetupWire, out: HTMLElement, redraw: () => Promise<void>): HTMLElement {
  const code = input({ inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9 ]*', maxlength: 7, name: 'totp-code' });
  const confirm = button(
    'Confirm',
    async () => {
      try {
        const answer = await api.post<RecoveryCodesWire>('users/me/totp/confirm/', { code: code.value });
        await redraw();
        if (answer.recovery_codes) out.prepend(recoveryCodesOnce(answer.recovery_codes));
        announce('Authenticator app set up.');
      } catch (error) {
        if (error instanceof ApiError) announce(error.message, 'bad');
        else throw error;
      }
    },
    { class: 'primary' },
  );
  return h(
    'div',
    { class: 'stack totp-setup' },
    h('p', {}, 'Scan this code with your authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, …):'),
    qrImage(setup.qr_svg),
    h(
      'p',
      {},
      'Or type this key into the app: ',
      h('code', { class: 'secret', 'data-totp-secret': setup.secret }, setup.secret.match(/.{1,4}/g)?.join(' ') ?? setup.secret),
    ),
    field('Code from the app', code, 'Six digits; it changes every 30 seconds.'),
    h('div', { class: 'actions' }, confirm),
  );
}

function totpPart(state: SecondFactorsWire, out: HTMLElement, redraw: () => Promise<void>): HTMLElement {
  const holder = h('div', { class: 'stack' });
  if (state.totp.confirmed_at) {
    replace(
      holder,
      h('p', {}, `Set up ${dateTime(state.totp.confirmed_at)}.`),
      h(
        'div',
        { class: 'actions' },
        button('Remove authenticator app', async () => {
          const password = await askPassword('Remove your authenticator app?', { action: 'Remove', detail: LAST_FACTOR });
          if (password === null) return;
          if (!(await withPassword(() => api.post('users/me/totp/remove/', { current_password: password })))) return;
          // Said once the page shows it (a check reading the page at the message saw the factor still there).
          await redraw();
          announce('Authenticator app removed.');
        }),
      ),
    );
  } else {
    replace(
      holder,
      h('p', {}, 'Codes from an app on your phone.'),
      h(
        'div',
        { class: 'actions' },
        button('Set up an authenticator app', async () => {
          const proof = await addingProof(state, 'Set up an authenticator app?');
          if (proof === null) return;
          const started = await withPassword(() => api.post<TotpSetupWire>('users/me/totp/', proof));
          if (!started) return;
          replace(holder, totpSetup(started.answer, out, redraw));
          holder.querySelector('input')?.focus();
        }),
      ),
    );
  }
  return h('div', {}, h('h3', {}, 'Authenticator app'), holder);
}

function passkeyPart(state: SecondFactorsWire, out: HTMLElement, redraw: () => Promise<void>): HTMLElement {
  const rows = state.passkeys.map((p: PasskeyWire) => [
    p.name,
    dateTime(p.created_at),
    p.last_used_at ? dateTime(p.last_used_at) : 'Never',
    button(`Remove ${p.name}`, async () => {
      const password = await askPassword(`Remove the passkey “${p.name}”?`, { action: 'Remove', detail: LAST_FACTOR });
      if (password === null) return;
      if (!(await withPassword(() => api.post(`users/me/passkeys/${encodeURIComponent(p.id)}/remove/`, { current_password: password })))) return;
      await redraw();
      announce('Passkey removed.');
    }),
  ]);
  const name = input({ name: 'passkey-name', placeholder: 'Work laptop', maxlength: 80 });
  const add = button('Add a passkey', async () => {
    const proof = await addingProof(state, 'Add a passkey?');
    if (proof === null) return;
    const options = await withPassword(() => api.post<Parameters<typeof startRegistration>[0]['optionsJSON']>('users/me/passkeys/options/', proof));
    if (!options) return;
    try {
      const response = await startRegistration({ optionsJSON: options.answer });
      const answer = await api.post<PasskeyAddedWire>('users/me/passkeys/', { name: name.value || undefined, response });
      await redraw();
      if (answer.recovery_codes) out.prepend(recoveryCodesOnce(answer.recovery_codes));
      announce(`Passkey “${answer.name}” added.`);
    } catch (error) {
      announce(error instanceof Error ? error.message : String(error), 'bad');
    }
  });
  const supported = browserSupportsWebAuthn();
  return h(
    'div',
    {},
    h('h3', {}, 'Passkeys'),
    table(['Name', 'Added', 'Last used', ''], rows, 'No passkey yet.', 'Your passkeys'),
    supported
      ? h('div', { class: 'stack' }, field('Name of the new passkey', name), h('div', { class: 'actions' }, add))
      : h('p', { class: 'muted' }, 'This browser cannot make passkeys.'),
  );
}

function recoveryPart(state: SecondFactorsWire, out: HTMLElement, redraw: () => Promise<void>): HTMLElement | null {
  if (state.second_factor === 'none') return null;
  return h(
    'div',
    {},
    h('h3', {}, 'Recovery codes'),
    h('p', {}, `${state.recovery_codes_left} of 10 left.`),
    h(
      'div',
      { class: 'actions' },
      button('Make new recovery codes', async () => {
        const password = await askPassword('Make ten new recovery codes?', { action: 'Make new codes', detail: 'The old ones stop working.' });
        if (password === null) return;
        const made = await withPassword(() => api.post<RecoveryCodesWire>('users/me/recovery-codes/', { current_password: password }));
        if (!made) return;
        await redraw();
        if (made.answer.recovery_codes) out.prepend(recoveryCodesOnce(made.answer.recovery_codes));
      }),
    ),
  );
}

/** The profile's "Second factor" card; `onChange` runs after anything changes (the shell may unlock). */
export async function secondFactorsSection(onChange: () => void = () => undefined): Promise<HTMLElement> {
  const out = h('div', { class: 'stack' });
  const body = h('div', { class: 'stack' });
  const redraw = async () => {
    const state = await api.get<SecondFactorsWire>('users/me/second-factors/');
    const enrolling = document.documentElement.dataset.enrolling === 'true';
    replace(
      body,
      enrolling && state.second_factor === 'none'
        ? h(
            'p',
            { class: 'factor-required', role: 'alert' },
            'Your role requires a second factor. Set up an authenticator app or a passkey to open the console.',
          )
        : null,
      enrolling && state.second_factor !== 'none'
        ? h(
            'div',
            { class: 'actions' },
            h('p', { role: 'status' }, 'Your second factor is set up. Keep your recovery codes, then continue.'),
            button('Continue to the console', () => location.reload(), { class: 'primary' }),
          )
        : null,
      h(
        'p',
        {},
        'Your second factor: ',
        h('strong', { 'data-second-factor': state.second_factor }, KIND_WORDS[state.second_factor]),
        state.required ? [' ', badge('Required for your role', state.second_factor === 'none' ? 'warn' : 'info')] : null,
      ),
      totpPart(state, out, redraw),
      passkeyPart(state, out, redraw),
      recoveryPart(state, out, redraw),
    );
    onChange();
  };
  await redraw();
  return section('Second factor', out, body);
}

/** An owner's choice of the roles that must have a second factor. */
export async function factorPolicySection(): Promise<HTMLElement> {
  const [policy, me] = await Promise.all([api.get<FactorPolicyWire>('users/second-factor-policy/'), api.get<{ role: string }>('users/me/')]);
  const owner = me.role === 'owner';
  const boxes = Object.entries(ROLE_WORDS).map(([role, label]) => {
    const box = h('input', { type: 'checkbox', value: role, id: `require-${role}`, checked: policy.roles.includes(role as never), disabled: !owner });
    return { box, element: h('div', { class: 'check' }, box, h('label', { for: box.id }, label)) };
  });
  const save = button(
    'Update required roles',
    async () => {
      const roles = boxes.filter((b) => b.box.checked).map((b) => b.box.value);
      const saved = await api.put<FactorPolicyWire>('users/second-factor-policy/', { roles });
      announce(saved.roles.length ? 'Saved: these roles need a second factor.' : 'Saved: no role needs a second factor.');
    },
    { class: 'primary' },
  );
  return section(
    'Second factor required for',
    h('p', {}, 'People with these roles must set up an authenticator app or a passkey before they can use the console.'),
    h('fieldset', { class: 'stack' }, h('legend', {}, 'Roles'), ...boxes.map((b) => b.element)),
    owner ? h('div', { class: 'actions' }, save) : h('p', { class: 'muted' }, 'Only an owner can change this.'),
  );
}
