/**
 * A password needs at least 12 characters other than spaces, wherever one is set: twelve spaces
 * (or a short word padded with them) pass a length check and guard nothing. Refused with 422
 * `weak_password` naming the field, before the link is spent; spaces inside a long password are
 * fine and kept as typed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { completeInviteRaw, inviteToken, makeUser, PASSWORD, passwordSignInRaw, sessionClient } from '../support/accounts';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

async function refusal(res: Response): Promise<{ code: string; details: Record<string, unknown> }> {
  expect(res.status).toBe(422);
  return ((await res.json()) as { error: { code: string; details: Record<string, unknown> } }).error;
}

describe('a password of spaces', () => {
  test('an invite is completed with a real password, not with twelve spaces or a padded short one', async () => {
    const created = await server.admin.post('/users/', { name: 'Ida Space', username: 'ida', role: 'viewer' });
    expect(created.status).toBe(201);
    const token = inviteToken(created.body.invite_url);
    expect(await refusal(await completeInviteRaw(server, token, ' '.repeat(12)))).toMatchObject({
      code: 'weak_password',
      details: { field: 'password', reason: 'blank', min: 12 },
    });
    expect(await refusal(await completeInviteRaw(server, token, ` abc${' '.repeat(9)}`))).toMatchObject({
      code: 'weak_password',
      details: { field: 'password', reason: 'too_few_characters', min: 12 },
    });
    // The link is not spent by a refusal; a long password with spaces inside is taken as typed.
    expect((await completeInviteRaw(server, token, PASSWORD)).status).toBe(204);
    expect((await passwordSignInRaw(server, 'ida', PASSWORD)).status).toBe(204);
    expect((await passwordSignInRaw(server, 'ida', PASSWORD.replaceAll(' ', ''))).status).toBe(401);
  });

  test('a reset link refuses it too', async () => {
    const { id } = await makeUser(server, 'rex', 'viewer');
    const reset = await server.admin.post(`/users/${id}/reset/`, {});
    expect(reset.status).toBeLessThan(300);
    const token = inviteToken(reset.body.invite_url);
    expect((await refusal(await completeInviteRaw(server, token, ' '.repeat(20)))).details).toMatchObject({ field: 'password' });
    expect((await completeInviteRaw(server, token, 'another long pass phrase')).status).toBe(204);
  });

  test('a password change refuses it, naming new_password, and keeps the old one', async () => {
    const { session } = await makeUser(server, 'cam', 'viewer');
    const client = sessionClient(server, session);
    const refused = await client.post('/users/me/password/', { current_password: PASSWORD, new_password: ' '.repeat(16) });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'weak_password', details: { field: 'new_password', reason: 'blank' } });
    expect((await passwordSignInRaw(server, 'cam', PASSWORD)).status).toBe(204);
  });
});
