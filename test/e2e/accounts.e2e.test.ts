/**
 * People who sign in (API.md "People who sign in"): an invite link sets a password and signs in;
 * a user's session acts with the user's current role and areas; admins cannot touch owners; the
 * last owner stays; disabling or removing a user ends sessions and API keys at once; a reset
 * link replaces the password; invite links expire; failed sign-ins are limited (429).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { completeInviteRaw, inviteToken, makeUser, PASSWORD, passwordSignIn, passwordSignInRaw, sessionClient } from '../support/accounts';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let now = Date.now();
const clock = { now: () => now };

beforeAll(async () => {
  server = await startTestServer({ USER_INVITE_TTL: '1d', CONSOLE_SIGN_IN_LIMIT: '3/10m', CONSOLE_SIGN_IN_ADDRESS_LIMIT: '100/10m' }, { clock });
  for (const name of ['north', 'south']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

describe('invites and password sign-in', () => {
  test('an invite is shown once, completes with a password of 12+ characters, and signs in; the password then signs in too', async () => {
    const created = await server.admin.post('/users/', { name: 'Grace Hopper', username: 'Grace', email: 'grace@example.com', role: 'hr', areas: ['north'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      username: 'Grace',
      role: 'hr',
      areas: ['north'],
      status: 'invited',
      second_factor: 'none',
      created_by: 'admin@example.com',
    });
    expect(created.body.invite_url).toStartWith(`${server.url}/console/#/invite/fpi_`);
    const listed = await server.admin.get(`/users/${created.body.id}/`);
    expect(listed.body.invite_url).toBeUndefined();

    const token = inviteToken(created.body.invite_url);
    expect((await completeInviteRaw(server, token, 'too short')).status).toBe(400);
    const done = await completeInviteRaw(server, token, PASSWORD);
    expect(done.status).toBe(204);
    expect(done.headers.get('set-cookie')).toMatch(/^fpa_console=/);
    // Once only.
    expect((await completeInviteRaw(server, token, PASSWORD)).status).toBe(404);

    const session = await passwordSignIn(server, 'grace');
    const me = await sessionClient(server, session).get('/users/me/');
    expect(me.body).toMatchObject({ kind: 'user', id: created.body.id, username: 'Grace', role: 'hr', areas: ['north'], second_factor: 'none' });
    expect((await server.admin.get(`/users/${created.body.id}/`)).body.status).toBe('active');
  });

  test('usernames are unique whatever the case; an unknown area is 422; no area is created', async () => {
    await makeUser(server, 'Linus', 'viewer');
    expect((await server.admin.post('/users/', { name: 'x', username: 'LINUS', role: 'viewer' })).status).toBe(409);
    const unknown = await server.admin.post('/users/', { name: 'x', username: 'xavier', role: 'viewer', areas: ['nowhere'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe('unknown_area');
    expect((await server.admin.get('/areas/nowhere/')).status).toBe(404);
  });

  test('a role change applies to a signed-in user at once', async () => {
    const { id, session } = await makeUser(server, 'marie', 'viewer', { areas: ['south'] });
    const client = sessionClient(server, session);
    expect((await client.get('/users/me/')).body.role).toBe('viewer');
    expect((await server.admin.patch(`/users/${id}/`, { role: 'manager', areas: ['north', 'south'] })).status).toBe(200);
    expect((await client.get('/users/me/')).body).toMatchObject({ role: 'manager', areas: ['north', 'south'] });
  });

  test('an area with people in it cannot be deleted', async () => {
    const refused = await server.admin.delete('/areas/south/');
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.usage.users).toBeGreaterThanOrEqual(1);
  });

  test('an invite link expires after USER_INVITE_TTL', async () => {
    const created = await server.admin.post('/users/', { name: 'Late', username: 'late', role: 'viewer' });
    now += 25 * 3_600_000;
    try {
      expect((await completeInviteRaw(server, inviteToken(created.body.invite_url), PASSWORD)).status).toBe(404);
    } finally {
      now -= 25 * 3_600_000;
    }
  });

  test('wrong passwords until 429 with Retry-After, per username; unknown usernames answer the same 401', async () => {
    await makeUser(server, 'tim', 'viewer');
    const unknown = await passwordSignInRaw(server, 'nobody-here', 'wrong password!!');
    expect(unknown.status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await passwordSignInRaw(server, 'tim', 'wrong password!!')).status).toBe(401);
    const limited = await passwordSignInRaw(server, 'tim', PASSWORD);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    now += 11 * 60_000;
    expect((await passwordSignInRaw(server, 'tim', PASSWORD)).status).toBe(204);
  });

  test('the window starts at the first failure: failures either side of a ten-minute mark count together, and a new window starts fresh', async () => {
    await makeUser(server, 'tess', 'viewer');
    const tenMinutes = 600_000;
    now = Math.ceil(now / tenMinutes) * tenMinutes - 1_000;
    for (let i = 0; i < 2; i++) expect((await passwordSignInRaw(server, 'tess', 'wrong password!!')).status).toBe(401);
    now += 2_000;
    expect((await passwordSignInRaw(server, 'tess', 'wrong password!!')).status).toBe(401);
    const limited = await passwordSignInRaw(server, 'tess', PASSWORD);
    expect(limited.status).toBe(429);
    // The window opened at the first failure, 2 s ago: the rest of its ten minutes.
    expect(Number(limited.headers.get('retry-after'))).toBe(598);
    now += tenMinutes;
    // The window has ended: one more failure opens a new one, counted from one.
    expect((await passwordSignInRaw(server, 'tess', 'wrong password!!')).status).toBe(401);
    expect((await passwordSignInRaw(server, 'tess', PASSWORD)).status).toBe(204);
  });
});

describe('the sign-in limit across instances', () => {
  test('failures counted by one instance count on another sharing the database', async () => {
    await makeUser(server, 'sam', 'viewer');
    const second = await startTestServer(
      { USER_INVITE_TTL: '1d', CONSOLE_SIGN_IN_LIMIT: '3/10m', CONSOLE_SIGN_IN_ADDRESS_LIMIT: '100/10m' },
      { clock, db: server.fpa.db, dir: server.dir },
    );
    try {
      expect((await passwordSignInRaw(server, 'sam', 'wrong password!!')).status).toBe(401);
      expect((await passwordSignInRaw(second, 'sam', 'wrong password!!')).status).toBe(401);
      expect((await passwordSignInRaw(server, 'sam', 'wrong password!!')).status).toBe(401);
      expect((await passwordSignInRaw(second, 'sam', PASSWORD)).status).toBe(429);
      expect((await passwordSignInRaw(server, 'sam', PASSWORD)).status).toBe(429);
    } finally {
      await second.stop();
    }
  });
});

describe('the audit log names the actor', () => {
  test('a change made in a user session is recorded with kind user and the user id', async () => {
    const { id, session } = await makeUser(server, 'auditor', 'admin');
    const client = sessionClient(server, session);
    expect((await client.post('/areas/', { name: 'east' })).status).toBe(201);
    const log = await server.admin.get(`/audit-log/?actor_kind=user&actor_id=${id}&action=area.created`);
    expect(log.body.results[0]).toMatchObject({ actor: 'auditor', actor_kind: 'user', actor_id: id, target_id: 'east' });
  });

  test('whoever else is writing meanwhile: each change names its own caller', async () => {
    const { id, session } = await makeUser(server, 'busy-auditor', 'admin');
    const client = sessionClient(server, session);
    // Writes of the process itself (a terminal's first contact, what follows from it) and of
    // another caller keep the writer busy while this user's changes queue behind them.
    await server.fpa.service.devices.registration.touch('AUDIT-BUSY-1');
    const made = await Promise.all([
      ...['west', 'north-west'].map((name) => client.post('/areas/', { name })),
      server.admin.post('/areas/', { name: 'south-west' }),
    ]);
    expect(made.map((r) => r.status)).toEqual([201, 201, 201]);
    const log = (await server.admin.get('/audit-log/?action=area.created&limit=100')).body.results as Record<string, unknown>[];
    for (const name of ['west', 'north-west']) {
      expect(log.find((r) => r.target_id === name)).toMatchObject({ actor: 'busy-auditor', actor_kind: 'user', actor_id: id });
    }
    expect(log.find((r) => r.target_id === 'south-west')).toMatchObject({ actor_kind: 'token', actor_id: 'admin@example.com' });
  });
});
