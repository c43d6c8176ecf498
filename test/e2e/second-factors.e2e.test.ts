/**
 * Second factors over HTTP (API.md "People who sign in"): an authenticator app set up from the
 * profile counts once confirmed; then a right password opens no session but a pending step that
 * grants nothing; a TOTP code (computed here with otpauth, as a phone would) completes it once,
 * and never twice; a recovery code works once; wrong codes reach the sign-in limit (429); an
 * owner's required roles lock a user without a factor out of everything but their profile; an
 * administrator's reset clears the factors; only a user has factors.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Secret, TOTP } from 'otpauth';
import { makeUser, PASSWORD, passwordSignInRaw, sessionClient } from '../support/accounts';
import type { ConsoleCookie } from '../support/console';
import { ApiClient, adminToken, startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let now = Date.now();
const clock = { now: () => now };

beforeAll(async () => {
  server = await startTestServer({ CONSOLE_SIGN_IN_LIMIT: '4/10m', CONSOLE_SIGN_IN_ADDRESS_LIMIT: '100/10m' }, { clock });
});
afterAll(async () => {
  await server.close();
});

const codeOf = (secret: string, at = now) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: at });

const cookieOf = (res: Response, name: string) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0] ?? '')
    .find((c) => c.startsWith(`${name}=`) && c.length > name.length + 1) ?? null;

const post = (path: string, body: unknown, cookie: string) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: server.url, cookie }, body: JSON.stringify(body) });

/** Sets up an authenticator app for a signed-in user; answers its secret and the recovery codes. */
async function setUpTotp(session: ConsoleCookie): Promise<{ secret: string; codes: string[] }> {
  const client = sessionClient(server, session);
  const setup = await client.post('/users/me/totp/', { current_password: PASSWORD });
  expect(setup.status).toBe(201);
  expect(setup.body.otpauth_uri).toStartWith('otpauth://totp/');
  expect(setup.body.qr_svg).toStartWith('<svg');
  // Not counted until confirmed.
  expect((await client.get('/users/me/')).body.second_factor).toBe('none');
  expect((await client.post('/users/me/totp/confirm/', { code: '000000' })).status).toBe(400);
  const confirmed = await client.post('/users/me/totp/confirm/', { code: codeOf(setup.body.secret) });
  expect(confirmed.status).toBe(200);
  expect(confirmed.body.recovery_codes).toHaveLength(10);
  expect((await client.get('/users/me/')).body.second_factor).toBe('totp');
  return { secret: setup.body.secret, codes: confirmed.body.recovery_codes };
}

/** A right password: the pending step's cookie (and no session). */
async function passwordStep(username: string): Promise<string> {
  const res = await passwordSignInRaw(server, username, PASSWORD);
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ second_factor_required: true, second_factor: 'totp', methods: ['totp', 'recovery_code'] });
  expect(cookieOf(res, 'fpa_console')).toBeNull();
  const pending = cookieOf(res, 'fpa_console_2fa');
  expect(pending).not.toBeNull();
  return pending as string;
}

