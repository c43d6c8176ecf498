/**
 * Invite and reset links open at CONSOLE_URL, or at the address the server listens on: never at
 * the request's `Host` header, which anyone sends as they like (a link to their own site, handed
 * to the person invited, would take the password they choose there).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { adminToken, startTestServer, type TestServer } from '../support/harness';

let plain: TestServer;
let behindProxy: TestServer;

beforeAll(async () => {
  plain = await startTestServer();
  behindProxy = await startTestServer({ CONSOLE_URL: 'https://attendance.example.com/console/' });
});
afterAll(async () => {
  await plain.close();
  await behindProxy.close();
});

/** A request to `server` whose `Host` header names another site. */
async function asIfAt(
  server: TestServer,
  path: string,
  body: unknown,
  host = 'evil.example',
): Promise<{ status: number; body: { id: string; invite_url: string } }> {
  const res = await fetch(`${server.url}/api/fingerprint/v1${path}`, {
    method: 'POST',
    headers: {
      host,
      authorization: `Bearer ${await adminToken()}`,
      'content-type': 'application/json',
      'x-forwarded-host': host,
      'x-forwarded-proto': 'https',
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { id: string; invite_url: string } };
}

describe('where an invite link opens', () => {
  test('without CONSOLE_URL: at the address the server listens on, whatever the Host header', async () => {
    const invited = await asIfAt(plain, '/users/', { name: 'Hal Host', username: 'hal', role: 'viewer' });
    expect(invited.status).toBe(201);
    expect(invited.body.invite_url).toStartWith(`${plain.url}/console/#/invite/fpi_`);
    const reset = await asIfAt(plain, `/users/${invited.body.id}/reset/`, {});
    expect(reset.status).toBeLessThan(300);
    expect(reset.body.invite_url).toStartWith(`${plain.url}/console/#/invite/fpi_`);
  });

  test('with CONSOLE_URL: at it, whatever the Host header', async () => {
    const invited = await asIfAt(behindProxy, '/users/', { name: 'Pia Proxy', username: 'pia', role: 'viewer' });
    expect(invited.status).toBe(201);
    expect(invited.body.invite_url).toStartWith('https://attendance.example.com/console/#/invite/fpi_');
    const reset = await asIfAt(behindProxy, `/users/${invited.body.id}/reset/`, {});
    expect(reset.body.invite_url).toStartWith('https://attendance.example.com/console/#/invite/fpi_');
  });
});
