/**
 * Second factors and single sign-on in a real browser (headless Chromium) at `http://localhost`
 * (browsers refuse passkeys for IP addresses): a user sets up an authenticator app on their
 * profile (the QR code, the key as text, the first code; recovery codes shown once), then signs in
 * with password + a code computed here with otpauth (as the phone would), then with a recovery
 * code; adds a passkey with Chromium's virtual authenticator (CDP WebAuthn) and signs in with it;
 * a role that requires a second factor sends its user to set one up before the console opens;
 * single sign-on through a real OpenID provider (oidc-provider, in this process) signs in the
 * user with that email and refuses an unknown email. Pages are photographed into /tmp/shots-factors/.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { completeInvite, PASSWORD } from '../support/accounts';
import { consoleContext, launchBrowser, watchErrors } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';
import { startOidcProvider, type TestProvider } from '../support/oidc';

let server: TestServer;
let browser: Browser;
let provider: TestProvider;
/** The console as people reach it: by name (`localhost`), so passkeys work. */
let base = '';
const shots = process.env.FPA_SCREENSHOTS || '/tmp/shots-factors';
const errors: string[] = [];
let totpSecret = '';
let recoveryCodes: string[] = [];

const codeOf = (secret: string, at = Date.now()) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: at });

async function shot(p: Page, name: string): Promise<void> {
  await p.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

/** Each person gets their own context (cookies); a step that does not happen fails in seconds. */
async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await consoleContext(browser, { viewport: { width: 1200, height: 850 } });
  const page = await context.newPage();
  watchErrors(page, errors);
  return { context, page };
}

async function signIn(p: Page, username: string): Promise<void> {
  await p.goto(`${base}/console/`);
  await p.getByLabel('Username').fill(username);
  await p.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Answers the dialog that asks the current password again before a change to one's factors. */
async function givePassword(p: Page, question: string, password: string): Promise<void> {
  const ask = p.getByRole('dialog', { name: question });
  await ask.getByLabel('Your password').fill(password);
  await ask.getByRole('button', { name: 'Continue' }).click();
}

async function signOut(p: Page): Promise<void> {
  await p.getByRole('button', { name: 'Sign out' }).click();
  await p.getByLabel('Username').waitFor();
}

async function invite(username: string, role: string, email?: string): Promise<string> {
  const created = await server.admin.post('/users/', {
    name: `${username[0]?.toUpperCase()}${username.slice(1)}`,
    username,
    role,
    ...(email ? { email } : {}),
  });
  expect(created.status).toBe(201);
  await completeInvite(server, created.body.invite_url);
  return created.body.id;
}

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  provider = await startOidcProvider();
  [server, browser] = await Promise.all([
    startTestServer({
      CONSOLE_OIDC_ISSUER: provider.issuer,
      CONSOLE_OIDC_CLIENT_ID: provider.clientId,
      CONSOLE_OIDC_CLIENT_SECRET: provider.clientSecret,
      CONSOLE_OIDC_NAME: 'Example Login',
    }),
    launchBrowser(),
  ]);
  base = `http://localhost:${new URL(server.url).port}`;
  provider.serve([`${base}/console/sso/callback`]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await provider?.close();
});