describe('an authenticator app', () => {
  let secret = '';
  let codes: string[] = [];

  test('is set up from the profile: counted once a first code confirms it; the users list says so', async () => {
    const { id, session } = await makeUser(server, 'ada', 'admin');
    ({ secret, codes } = await setUpTotp(session));
    expect((await server.admin.get(`/users/${id}/`)).body.second_factor).toBe('totp');
    const mine = await sessionClient(server, session).get('/users/me/second-factors/');
    expect(mine.body).toMatchObject({ second_factor: 'totp', recovery_codes_left: 10, required: false, passkeys: [] });
  });

  test('after the password, the pending step grants nothing; the right code opens the session, once', async () => {
    now += 30_000;
    const pending = await passwordStep('ada');
    // The pending cookie is no session: neither the console nor the API takes it.
    expect((await fetch(`${server.url}/console/session`, { headers: { cookie: pending } })).status).toBe(401);
    expect((await fetch(`${server.url}/api/fingerprint/v1/users/me/`, { headers: { cookie: pending } })).status).toBe(401);
    const step = await fetch(`${server.url}/console/sign-in/second-factor`, { headers: { cookie: pending } });
    expect(await step.json()).toMatchObject({ username: 'ada', methods: ['totp', 'recovery_code'] });

    expect((await post('/console/sign-in/second-factor', { code: '123456' }, pending)).status).toBe(401);
    const code = codeOf(secret);
    const done = await post('/console/sign-in/second-factor', { code }, pending);
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ signed_in: true, must_enroll: false });
    const session = cookieOf(done, 'fpa_console');
    expect(session).not.toBeNull();
    expect((await fetch(`${server.url}/console/session`, { headers: { cookie: session as string } })).status).toBe(200);
    // The pending step is spent; and the same code does not complete another sign-in (replay).
    expect((await post('/console/sign-in/second-factor', { code }, pending)).status).toBe(401);
    const again = await passwordStep('ada');
    expect((await post('/console/sign-in/second-factor', { code }, again)).status).toBe(401);
  });

  test('a recovery code completes a sign-in once', async () => {
    const pending = await passwordStep('ada');
    const first = codes[0] as string;
    const done = await post('/console/sign-in/second-factor', { recovery_code: first.toLowerCase() }, pending);
    expect(done.status).toBe(200);
    const again = await passwordStep('ada');
    expect((await post('/console/sign-in/second-factor', { recovery_code: first }, again)).status).toBe(401);
  });

  test('wrong codes count toward the sign-in limit: 429 with Retry-After, even after a right password', async () => {
    now += 11 * 60_000;
    const pending = await passwordStep('ada');
    for (let i = 0; i < 4; i++) expect((await post('/console/sign-in/second-factor', { code: '000000' }, pending)).status).toBe(401);
    const limited = await post('/console/sign-in/second-factor', { code: codeOf(secret) }, pending);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The password is limited too now: a right password does not reset the count.
    expect((await passwordSignInRaw(server, 'ada', PASSWORD)).status).toBe(429);
    now += 11 * 60_000;
  });

  test('an administrator’s reset clears the second factors', async () => {
    const users = await server.admin.get('/users/');
    const ada = (users.body.results as { id: string; username: string }[]).find((u) => u.username === 'ada');
    const reset = await server.admin.post(`/users/${ada?.id}/reset/`);
    expect(reset.status).toBe(200);
    expect(reset.body.user.second_factor).toBe('none');
    const rows = await server.fpa.service.runtime.db.client.execute({
      sql: 'SELECT (SELECT count(*) FROM fpa_user_totp WHERE user_id = ?) + (SELECT count(*) FROM fpa_recovery_codes WHERE user_id = ?)',
      args: [ada?.id ?? '', ada?.id ?? ''],
    });
    expect(Number(rows.rows[0]?.[0])).toBe(0);
  });
});

