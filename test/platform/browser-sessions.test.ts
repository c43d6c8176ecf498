/**
 * The administrator check with browser sessions injected (the console's, src/modules/console):
 * the operator token first, then a session (only when the request names no credentials of its
 * own), then the host's check, then a bearer token. A session that refuses the request (CSRF)
 * is final; one that does not know the request lets the others try.
 */
import { describe, expect, test } from 'bun:test';
import { loadSettings } from '../../src/platform/config/settings';
import { FpaError } from '../../src/platform/errors';
import { AdminAuthenticator, type BrowserSessions } from '../../src/platform/http/admin-auth';
import { adminToken, JWT_SECRET } from '../support/harness';

const settings = loadSettings({ ADMIN_JWT_SECRET: JWT_SECRET }, {}).settings;

const sessions: BrowserSessions = {
  async identify(request) {
    const cookie = request.headers.get('cookie') ?? '';
    if (cookie === 'session=good') return { actor: { kind: 'user', id: 'u1' }, by: 'console-user', role: 'owner', areas: [], expiresAt: 1 };
    if (cookie === 'session=no-csrf') throw new FpaError('forbidden', 'csrf', {});
    return null;
  },
  sessionIdOf: (request) => /^session=(.+)$/.exec(request.headers.get('cookie') ?? '')?.[1] ?? null,
};

function authenticator(host?: (r: Request) => { by: string } | null): AdminAuthenticator {
  const auth = new AdminAuthenticator(settings, host);
  auth.browserSessions = sessions;
  return auth;
}

const request = (headers: Record<string, string>) => new Request('http://fpa.test/api/fingerprint/v1/devices/', { method: 'POST', headers });

describe('browser sessions in the administrator check', () => {
  test('a session stands for its actor; an unknown cookie lets the host and bearer checks decide', async () => {
    const auth = authenticator((r) => (r.headers.get('x-host') === 'yes' ? { by: 'host-user' } : null));
    expect((await auth.authenticate(request({ cookie: 'session=good' }))).by).toBe('console-user');
    expect((await auth.authenticate(request({ cookie: 'session=unknown', 'x-host': 'yes' }))).by).toBe('host-user');
    await expect(auth.authenticate(request({ cookie: 'session=unknown' }))).rejects.toMatchObject({ code: 'unauthorized' });
  });

  test('a refusal by the session (no CSRF token) is final', async () => {
    const auth = authenticator(() => ({ by: 'host-user' }));
    await expect(auth.authenticate(request({ cookie: 'session=no-csrf' }))).rejects.toMatchObject({ code: 'forbidden' });
  });

  test('an Authorization header takes the session out of play: the token alone decides', async () => {
    const auth = authenticator();
    const token = await adminToken({ sub: 'jwt-user' });
    expect((await auth.authenticate(request({ cookie: 'session=no-csrf', authorization: `Bearer ${token}` }))).by).toBe('jwt-user');
    await expect(auth.authenticate(request({ cookie: 'session=good', authorization: 'Bearer broken' }))).rejects.toMatchObject({ code: 'unauthorized' });
  });
});