describe('an authenticator app', () => {
  test('is set up on the profile: QR code and key, confirmed by its first code; the recovery codes are shown once', async () => {
    await invite('ada', 'admin');
    const { context, page } = await newPage();
    await signIn(page, 'ada');
    await page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();
    await page.evaluate(() => {
      location.hash = '#/profile';
    });
    await page.getByRole('heading', { level: 1, name: 'Your profile' }).waitFor();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    // Adding a factor asks the password again, as removing one does; a wrong one starts nothing.
    await givePassword(page, 'Set up an authenticator app?', 'not my password');
    await page.getByText('That is not your current password: nothing was changed.').waitFor();
    expect(await page.locator('[data-totp-secret]').count()).toBe(0);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await givePassword(page, 'Set up an authenticator app?', PASSWORD);
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    totpSecret = (await page.locator('[data-totp-secret]').getAttribute('data-totp-secret')) ?? '';
    expect(totpSecret).toMatch(/^[A-Z2-7]{32}$/);
    await shot(page, 'totp-setup');
    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('that code is not right').waitFor();
    await page.getByLabel('Code from the app').fill(codeOf(totpSecret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    recoveryCodes = ((await page.locator('.once .secret').textContent()) ?? '').split('\n');
    expect(recoveryCodes).toHaveLength(10);
    expect(await page.locator('[data-second-factor]').textContent()).toBe('Authenticator app');
    await shot(page, 'totp-done');
    await signOut(page);
    await context.close();
  });

  test('then the password alone does not sign in: the code does, on the second step', async () => {
    const { context, page } = await newPage();
    await signIn(page, 'ada');
    await page.getByRole('heading', { level: 1, name: 'Confirm it’s you' }).waitFor();
    // The step grants nothing: the API refuses the browser until the code is given.
    expect(await page.evaluate(async () => (await fetch('/api/fingerprint/v1/users/me/')).status)).toBe(401);
    await shot(page, 'second-step');
    await page.getByLabel('Code from your authenticator app').fill('123456');
    await page.getByRole('button', { name: 'Continue' }).first().click();
    await page.getByText('that code is not right').waitFor();
    // The setup spent this 30 s's code (never accepted twice): the next one, as a phone a little ahead shows it, is within the window.
    await page.getByLabel('Code from your authenticator app').fill(codeOf(totpSecret, Date.now() + 30_000));
    await page.getByRole('button', { name: 'Continue' }).first().click();
    await page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();
    expect(await page.getByText('Signed in as Ada').isVisible()).toBe(true);
    await context.close();
  });

  test('a recovery code signs in once', async () => {
    const { context, page } = await newPage();
    await signIn(page, 'ada');
    await page.getByRole('heading', { level: 1, name: 'Confirm it’s you' }).waitFor();
    // A reload keeps the step (its cookie), it does not start over.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Confirm it’s you' }).waitFor();
    await page.getByText('Use a recovery code instead').click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0] as string);
    await page.getByRole('button', { name: 'Continue' }).last().click();
    await page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();
    await signOut(page);
    await signIn(page, 'ada');
    await page.getByText('Use a recovery code instead').click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0] as string);
    await page.getByRole('button', { name: 'Continue' }).last().click();
    await page.getByText('that recovery code is not right or was used already').waitFor();
    await context.close();
  });
});