describe('removing a factor, making recovery codes', () => {
  const proof = { current_password: PASSWORD };

  test('ask for the current password again: a session alone changes nothing', async () => {
    const { session } = await makeUser(server, 'hr1', 'hr');
    await setUpTotp(session);
    const client = sessionClient(server, session);
    // No password, a wrong one: refused, and nothing changed.
    for (const path of ['/users/me/recovery-codes/', '/users/me/totp/remove/']) {
      expect((await client.post(path)).status).toBe(400);
      const wrong = await client.post(path, { current_password: 'not my password' });
      expect(wrong.status).toBe(403);
      expect(wrong.body.error.details.field).toBe('current_password');
    }
    // The DELETE of earlier releases, which asked nothing, is gone.
    expect((await client.delete('/users/me/totp/')).status).toBe(405);
    expect((await client.get('/users/me/second-factors/')).body).toMatchObject({ second_factor: 'totp', recovery_codes_left: 10 });
    // A third wrong password reaches the limit of this file (4): wrong ones are counted.
    expect((await client.post('/users/me/recovery-codes/', { current_password: 'still not it' })).status).toBe(403);
    expect((await client.post('/users/me/recovery-codes/', { current_password: 'nor this' })).status).toBe(403);
    expect((await client.post('/users/me/recovery-codes/', proof)).status).toBe(429);
    now += 11 * 60_000;
    const fresh = await client.post('/users/me/recovery-codes/', proof);
    expect(fresh.status).toBe(200);
    expect(fresh.body.recovery_codes).toHaveLength(10);
  });

  test('adding a factor asks for the password too: a session alone puts no authenticator or passkey in front of the account', async () => {
    const { session } = await makeUser(server, 'hr5', 'hr');
    const client = sessionClient(server, session);
    for (const path of ['/users/me/totp/', '/users/me/passkeys/options/']) {
      const missing = await client.post(path, {});
      expect(missing.status).toBe(400);
      expect(missing.body.error.details.field).toBe('current_password');
      const wrong = await client.post(path, { current_password: 'not my password' });
      expect(wrong.status).toBe(403);
      expect(wrong.body.error.details.field).toBe('current_password');
    }
    // Nothing was started: a confirmation finds no setup, and no passkey prompt is pending.
    expect((await client.post('/users/me/totp/confirm/', { code: '123456' })).status).toBe(409);
    expect((await client.get('/users/me/second-factors/')).body).toMatchObject({ second_factor: 'none', password_set: true });
    expect((await client.post('/users/me/passkeys/options/', proof)).body.challenge).toBeString();
  });

  test('a user who signs in only by single sign-on has no password to give: adding a factor asks none', async () => {
    const { id, session } = await makeUser(server, 'sso1', 'hr');
    await server.fpa.db.client.execute({ sql: 'UPDATE fpa_users SET password_hash = NULL WHERE id = ?', args: [id] });
    const client = sessionClient(server, session);
    expect((await client.get('/users/me/second-factors/')).body).toMatchObject({ password_set: false });
    const setup = await client.post('/users/me/totp/', {});
    expect(setup.status).toBe(201);
    expect((await client.post('/users/me/totp/confirm/', { code: codeOf(setup.body.secret) })).status).toBe(200);
  });

  test('removing the last factor throws the recovery codes away: an old one never signs in again, the next factor shows ten new ones', async () => {
    const { session } = await makeUser(server, 'hr2', 'hr');
    await setUpTotp(session);
    const client = sessionClient(server, session);
    const made = await client.post('/users/me/recovery-codes/', proof);
    const old = made.body.recovery_codes as string[];
    now += 30_000;
    expect((await client.post('/users/me/totp/remove/', proof)).status).toBe(204);
    expect((await client.get('/users/me/second-factors/')).body).toMatchObject({ second_factor: 'none', recovery_codes_left: 0 });
    // Without a factor there is nothing for codes to stand in for.
    expect((await client.post('/users/me/recovery-codes/', proof)).status).toBe(409);
    const audit = await server.admin.get('/audit-log/?action=user.totp_removed&actor=hr2');
    expect(audit.body.results[0].details).toEqual({ recovery_codes_dropped: 10 });

    now += 30_000;
    const { secret, codes } = await setUpTotp(session);
    expect(codes.some((c) => old.includes(c))).toBe(false);
    now += 30_000;
    const pending = await passwordStep('hr2');
    expect((await post('/console/sign-in/second-factor', { recovery_code: old[0] }, pending)).status).toBe(401);
    expect((await post('/console/sign-in/second-factor', { recovery_code: codes[0] }, pending)).status).toBe(200);
    expect(secret).toBeTruthy();
  });

  test('codes an earlier release left behind a removed factor are replaced by the next first factor', async () => {
    const { id, session } = await makeUser(server, 'hr3', 'hr');
    const { codes: old } = await setUpTotp(session);
    // As an earlier release removed a factor: the authenticator gone, its codes kept.
    await server.fpa.db.client.execute({ sql: 'DELETE FROM fpa_user_totp WHERE user_id = ?', args: [id] });
    now += 30_000;
    const { codes } = await setUpTotp(session);
    expect(codes.some((c) => old.includes(c))).toBe(false);
    expect((await sessionClient(server, session).get('/users/me/second-factors/')).body.recovery_codes_left).toBe(10);
  });

  test('a passkey too: removed with the current password; the last one takes the codes with it', async () => {
    const { id, session } = await makeUser(server, 'hr4', 'hr');
    const client = sessionClient(server, session);
    // A passkey as the browser would have left it (its ceremony is the browser test's).
    await server.fpa.db.client.execute({
      sql: `INSERT INTO fpa_passkeys (id, user_id, name, public_key, counter, transports, backed_up, created_at) VALUES ('cred-hr4', ?, 'Laptop', x'00', 0, '[]', 0, ?)`,
      args: [id, now],
    });
    expect((await client.post('/users/me/recovery-codes/', proof)).status).toBe(200);
    expect((await client.post('/users/me/passkeys/cred-hr4/remove/')).status).toBe(400);
    expect((await client.post('/users/me/passkeys/cred-hr4/remove/', { current_password: 'wrong' })).status).toBe(403);
    expect((await client.delete('/users/me/passkeys/cred-hr4/')).status).toBe(404);
    expect((await client.get('/users/me/second-factors/')).body).toMatchObject({ second_factor: 'passkey', recovery_codes_left: 10 });
    expect((await client.post('/users/me/passkeys/cred-hr4/remove/', proof)).status).toBe(204);
    expect((await client.get('/users/me/second-factors/')).body).toMatchObject({ second_factor: 'none', passkeys: [], recovery_codes_left: 0 });
    expect((await client.post('/users/me/passkeys/cred-hr4/remove/', proof)).status).toBe(404);
  });
});

