/**
 * The account rules and the session fixes of issue 25: an admin cannot create, change, reset or
 * delete an owner, nor make one, nor mint an owner key; the last owner cannot be removed, disabled
 * or demoted; disabling or removing a user ends their sessions and API keys at once; a reset link
 * replaces the password and ends sessions; API keys work, record their last use and stop when
 * revoked; a console link lives no longer than the token that minted it and is only for the
 * caller; an idle timeout under a minute does not end a session in use; over HTTPS only the
 * `__Host-` cookie counts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { completeInvite, completeInviteRaw, inviteToken, makeUser, PASSWORD, passwordSignInRaw, sessionClient } from '../support/accounts';
import { linkToken, signInOverHttp } from '../support/console';
import { ApiClient, adminToken, startTestServer, type TestServer } from '../support/harness';

const API = '/api/fingerprint/v1';
let server: TestServer;
let now = Date.now();
const clock = { now: () => now };
let owner: { id: string; session: { cookie: string; csrf: string } };
let admin: ApiClient;
let adminId: string;

beforeAll(async () => {
  server = await startTestServer({ CONSOLE_SESSION_IDLE_TIMEOUT: '20s', CONSOLE_TRUST_PROXY: true }, { clock });
  expect((await server.admin.post('/areas/', { name: 'north' })).status).toBe(201);
  owner = await makeUser(server, 'olive', 'owner');
  const made = await makeUser(server, 'adam', 'admin');
  adminId = made.id;
  admin = sessionClient(server, made.session);
});
afterAll(async () => {
  await server.close();
});

const bearer = (key: string) => new ApiClient(`${server.url}${API}`, { authorization: `Bearer ${key}` });

describe('admins and owners', () => {
  test('an admin can neither make an owner nor change, reset, disable or delete one, nor mint an owner key', async () => {
    const made = await admin.post('/users/', { name: 'O2', username: 'o2', role: 'owner' });
    expect(made.status).toBe(403);
    expect(made.body.error.code).toBe('forbidden');
    expect((await admin.patch(`/users/${owner.id}/`, { role: 'viewer' })).status).toBe(403);
    expect((await admin.patch(`/users/${owner.id}/`, { disabled: true })).status).toBe(403);
    expect((await admin.post(`/users/${owner.id}/reset/`)).status).toBe(403);
    expect((await admin.delete(`/users/${owner.id}/`)).status).toBe(403);
    const viewer = await admin.post('/users/', { name: 'V', username: 'vera', role: 'viewer' });
    expect(viewer.status).toBe(201);
    expect((await admin.patch(`/users/${viewer.body.id}/`, { role: 'owner' })).status).toBe(403);
    expect((await admin.post('/api-keys/', { name: 'too much', role: 'owner' })).status).toBe(403);
    // Nothing changed the owner.
    expect((await server.admin.get(`/users/${owner.id}/`)).body).toMatchObject({ role: 'owner', disabled: false, status: 'active' });
  });

  test('an owner can make an owner; the last owner cannot be demoted, disabled or removed', async () => {
    const ownerClient = sessionClient(server, owner.session);
    const lone = await ownerClient.patch(`/users/${owner.id}/`, { role: 'admin' });
    expect(lone.status).toBe(409);
    expect(lone.body.error.details.reason).toBe('last_owner');
    expect((await ownerClient.patch(`/users/${owner.id}/`, { disabled: true })).status).toBe(409);
    expect((await ownerClient.delete(`/users/${owner.id}/`)).status).toBe(409);
    const second = await ownerClient.post('/users/', { name: 'Second', username: 'second-owner', role: 'owner' });
    expect(second.status).toBe(201);
    // With another owner (not disabled) the first may step down.
    expect((await ownerClient.delete(`/users/${second.body.id}/`)).status).toBe(204);
  });
});

describe('disable, remove, reset', () => {
  test('disabling a user ends their sessions and revokes their API keys at once; enabling does not bring keys back', async () => {
    // API keys are made by owners and admins (the roles' policy).
    const { id, session } = await makeUser(server, 'dora', 'admin');
    const client = sessionClient(server, session);
    const key = await client.post('/api-keys/', { name: 'dora payroll', role: 'viewer' });
    expect(key.status).toBe(201);
    expect((await bearer(key.body.key).get('/users/me/')).status).toBe(200);
    const disabled = await admin.patch(`/users/${id}/`, { disabled: true });
    expect(disabled.body).toMatchObject({ disabled: true, status: 'disabled' });
    expect((await client.get('/users/me/')).status).toBe(401);
    expect((await bearer(key.body.key).get('/users/me/')).status).toBe(401);
    expect((await passwordSignInRaw(server, 'dora', PASSWORD)).status).toBe(401);
    const audit = await server.admin.get(`/audit-log/?action=user.disabled`);
    expect(audit.body.results[0]).toMatchObject({ actor: 'adam', actor_kind: 'user', actor_id: adminId, target_id: id });
    expect(audit.body.results[0].details).toMatchObject({ sessions_ended: 1, api_keys_revoked: 1 });
    await admin.patch(`/users/${id}/`, { disabled: false });
    expect((await bearer(key.body.key).get('/users/me/')).status).toBe(401);
    expect((await passwordSignInRaw(server, 'dora', PASSWORD)).status).toBe(204);
  });

  test('removing a user ends their sessions and keys; the username is free again', async () => {
    const { id, session } = await makeUser(server, 'rex', 'viewer');
    const key = await sessionClient(server, session).post('/api-keys/', { name: 'rex', role: 'viewer' });
    expect((await admin.delete(`/users/${id}/`)).status).toBe(204);
    expect((await sessionClient(server, session).get('/users/me/')).status).toBe(401);
    expect((await bearer(key.body.key).get('/users/me/')).status).toBe(401);
    expect((await admin.get(`/users/${id}/`)).status).toBe(404);
    expect((await admin.post('/users/', { name: 'Rex II', username: 'REX', role: 'viewer' })).status).toBe(201);
  });

  test('a reset ends sessions and the old password; its link (once) sets a new one; an older link stops working', async () => {
    const created = await admin.post('/users/', { name: 'Paula', username: 'paula', role: 'hr' });
    const first = created.body.invite_url as string;
    const session = await completeInvite(server, first);
    const reset = await admin.post(`/users/${created.body.id}/reset/`);
    expect(reset.status).toBe(200);
    expect(reset.body.invite_url).toContain('/console/#/invite/fpi_');
    expect(reset.body.user.status).toBe('invited');
    expect((await sessionClient(server, session).get('/users/me/')).status).toBe(401);
    expect((await passwordSignInRaw(server, 'paula', PASSWORD)).status).toBe(401);
    const second = await admin.post(`/users/${created.body.id}/reset/`);
    expect((await completeInviteRaw(server, inviteToken(reset.body.invite_url), 'another long password')).status).toBe(404);
    expect((await completeInviteRaw(server, inviteToken(second.body.invite_url), 'another long password')).status).toBe(204);
    expect((await passwordSignInRaw(server, 'paula', 'another long password')).status).toBe(204);
  });

  test('a reset link spent lifts a lockout of wrong passwords: the new password signs in at once', async () => {
    const created = await admin.post('/users/', { name: 'Lou', username: 'lou', role: 'viewer' });
    await completeInvite(server, created.body.invite_url);
    let locked = 0;
    for (let i = 0; i < 12 && locked === 0; i++) if ((await passwordSignInRaw(server, 'lou', `wrong password ${i}`)).status === 429) locked = i;
    expect(locked).toBeGreaterThan(0);
    expect((await passwordSignInRaw(server, 'lou', PASSWORD)).status).toBe(429);
    const reset = await admin.post(`/users/${created.body.id}/reset/`);
    expect((await completeInviteRaw(server, inviteToken(reset.body.invite_url), 'a brand new long password')).status).toBe(204);
    expect((await passwordSignInRaw(server, 'lou', 'a brand new long password')).status).toBe(204);
  });

  test('an admin limited to north sees an account of north and south, and changes, resets or removes it not (its link would hand over south)', async () => {
    expect((await server.admin.post('/areas/', { name: 'south' })).status).toBe(201);
    const both = await server.admin.post('/users/', { name: 'Bea Both', username: 'bea', role: 'admin', areas: ['north', 'south'] });
    const northOnly = await server.admin.post('/users/', { name: 'Nils North', username: 'nils', role: 'hr', areas: ['north'] });
    const limited = bearer(await adminToken({ sub: 'north.admin@example.com', role: 'admin', areas: ['north'] }));
    expect((await limited.get(`/users/${both.body.id}/`)).body).toMatchObject({ username: 'bea', areas: ['north', 'south'] });
    for (const refused of [
      await limited.post(`/users/${both.body.id}/reset/`),
      await limited.patch(`/users/${both.body.id}/`, { areas: ['north'] }),
      await limited.patch(`/users/${both.body.id}/`, { disabled: true }),
      await limited.delete(`/users/${both.body.id}/`),
    ]) {
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden', details: { outside: ['south'] } });
    }
    expect((await server.admin.get(`/users/${both.body.id}/`)).body).toMatchObject({ areas: ['north', 'south'], disabled: false });
    // An account wholly in north is its own to change.
    expect((await limited.post(`/users/${northOnly.body.id}/reset/`)).status).toBe(200);
    expect((await limited.patch(`/users/${northOnly.body.id}/`, { name: 'Nils N.' })).status).toBe(200);
  });
});

describe('API keys', () => {
  test('a key is shown once, acts with its role and areas, records its last use (throttled) and stops when revoked', async () => {
    const created = await admin.post('/api-keys/', { name: 'payroll', role: 'hr', areas: ['north'] });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^fpa_key_[A-Za-z0-9_-]{43}$/);
    const client = bearer(created.body.key);
    const me = await client.get('/users/me/');
    expect(me.body).toMatchObject({ kind: 'api_key', id: created.body.id, role: 'hr', areas: ['north'] });
    const listed = (await admin.get('/api-keys/')).body.results.find((k: { id: string }) => k.id === created.body.id);
    expect(listed.key).toBeUndefined();
    expect(listed.status).toBe('active');
    // Only a keyed hash is stored.
    const rows = await server.fpa.db.client.execute('select digest from fpa_api_keys');
    for (const row of rows.rows) expect(String(row.digest)).toMatch(/^hmac1:[^:]+:[0-9a-f]{64}$/);
    expect(JSON.stringify(rows.rows)).not.toContain(created.body.key.slice(8));
    // A change made with the key (hr may enroll people) is audited as the key.
    expect((await admin.post('/employees/', { id: 'E-key-made', name: 'Made by a key' })).status).toBe(201);
    expect((await client.post('/enrollees/', { employee: 'E-key-made' })).status).toBe(201);
    const audit = await server.admin.get('/audit-log/?action=enrollee.created&actor_kind=api_key');
    expect(audit.body.results[0]).toMatchObject({ actor: 'api-key:payroll', actor_id: created.body.id });
    await Bun.sleep(50);
    const used = (await admin.get('/api-keys/')).body.results.find((k: { id: string }) => k.id === created.body.id);
    expect(used.last_used_at).not.toBeNull();
    expect((await admin.delete(`/api-keys/${created.body.id}/`)).status).toBe(204);
    expect((await client.get('/users/me/')).status).toBe(401);
  });

  test('a key is never more than its maker: demoted or moved, they lose the keys they could no longer make', async () => {
    const amy = await makeUser(server, 'amy', 'admin', { areas: ['north', 'south'] });
    const amyClient = sessionClient(server, amy.session);
    const made = async (name: string, role: string, areas: string[]) => {
      const res = await amyClient.post('/api-keys/', { name, role, areas });
      expect(res.status).toBe(201);
      return bearer(res.body.key);
    };
    const southAdmin = await made('south-admin', 'admin', ['south']);
    const northViewer = await made('north-viewer', 'viewer', ['north']);
    const northHr = await made('north-hr', 'hr', ['north']);
    // Moved to north only: the south key goes, the north ones stay.
    expect((await server.admin.patch(`/users/${amy.id}/`, { areas: ['north'] })).body).toMatchObject({ areas: ['north'] });
    expect((await southAdmin.get('/users/me/')).status).toBe(401);
    expect((await northViewer.get('/users/me/')).body).toMatchObject({ role: 'viewer', areas: ['north'] });
    // Demoted to a role that makes no keys: every key goes (it could give her admin rights back).
    expect((await server.admin.patch(`/users/${amy.id}/`, { role: 'viewer' })).status).toBe(200);
    expect((await northViewer.get('/users/me/')).status).toBe(401);
    expect((await northHr.post('/users/', { name: 'Sneaky', username: 'sneaky', role: 'admin' })).status).toBe(401);
    const audit = await server.admin.get('/audit-log/?action=user.updated');
    expect(
      audit.body.results.find((r: { target_id: string; details: { role?: { to: string } } }) => r.target_id === amy.id && r.details.role?.to === 'viewer')
        .details,
    ).toMatchObject({
      api_keys_revoked: 2,
    });
  });

  test('a change of role or areas is audited with what it was: { from, to }, as a schedule change is', async () => {
    const ben = await makeUser(server, 'ben', 'hr', { areas: ['north'] });
    expect((await server.admin.patch(`/users/${ben.id}/`, { role: 'admin' })).status).toBe(200);
    expect((await server.admin.patch(`/users/${ben.id}/`, { areas: ['north', 'south'], name: 'Ben Ek' })).status).toBe(200);
    // Sent with the values it has: no change to record.
    expect((await server.admin.patch(`/users/${ben.id}/`, { role: 'admin', areas: ['south', 'north'] })).status).toBe(200);
    const entries = (await server.admin.get(`/audit-log/?action=user.updated&target=${ben.id}`)).body.results as { details: Record<string, unknown> }[];
    expect(entries.map((e) => e.details).reverse()).toEqual([
      { username: 'ben', role: { from: 'hr', to: 'admin' }, api_keys_revoked: 0 },
      { username: 'ben', name: { from: 'ben', to: 'Ben Ek' }, areas: { from: ['north'], to: ['north', 'south'] }, api_keys_revoked: 0 },
      { username: 'ben', api_keys_revoked: 0 },
    ]);
  });

  test('a key made with a key ends with the same user: demoted or disabled, the whole chain goes, so no key gives them admin back', async () => {
    const eve = await makeUser(server, 'eve', 'admin');
    const first = await sessionClient(server, eve.session).post('/api-keys/', { name: 'eve-1', role: 'admin' });
    expect(first.status).toBe(201);
    const second = await bearer(first.body.key).post('/api-keys/', { name: 'eve-2', role: 'admin' });
    expect(second.status).toBe(201);
    const third = await bearer(second.body.key).post('/api-keys/', { name: 'eve-3', role: 'hr' });
    expect(third.status).toBe(201);
    // Her keys are listed as hers, the chained ones too.
    const listed = await sessionClient(server, eve.session).get('/api-keys/');
    expect(listed.body.results.map((k: { name: string }) => k.name)).toEqual(expect.arrayContaining(['eve-1', 'eve-2', 'eve-3']));
    expect((await server.admin.patch(`/users/${eve.id}/`, { role: 'viewer' })).status).toBe(200);
    for (const key of [first, second, third]) expect((await bearer(key.body.key).get('/users/me/')).status).toBe(401);
    expect((await bearer(second.body.key).patch(`/users/${eve.id}/`, { role: 'admin' })).status).toBe(401);
    // Disabled: the same.
    const dee = await makeUser(server, 'dee', 'admin');
    const dee1 = await sessionClient(server, dee.session).post('/api-keys/', { name: 'dee-1', role: 'admin' });
    const dee2 = await bearer(dee1.body.key).post('/api-keys/', { name: 'dee-2', role: 'viewer' });
    expect(dee2.status).toBe(201);
    expect((await admin.patch(`/users/${dee.id}/`, { disabled: true })).status).toBe(200);
    expect((await bearer(dee2.body.key).get('/users/me/')).status).toBe(401);
    const audit = await server.admin.get('/audit-log/?action=user.disabled');
    expect(audit.body.results.find((r: { target_id: string }) => r.target_id === dee.id).details).toMatchObject({ api_keys_revoked: 2 });
  });

  test('a key asked for while its maker is being demoted: the demotion committed first wins, no key outlives it', async () => {
    const ivy = await makeUser(server, 'ivy', 'admin');
    const first = await sessionClient(server, ivy.session).post('/api-keys/', { name: 'ivy-1', role: 'admin' });
    expect(first.status).toBe(201);
    // The writer held, the demotion queues first, then the key (already let in as an admin's).
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const held = server.fpa.db.write(() => gate);
    const demoted = server.admin.patch(`/users/${ivy.id}/`, { role: 'viewer' });
    await Bun.sleep(100);
    const made = bearer(first.body.key).post('/api-keys/', { name: 'ivy-2', role: 'admin' });
    await Bun.sleep(100);
    open();
    await held;
    expect((await demoted).status).toBe(200);
    const late = await made;
    expect(late.status).toBe(401);
    const keys = await server.admin.get('/api-keys/?limit=1000');
    expect(keys.body.results.filter((k: { name: string; status: string }) => k.name.startsWith('ivy-') && k.status === 'active')).toEqual([]);
  });

  test('an expired key is refused; an unknown area is 422', async () => {
    const created = await admin.post('/api-keys/', { name: 'short', role: 'viewer', expires_at: new Date(now + 60_000).toISOString() });
    expect((await bearer(created.body.key).get('/users/me/')).status).toBe(200);
    now += 61_000;
    try {
      expect((await bearer(created.body.key).get('/users/me/')).status).toBe(401);
    } finally {
      now -= 61_000;
    }
    expect((await admin.post('/api-keys/', { name: 'x', role: 'viewer', areas: ['atlantis'] })).status).toBe(422);
  });
});

describe('sessions', () => {
  test('a console link minted with a token that expires in 15 s opens a session that ends with the token', async () => {
    now = Date.now();
    const short = new ApiClient(`${server.url}${API}`, { authorization: `Bearer ${await adminToken({ sub: 'brief', expiresIn: '15s' })}` });
    expect((await short.post('/console-links/', { actor: 'somebody-else' })).status).toBe(403);
    const link = await short.post('/console-links/', {});
    expect(link.status).toBe(201);
    expect(Date.parse(link.body.expires_at)).toBeLessThanOrEqual(Date.now() + 16_000);
    expect(link.body.sign_in_path).toMatch(/^\/console\/sign-in#token=fpc_[A-Za-z0-9_-]{43}$/);
    const token = linkToken(`${server.url}${link.body.sign_in_path}`);
    const res = await fetch(`${server.url}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(res.status).toBe(303);
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect(Number(/Max-Age=(\d+)/.exec(res.headers.get('set-cookie') ?? '')?.[1])).toBeLessThanOrEqual(15);
    const session = await fetch(`${server.url}/console/session`, { headers: { cookie } });
    expect(Date.parse(((await session.json()) as { expires_at: string }).expires_at)).toBeLessThanOrEqual(Date.now() + 16_000);
    now += 16_000;
    try {
      expect((await fetch(`${server.url}/console/session`, { headers: { cookie } })).status).toBe(401);
    } finally {
      now -= 16_000;
    }
  });

  test('a link minted by a user who has been disabled since signs nobody in: 410, no cookie, and the link is not spent', async () => {
    now = Date.now();
    const oscar = await makeUser(server, 'oscar', 'owner');
    const link = await sessionClient(server, oscar.session).post('/console-links/', {});
    expect(link.status).toBe(201);
    const token = linkToken(`${server.url}${link.body.sign_in_path}`);
    expect((await server.admin.patch(`/users/${oscar.id}/`, { disabled: true })).status).toBe(200);

    const check = await fetch(`${server.url}/console/sign-in/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(check.status).toBe(404);
    const refused = await fetch(`${server.url}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(refused.status).toBe(410);
    expect(refused.headers.get('set-cookie')).toBeNull();
    expect(await refused.text()).toContain('This sign-in link is no longer valid');
    const hash = createHash('sha256').update(token, 'utf8').digest('hex');
    const row = await server.fpa.db.client.execute({ sql: 'SELECT used_at FROM fpa_console_links WHERE token_hash = ?', args: [hash] });
    expect(row.rows[0]?.used_at).toBeNull();
    const signedIn = await server.admin.get('/audit-log/?action=console_signed_in&actor=oscar');
    // Oscar signed in once, by his invite; never by the link.
    expect(signedIn.body.results.map((e: { details: { by: string } }) => e.details.by)).toEqual(['invite']);
  });

  test('an API key cannot mint a console link', async () => {
    const key = await admin.post('/api-keys/', { name: 'no console', role: 'admin' });
    expect((await bearer(key.body.key).post('/console-links/', {})).status).toBe(403);
  });

  test('an idle timeout of 20 s does not end a session used every 10 s', async () => {
    const { session } = await makeUser(server, 'ivan', 'viewer');
    const client = sessionClient(server, session);
    for (let i = 0; i < 8; i++) {
      now += 10_000;
      expect((await client.get('/users/me/')).status).toBe(200);
    }
    now += 21_000;
    expect((await client.get('/users/me/')).status).toBe(401);
  });

  test('over HTTPS only the __Host- cookie is accepted', async () => {
    const https = { 'x-forwarded-proto': 'https' };
    const res = await passwordSignInRaw(server, 'adam', PASSWORD, https);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^__Host-fpa_console=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/);
    const id = /=([^;]+)/.exec(setCookie)![1];
    expect((await fetch(`${server.url}/console/session`, { headers: { ...https, cookie: `__Host-fpa_console=${id}` } })).status).toBe(200);
    expect((await fetch(`${server.url}/console/session`, { headers: { ...https, cookie: `fpa_console=${id}` } })).status).toBe(401);
    // Over plain HTTP a link session's plain cookie still works.
    const plain = await signInOverHttp(server);
    expect((await fetch(`${server.url}/console/session`, { headers: { cookie: plain.cookie } })).status).toBe(200);
  });
});