describe('the second step', () => {
  test('says a failure in the console’s words: no connection, the server’s own failure', async () => {
    const { context, page } = await newPage();
    await signIn(page, 'ada');
    await page.getByRole('heading', { level: 1, name: 'Confirm it’s you' }).waitFor();
    const serverProblem = 'The server had a problem and did not do this. Try again; if it keeps happening, tell your administrator.';
    const cases: [(route: Route) => Promise<void>, string][] = [
      [(r) => r.abort('failed'), 'The server could not be reached. Check your connection and try again.'],
      [(r) => r.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad Gateway</h1>' }), serverProblem],
      [(r) => r.fulfill({ status: 500, json: { error: { code: 'internal_error', message: 'an internal error occurred', details: {} } } }), serverProblem],
    ];
    const step = '**/console/sign-in/second-factor';
    const cont = page.getByRole('button', { name: 'Continue' }).first();
    for (const [answer, words] of cases) {
      await page.route(step, (r) => (r.request().method() === 'POST' ? answer(r) : r.continue()));
      // The last case's words gone first: two cases say the same, and the alert must be this answer's.
      await page.evaluate(() => {
        document.querySelectorAll('[role="alert"]').forEach((alert) => {
          alert.textContent = '';
        });
      });
      await page.getByLabel('Code from your authenticator app').fill('123456');
      await cont.click();
      await page.getByRole('alert').filter({ hasText: words }).waitFor();
      expect(await page.getByRole('alert').textContent()).toBe(words);
      // The form can be sent again.
      expect(await cont.isEnabled()).toBe(true);
      await page.unroute(step);
    }
    // The server's own refusal is a sentence too.
    await cont.click();
    await page.getByRole('alert').filter({ hasText: 'That code is not right.' }).waitFor();
    await context.close();
  });
});

describe('a passkey', () => {
  test('is added on the profile with the browser’s authenticator, and then signs in', async () => {
    await invite('bea', 'hr');
    const { context, page } = await newPage();
    // Chromium's virtual authenticator: a platform passkey that verifies the user by itself.
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    await signIn(page, 'bea');
    await page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();
    await page.evaluate(() => {
      location.hash = '#/profile';
    });
    await page.getByRole('heading', { level: 1, name: 'Your profile' }).waitFor();
    await page.getByLabel('Name of the new passkey').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await givePassword(page, 'Add a passkey?', PASSWORD);
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    expect(await page.getByRole('cell', { name: 'Work laptop', exact: true }).isVisible()).toBe(true);
    expect(await page.locator('[data-second-factor]').textContent()).toBe('Passkey');
    await shot(page, 'passkey-added');
    await signOut(page);

    await signIn(page, 'bea');
    await page.getByRole('heading', { level: 1, name: 'Confirm it’s you' }).waitFor();
    await page.getByRole('button', { name: 'Use your passkey' }).click();
    await page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();
    const me = await server.admin.get('/users/');
    expect((me.body.results as { username: string; second_factor: string }[]).find((u) => u.username === 'bea')?.second_factor).toBe('passkey');

    // New recovery codes and removing the passkey ask for the password again: a session left open is not enough.
    await page.evaluate(() => {
      location.hash = '#/profile';
    });
    await page.getByRole('heading', { level: 1, name: 'Your profile' }).waitFor();
    await page.getByRole('button', { name: 'Make new recovery codes' }).click();
    const ask = page.getByRole('dialog', { name: 'Make ten new recovery codes?' });
    await ask.getByLabel('Your password').fill('not my password');
    await shot(page, 'password-asked');
    await ask.getByRole('button', { name: 'Make new codes' }).click();
    await page.getByText('That is not your current password: nothing was changed.').waitFor();
    await page.getByRole('button', { name: 'Make new recovery codes' }).click();
    await page.getByRole('dialog', { name: 'Make ten new recovery codes?' }).getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Make new codes' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    expect(((await page.locator('.once .secret').textContent()) ?? '').split('\n')).toHaveLength(10);

    await page.getByRole('button', { name: 'Remove Work laptop' }).click();
    const remove = page.getByRole('dialog', { name: 'Remove the passkey “Work laptop”?' });
    expect(await remove.getByText('your recovery codes go with it').isVisible()).toBe(true);
    await remove.getByLabel('Your password').fill(PASSWORD);
    await remove.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('Passkey removed.').waitFor();
    expect(await page.locator('[data-second-factor]').textContent()).toBe('None yet');
    // The last factor took the recovery codes with it.
    expect(await page.getByRole('heading', { name: 'Recovery codes', exact: true }).count()).toBe(0);
    expect((await server.admin.get('/users/')).body.results.find((u: { username: string }) => u.username === 'bea').second_factor).toBe('none');
    await context.close();
  });
});

describe('a role that requires a second factor', () => {
  test('sends its user to set one up before the console opens', async () => {
    expect((await server.admin.request('PUT', '/users/second-factor-policy/', { roles: ['installer'] })).status).toBe(200);
    await invite('ivan', 'installer');
    const { context, page } = await newPage();
    await signIn(page, 'ivan');
    await page.getByRole('heading', { level: 1, name: 'Your profile' }).waitFor();
    await page.getByText('Your role requires a second factor.').waitFor();
    // Nothing else is reachable: no navigation, and the API refuses.
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    expect(await page.evaluate(async () => (await fetch('/api/fingerprint/v1/devices/')).status)).toBe(403);
    await shot(page, 'enrollment-required');
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await givePassword(page, 'Set up an authenticator app?', PASSWORD);
    const secret = (await page.locator('[data-totp-secret]').getAttribute('data-totp-secret')) ?? '';
    await page.getByLabel('Code from the app').fill(codeOf(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    await page.getByRole('button', { name: 'Continue to the console' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(await page.evaluate(async () => (await fetch('/api/fingerprint/v1/devices/')).status)).toBe(200);
    await context.close();
    await server.admin.request('PUT', '/users/second-factor-policy/', { roles: [] });
  });
});

describe('single sign-on', () => {
  async function throughProvider(page: Page, login: string): Promise<void> {
    await page.goto(`${base}/console/`);
    await page.getByRole('link', { name: 'Sign in with Example Login' }).click();
    await page.locator('input[name=login]').fill(login);
    await page.locator('input[name=password]').fill('whatever the provider wants');
    await page.locator('button[type=submit]').click();
    // The provider's consent page.
    await page.locator('button[type=submit]').click();
  }

  test('signs in the user whose email the provider verified', async () => {
    await invite('sam', 'viewer', 'Sam@Example.com');
    const { context, page } = await newPage();
    await page.goto(`${base}/console/`);
    await page.getByRole('link', { name: 'Sign in with Example Login' }).waitFor();
    await shot(page, 'sign-in-sso');
    await throughProvider(page, 'sam');
    await page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();
    expect(await page.getByText('Signed in as Sam').isVisible()).toBe(true);
    const audit = await server.admin.get('/audit-log/?action=console_signed_in');
    expect(JSON.stringify(audit.body.results)).toContain('"sso"');
    await context.close();
  });

  test('stands for the password, not the second factor: a user with one gives it next', async () => {
    // Ada (an authenticator app, above) gets the email the provider knows her by.
    const users = await server.admin.get('/users/');
    const ada = (users.body.results as { id: string; username: string }[]).find((u) => u.username === 'ada');
    expect((await server.admin.patch(`/users/${ada?.id}/`, { email: 'ada@example.com' })).status).toBe(200);
    const { context, page } = await newPage();
    await throughProvider(page, 'ada');
    await page.getByRole('heading', { level: 1, name: 'Confirm it’s you' }).waitFor();
    expect(await page.getByText('Your company account let you in; now your second factor.').isVisible()).toBe(true);
    // Back from the provider, nothing is granted until the second factor is given.
    expect(await page.evaluate(async () => (await fetch('/api/fingerprint/v1/users/me/')).status)).toBe(401);
    await shot(page, 'sso-second-step');
    await page.getByText('Use a recovery code instead').click();
    // A wrong code first: it counts against her username, until the sign-in completes.
    await page.getByLabel('Recovery code').fill('wrong-wrong');
    await page.getByRole('button', { name: 'Continue' }).last().click();
    await page.getByText('that recovery code is not right or was used already').waitFor();
    const failures = async () =>
      Number((await server.fpa.db.client.execute("select count(*) as n from fpa_sign_in_failures where key = 'user:ada'")).rows[0]!.n);
    expect(await failures()).toBe(1);
    await page.getByLabel('Recovery code').fill(recoveryCodes[1] as string);
    await page.getByRole('button', { name: 'Continue' }).last().click();
    await page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();
    expect(await page.getByText('Signed in as Ada').isVisible()).toBe(true);
    expect(await failures()).toBe(0);
    // The session records that it began at the provider.
    const audit = await server.admin.get('/audit-log/?action=console_signed_in');
    const rows = (audit.body.results as unknown[]).map((r) => JSON.stringify(r));
    expect(rows.some((r) => r.includes('"ada"') && r.includes('"sso"'))).toBe(true);
    await context.close();
  });

  test('refuses an email no user has (nobody is created), and an unverified one', async () => {
    const { context, page } = await newPage();
    await throughProvider(page, 'stranger');
    await page.getByText('belongs to no user of this console').waitFor();
    await shot(page, 'sso-refused');
    expect(await page.evaluate(async () => (await fetch('/api/fingerprint/v1/users/me/')).status)).toBe(401);
    const users = await server.admin.get('/users/');
    expect((users.body.results as { email: string | null }[]).some((u) => u.email === 'stranger@example.com')).toBe(false);
    await context.close();
    const second = await newPage();
    await invite('unverified', 'viewer', 'unverified@example.com');
    await throughProvider(second.page, 'unverified');
    await second.page.getByText('not verified').waitFor();
    await second.context.close();
  });

  test('refuses a disabled user', async () => {
    const users = await server.admin.get('/users/');
    const sam = (users.body.results as { id: string; username: string }[]).find((u) => u.username === 'sam');
    expect((await server.admin.patch(`/users/${sam?.id}/`, { disabled: true })).status).toBe(200);
    const { context, page } = await newPage();
    await throughProvider(page, 'sam');
    await page.getByText('Your account is disabled').waitFor();
    expect(await page.evaluate(async () => (await fetch('/api/fingerprint/v1/users/me/')).status)).toBe(401);
    await context.close();
  });

  test('a callback this browser did not start signs nobody in', async () => {
    const res = await fetch(`${server.url}/console/sso/callback?code=abc&state=made-up`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('../?sso_error=failed');
    expect(res.headers.getSetCookie().some((c) => c.startsWith('fpa_console='))).toBe(false);
  });

  test('no script error on any page', () => {
    expect(errors).toEqual([]);
  });
});