describe('roles that require a second factor', () => {
  test('an owner sets them; a user of such a role without a factor reaches only their profile until they set one up', async () => {
    const admin = await makeUser(server, 'root2', 'admin');
    expect((await sessionClient(server, admin.session).request('PUT', '/users/second-factor-policy/', { roles: ['hr'] })).status).toBe(403);
    const set = await server.admin.request('PUT', '/users/second-factor-policy/', { roles: ['hr', 'installer'] });
    expect(set.body).toEqual({ roles: ['hr', 'installer'] });

    const hr = await makeUser(server, 'grace', 'hr');
    const client = sessionClient(server, hr.session);
    const refused = await client.get('/enrollees/');
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.reason).toBe('second_factor_required');
    expect((await client.get('/users/me/')).status).toBe(200);
    expect((await client.get('/users/me/second-factors/')).body).toMatchObject({ second_factor: 'none', required: true });

    const { secret } = await setUpTotp(hr.session);
    expect((await client.get('/enrollees/')).status).toBe(200);
    // The last factor of a user whose role requires one stays.
    expect((await client.post('/users/me/totp/remove/', { current_password: PASSWORD })).status).toBe(409);
    expect(secret).toBeTruthy();
    await server.admin.request('PUT', '/users/second-factor-policy/', { roles: [] });
    expect((await client.post('/users/me/totp/remove/', { current_password: PASSWORD })).status).toBe(204);
    expect((await client.get('/users/me/')).body.second_factor).toBe('none');
  });

  test('only a user has second factors: a token is refused', async () => {
    const token = new ApiClient(`${server.url}/api/fingerprint/v1`, { authorization: `Bearer ${await adminToken()}` });
    const answer = await token.post('/users/me/totp/', {});
    expect(answer.status).toBe(403);
  });
});

describe('over HTTPS (behind a trusted proxy)', () => {
  test('the pending step’s cookie is __Host- and Secure, and its plain name is not taken', async () => {
    const secure = await startTestServer({ CONSOLE_TRUST_PROXY: true });
    try {
      const https = { 'x-forwarded-proto': 'https' };
      const { session } = await makeUser(secure, 'hal', 'viewer');
      const client = sessionClient(secure, session);
      const setup = await client.post('/users/me/totp/', { current_password: PASSWORD });
      expect((await client.post('/users/me/totp/confirm/', { code: codeOf(setup.body.secret, Date.now()) })).status).toBe(200);
      const res = await passwordSignInRaw(secure, 'hal', PASSWORD, https);
      expect(res.status).toBe(200);
      const set = res.headers.getSetCookie().find((c) => c.startsWith('__Host-fpa_console_2fa=')) ?? '';
      expect(set).toContain('; Secure');
      expect(set).toContain('HttpOnly');
      expect(set).toContain('SameSite=Strict');
      const token = set.split(';')[0]?.split('=')[1] ?? '';
      const step = (cookie: string) => fetch(`${secure.url}/console/sign-in/second-factor`, { headers: { cookie, ...https } });
      expect((await step(`fpa_console_2fa=${token}`)).status).toBe(401);
      expect((await step(`__Host-fpa_console_2fa=${token}`)).status).toBe(200);
    } finally {
      await secure.close();
    }
  });
});
