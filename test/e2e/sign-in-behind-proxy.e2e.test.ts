/**
 * The client address behind a trusted proxy (CONSOLE_TRUST_PROXY=true): the sign-in limit per
 * address counts the entry the proxy appended to X-Forwarded-For (nginx's
 * `$proxy_add_x_forwarded_for` keeps whatever the client sent and appends the peer it saw), never
 * one the client wrote itself: a client can neither lock out someone else's address nor escape
 * the limit by changing what it sends. A last entry that is not an address counts against the
 * socket peer. The second-factor step counts the same address. Without the setting the header is
 * ignored.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Secret, TOTP } from 'otpauth';
import { makeUser, PASSWORD, passwordSignInRaw, sessionClient } from '../support/accounts';
import { startTestServer, type TestServer } from '../support/harness';
import { fetchFrom, SECOND_ADDRESS } from '../support/source-address';

const LIMITS = { CONSOLE_SIGN_IN_LIMIT: '100/15m', CONSOLE_SIGN_IN_ADDRESS_LIMIT: '3/15m' };
const WRONG = 'wrong password!!';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ ...LIMITS, CONSOLE_TRUST_PROXY: true });
});
afterAll(async () => {
  await server.close();
});

/** The header as nginx passes it on: what the client sent, then the peer nginx saw. */
const forwarded = (...hops: string[]) => ({ 'x-forwarded-for': hops.join(', ') });

const signInStatus = async (username: string, password: string, headers: Record<string, string>) =>
  (await passwordSignInRaw(server, username, password, headers)).status;

describe('behind a trusted proxy', () => {
  test('a first entry the client chose locks nobody out: the limit counts the address the proxy appended', async () => {
    await makeUser(server, 'rita', 'viewer');
    const attacker = (i: number) => signInStatus(`nobody-${i}`, WRONG, forwarded('203.0.113.50', '198.51.100.7'));
    for (let i = 0; i < 3; i++) expect(await attacker(i)).toBe(401);
    expect(await attacker(3)).toBe(429);
    // The real person at 203.0.113.50: nginx sends just their address.
    expect(await signInStatus('rita', PASSWORD, forwarded('203.0.113.50'))).toBe(204);
  });

  test('changing the first entry on every request does not escape the limit', async () => {
    for (let i = 0; i < 3; i++) expect(await signInStatus(`spray-${i}`, WRONG, forwarded(`10.0.0.${i}`, '198.51.100.8'))).toBe(401);
    expect(await signInStatus('spray-3', WRONG, forwarded('10.0.0.99', '198.51.100.8'))).toBe(429);
  });

  test('a last entry that is not an address counts against the socket peer', async () => {
    const fromSecond = fetchFrom(SECOND_ADDRESS);
    const post = (username: string, headers: Record<string, string> = {}) =>
      fromSecond(`${server.url}/console/password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.url, ...headers },
        body: JSON.stringify({ username, password: WRONG }),
      });
    const garbage = ['unknown', '198.51.100.9:4711', '999.0.0.1'];
    for (const [i, last] of garbage.entries()) expect((await post(`junk-${i}`, forwarded('198.51.100.9', last))).status).toBe(401);
    // All three were the peer's: it is limited, the address the junk named is not.
    expect((await post('junk-3')).status).toBe(429);
    expect(await signInStatus('junk-4', WRONG, forwarded('198.51.100.9'))).toBe(401);
  });

  test('the second-factor step counts the same address: one client’s wrong codes do not limit another', async () => {
    const codeOf = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();
    const withTotp = async (username: string) => {
      const client = sessionClient(server, (await makeUser(server, username, 'viewer')).session);
      const { secret } = (await client.post('/users/me/totp/', { current_password: PASSWORD })).body as { secret: string };
      expect((await client.post('/users/me/totp/confirm/', { code: codeOf(secret) })).status).toBe(200);
    };
    const step = async (username: string, client: string) => {
      const res = await passwordSignInRaw(server, username, PASSWORD, forwarded(client));
      expect(res.status).toBe(200);
      const pending = res.headers.getSetCookie().find((c) => c.startsWith('fpa_console_2fa=')) ?? '';
      return (code: string) =>
        fetch(`${server.url}/console/sign-in/second-factor`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: server.url, cookie: pending.split(';')[0] ?? '', ...forwarded(client) },
          body: JSON.stringify({ code }),
        });
    };
    await withTotp('tara');
    await withTotp('theo');
    const tara = await step('tara', '198.51.100.20');
    for (let i = 0; i < 3; i++) expect((await tara('000000')).status).toBe(401);
    expect((await tara('000000')).status).toBe(429);
    // Theo comes through the same proxy from elsewhere: his code is checked (a wrong one 401, not 429).
    const theo = await step('theo', '198.51.100.21');
    expect((await theo('000001')).status).toBe(401);
  });
});

describe('without CONSOLE_TRUST_PROXY', () => {
  test('X-Forwarded-For is ignored: every failure counts against the socket peer', async () => {
    const direct = await startTestServer(LIMITS);
    try {
      const status = async (i: number) => (await passwordSignInRaw(direct, `nobody-${i}`, WRONG, forwarded(`198.51.100.${i}`))).status;
      for (let i = 0; i < 3; i++) expect(await status(i)).toBe(401);
      expect(await status(3)).toBe(429);
    } finally {
      await direct.close();
    }
  });
});
