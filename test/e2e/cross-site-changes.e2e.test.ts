/**
 * A change another site asks for is refused when only what a browser sends by itself vouches for
 * it (README "Security"). A host that signs administrators in with its own cookie
 * (`authorizeAdmin`) had every state-changing route open to a form posted from any site: the
 * browser attaches the host's cookie, and routes without a body (disable a terminal, run a job)
 * need no JSON. Such a request is now 403 when it says it comes from elsewhere
 * (`Sec-Fetch-Site: cross-site`, or an `Origin` that is not this service's own); the service's
 * own pages, scripts without those headers, bearer tokens and API keys work as before.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { HostIdentity } from '../../src/platform/http/admin-auth';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { makeUser, PASSWORD, passwordSignIn, passwordSignInRaw } from '../support/accounts';
import { adminToken, startTestServer, type TestServer } from '../support/harness';
import { openSocket } from '../support/sockets';
import { drain } from '../support/terminals';

const SERIAL = 'CSRFTEST01';
const HOST_COOKIE = 'host_session=alice';
const hostSignIn = (req: Request): HostIdentity | null => (req.headers.get('cookie')?.includes(HOST_COOKIE) ? { by: 'alice@host' } : null);
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let server: TestServer;
let terminal: SimulatedTerminal;

/** A POST with no body, as a form without fields that another site posts, with the host’s cookie a browser attaches. */
async function post(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: { error?: { code: string; message: string; details: unknown } } }> {
  const res = await fetch(`${server.url}/api/fingerprint/v1${path}`, { method: 'POST', headers: { cookie: HOST_COOKIE, ...FORM, ...headers } });
  return { status: res.status, body: await res.json() };
}

const statusOfTerminal = async () => (await server.admin.get(`/devices/${SERIAL}/`)).body.status as string;

beforeAll(async () => {
  server = await startTestServer({}, { authorizeAdmin: hostSignIn });
  terminal = new SimulatedTerminal({ url: server.url, sn: SERIAL });
  await terminal.handshake();
  expect((await server.admin.post(`/devices/${SERIAL}/approve/`, { areas: ['hq'] })).status).toBe(200);
  await drain(terminal);
});
afterAll(async () => {
  await server.close();
});

