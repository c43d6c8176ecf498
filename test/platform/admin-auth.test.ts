import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { adminToken, startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let jwks: ReturnType<typeof Bun.serve>;
let rsaToken: (claims?: Record<string, unknown>) => Promise<string>;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwks = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.json({ keys: [jwk] }) });
  // Claims given here win over the defaults (the setters would otherwise overwrite them).
  rsaToken = (claims = {}) =>
    new SignJWT({
      scope: 'fpa:admin other',
      sub: 'idp-user',
      aud: 'fpa',
      iss: 'https://idp.example',
      exp: Math.floor(Date.now() / 1000) + 300,
      ...claims,
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .sign(privateKey);
  server = await startTestServer({
    ADMIN_JWKS_URL: `http://127.0.0.1:${jwks.port}/jwks.json`,
    ADMIN_JWT_AUDIENCE: 'fpa',
    ADMIN_JWT_ISSUER: 'https://idp.example',
  });
});
afterAll(async () => {
  await server.close();
  jwks.stop(true);
});

async function status(token: string | null, path = '/devices/'): Promise<number> {
  const res = await fetch(`${server.url}/api/fingerprint/v1${path}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  return res.status;
}

describe('administrator JWTs', () => {
  test('a JWKS-signed token with the scope, issuer and audience is accepted', async () => {
    expect(await status(await rsaToken())).toBe(200);
  });

  test.each([
    ['no token', async () => null, 401],
    [
      'alg none',
      async () => new UnsecuredJWT({ scope: 'fpa:admin' }).setSubject('x').setExpirationTime('5m').setAudience('fpa').setIssuer('https://idp.example').encode(),
      401,
    ],
    ['no exp', async () => adminToken({ expiresIn: null, audience: 'fpa', issuer: 'https://idp.example' }), 401],
    ['expired', async () => rsaToken({ exp: Math.floor(Date.now() / 1000) - 60 }), 401],
    ['wrong key', async () => adminToken({ secret: 'another-secret-that-is-long-enough-to-be-used', audience: 'fpa', issuer: 'https://idp.example' }), 401],
    ['wrong audience', async () => rsaToken({ aud: 'someone-else' }), 401],
    ['wrong issuer', async () => rsaToken({ iss: 'https://evil.example' }), 401],
    ['missing scope', async () => rsaToken({ scope: 'read' }), 403],
    ['garbage', async () => 'not.a.jwt', 401],
  ])('%s is refused', async (_name, make, expected) => {
    expect(await status(await make())).toBe(expected);
  });

  test('HS256 with the secret works alongside JWKS when issuer and audience match', async () => {
    expect(await status(await adminToken({ audience: 'fpa', issuer: 'https://idp.example' }))).toBe(200);
  });
});