describe('the host’s cookie on a change', () => {
  test('from the service’s own page (Origin its own, or Sec-Fetch-Site: same-origin) or a script with no Origin: the change is made', async () => {
    const own = new URL(server.url).origin;
    expect((await post(`/devices/${SERIAL}/disable/`, { origin: own, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect(await statusOfTerminal()).toBe('disabled');
    expect((await post(`/devices/${SERIAL}/approve/`, { origin: own })).status).toBe(200);
    expect(await statusOfTerminal()).toBe('approved');
    expect((await post('/jobs/check-devices/run/', {})).status).toBe(200);
  });

  test('a form another site posts (its Origin): 403 with the error body, and nothing changes', async () => {
    const res = await post(`/devices/${SERIAL}/disable/`, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', details: { reason: 'cross_site' } });
    expect(res.body.error!.message).toContain('https://evil.example');
    expect(await statusOfTerminal()).toBe('approved');
    expect((await post('/jobs/check-devices/run/', { origin: 'https://evil.example' })).status).toBe(403);
  });

  test('Sec-Fetch-Site: cross-site, a sibling site (same-site, another origin) and an opaque Origin (null) are refused alike', async () => {
    expect((await post(`/devices/${SERIAL}/disable/`, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const host = new URL(server.url).host;
    expect((await post(`/devices/${SERIAL}/disable/`, { 'sec-fetch-site': 'same-site', origin: `http://other.${host}` })).status).toBe(403);
    expect((await post(`/devices/${SERIAL}/disable/`, { origin: 'null' })).status).toBe(403);
    // PUT, PATCH and DELETE too (a fetch from another site, the host's cookie attached).
    const deleted = await fetch(`${server.url}/api/fingerprint/v1/devices/${SERIAL}/`, {
      method: 'DELETE',
      headers: { cookie: HOST_COOKIE, origin: 'https://evil.example' },
    });
    expect(deleted.status).toBe(403);
    expect(await statusOfTerminal()).toBe('approved');
  });

  test('reads from another site are not refused here (a browser cannot read the answer without CORS)', async () => {
    const res = await fetch(`${server.url}/api/fingerprint/v1/devices/`, {
      headers: { cookie: HOST_COOKIE, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(res.status).toBe(200);
  });
});

describe('credentials sent on purpose', () => {
  test('a bearer token or an API key from another origin: the change is made', async () => {
    const jwt = await fetch(`${server.url}/api/fingerprint/v1/devices/${SERIAL}/disable/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await adminToken()}`, cookie: HOST_COOKIE, origin: 'https://tools.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(jwt.status).toBe(200);
    const key = await server.admin.post('/api-keys/', { name: 'tools', role: 'admin' });
    expect(key.status).toBe(201);
    const approved = await fetch(`${server.url}/api/fingerprint/v1/devices/${SERIAL}/approve/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.body.key}`, 'content-type': 'application/json', origin: 'https://tools.example', 'sec-fetch-site': 'cross-site' },
      body: JSON.stringify({ areas: ['hq'] }),
    });
    expect(approved.status).toBe(200);
    expect(await statusOfTerminal()).toBe('approved');
  });
});

describe('the console’s own cookie', () => {
  test('with its CSRF token, from another site: refused; from the console: made', async () => {
    const opened = await fetch(`${server.url}/console/`, { headers: { cookie: HOST_COOKIE } });
    const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toStartWith('fpa_console=');
    const csrf = ((await (await fetch(`${server.url}/console/session`, { headers: { cookie } })).json()) as { csrf_token: string }).csrf_token;
    const disable = (origin: string) =>
      fetch(`${server.url}/api/fingerprint/v1/devices/${SERIAL}/disable/`, { method: 'POST', headers: { cookie, 'x-fpa-csrf': csrf, origin } });
    expect((await disable('https://evil.example')).status).toBe(403);
    expect(await statusOfTerminal()).toBe('approved');
    expect((await disable(new URL(server.url).origin)).status).toBe(200);
    expect(await statusOfTerminal()).toBe('disabled');
  });
});

describe('behind a proxy that rewrites Host', () => {
  let proxied: TestServer;
  beforeAll(async () => {
    proxied = await startTestServer({ CONSOLE_URL: 'https://attendance.example.com/console/' }, { authorizeAdmin: hostSignIn });
  });
  afterAll(async () => {
    await proxied.close();
  });

  test('the configured public address (CONSOLE_URL) is the service’s own origin; any other is refused', async () => {
    const run = (origin: string) =>
      fetch(`${proxied.url}/api/fingerprint/v1/jobs/check-devices/run/`, { method: 'POST', headers: { cookie: HOST_COOKIE, ...FORM, origin } });
    expect((await run('https://attendance.example.com')).status).toBe(200);
    expect((await run('https://evil.example')).status).toBe(403);
  });

  // The sign-in and the console's stream checked Origin against Host alone: behind nginx's
  // default `proxy_pass` (Host rewritten to the upstream's), every sign-in from the public
  // address was "asked from another site" and no one could sign in.
  test('signing in from the public address works; from any other site it is refused', async () => {
    await makeUser(proxied, 'hilde', 'hr');
    expect((await passwordSignInRaw(proxied, 'hilde', PASSWORD, { origin: 'https://attendance.example.com' })).status).toBe(204);
    const refused = await passwordSignInRaw(proxied, 'hilde', PASSWORD, { origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
  });

  test('the console’s stream opens from the public address, not from another site', async () => {
    const { cookie } = await passwordSignIn(proxied, 'hilde');
    const handshake = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' };
    const open = (origin: string) => fetch(`${proxied.url}/api/fingerprint/v1/punches/stream/`, { headers: { ...handshake, cookie, origin } });
    expect((await open('https://evil.example')).status).toBe(403);
    const stream = await openSocket(`${proxied.url.replace('http', 'ws')}/api/fingerprint/v1/punches/stream/`, {
      cookie,
      origin: 'https://attendance.example.com',
    });
    expect(stream.closed()).toBeNull();
    stream.ws.close();
  });
});
