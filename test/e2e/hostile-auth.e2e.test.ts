/**
 * Hostile input, who is calling: every route the running app serves — enumerated from
 * `server.app.routes`, so a new route is covered the day it is added — refuses anonymous
 * callers with 401 and the error body, except the terminals' ADMS prefix (device protocol) and
 * `/healthz`, `/readyz`, the docs page with its assets and the deletion proofs' public keys
 * (`/.well-known/fpa-proof-key.json`) (they hold nothing secret); the OpenAPI
 * document itself is administrators' (src/app/docs/routes.ts), and the console's shell, assets and
 * sign-in page and sign-in posts (a one-time token, a password or an invite token is the credential there).
 * Agent routes refuse administrator tokens and bogus keys; administrator routes refuse agent
 * keys and every broken JWT (alg none, no exp, expired, an exp past any nameable date, wrong key,
 * wrong audience). Every 401 carries `WWW-Authenticate` (`Agent` on agent routes, else `Bearer`).
 * Nothing a refused caller sends changes the database. test/admin-auth.test.ts covers JWKS and issuers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { UnsecuredJWT } from 'jose';
import { OPERATOR_TOKEN_HEADER } from '../../src/platform/http/admin-auth';
import { NOT_FOUND_TAG } from '../../src/platform/http/not-found';
import { METHOD_REFUSAL_TAG } from '../../src/platform/http/other-methods';
import { createAgent } from '../support/agents';
import { signInOverHttp } from '../support/console';
import { ApiClient, adminToken, startTestServer, type TestServer } from '../support/harness';
import { tableCounts } from '../support/hostile';

const API = '/api/fingerprint/v1';
const AUDIENCE = 'fpa-hostile';
/** Reachable without credentials, by decision: the health checks, the API root (a signpost to the docs), the docs page and its assets, the public keys that verify deletion proofs (and the terminals' prefix). */
const isPublic = (method: string, path: string) =>
  // The console's sign-in posts: the credential is in the body (a link, a password, an invite token).
  (method === 'POST' && ['/console/sign-in', '/console/sign-in/check', '/console/password', '/console/invite', '/console/invite/check'].includes(path)) ||
  // The second step of a sign-in: its credential is the pending cookie a right password set (401 without it), not an administrator's.
  (path.startsWith('/console/sign-in/') && (method === 'POST' || method === 'GET')) ||
  // Single sign-on: the way in for someone who has no credential yet (the provider vouches for them).
  (method === 'GET' && (path === '/console/sso' || path.startsWith('/console/sso/'))) ||
  (method === 'GET' &&
    (path === '/healthz' ||
      path === '/readyz' ||
      path === '/.well-known/fpa-proof-key.json' ||
      path === `${API}/` ||
      path === API ||
      path === `${API}/docs` ||
      (path.startsWith(`${API}/docs/`) && path !== `${API}/docs/json`) ||
      path === '/console' ||
      path === '/console/sign-in' ||
      path.startsWith('/console/assets/')));

const refusesMethod = (route: { hooks?: { detail?: { tags?: string[] } } }) => route.hooks?.detail?.tags?.includes(METHOD_REFUSAL_TAG) ?? false;
/** The catch-alls of paths under /api/ nothing serves (`/api`, `/api/fingerprint`): 404 for anyone. */
const answersNotFound = (route: { hooks?: { detail?: { tags?: string[] } } }) => route.hooks?.detail?.tags?.includes(NOT_FOUND_TAG) ?? false;

let server: TestServer;
let goodAdmin: string;
let agentKey: string;

interface Route {
  method: string;
  path: string;
  /** The path with its parameters filled in. */
  url: string;
  kind: 'agent' | 'admin';
  /** A WebSocket route: asked with the upgrade handshake (a plain GET is not served there). */
  websocket: boolean;
}

const HANDSHAKE = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' };

/** Plausible values, so that a route answering 401 does so because of the caller, not the path. */
function fill(path: string): string {
  return `${path
    .replace(/:serial/g, 'HOSTILE0001')
    .replace(/:name/g, 'check-devices')
    .replace(/:[A-Za-z]+/g, () => crypto.randomUUID())}/`;
}

function protectedRoutes(): Route[] {
  const adms = server.fpa.settings.ADMS_URL_PREFIX.replace(/\/$/, '');
  return (
    server.app.routes
      .filter((r) => !(r.path === adms || r.path.startsWith(`${adms}/`)))
      // The catch-all that answers unknown API paths with the error body is not an endpoint.
      .filter((r) => !r.path.endsWith('/*'))
      // Nor are the routes that answer a wrong method on a root path with 405 (anyone may learn that).
      .filter((r) => !refusesMethod(r))
      .filter((r) => !answersNotFound(r))
      .filter((r) => !isPublic(r.method, r.path))
      .map((r) => ({
        method: r.method === 'WS' ? 'GET' : r.method,
        path: r.path,
        url: fill(r.path),
        kind: r.path.startsWith(`${API}/agent/`) ? 'agent' : 'admin',
        websocket: r.method === 'WS',
      }))
  );
}

async function send(route: Route, headers: Record<string, string>, body?: string) {
  const withBody = route.method !== 'GET' && body !== undefined;
  const res = await fetch(`${server.url}${route.url}`, {
    method: route.method,
    headers: { ...(route.websocket ? HANDSHAKE : {}), ...headers, ...(withBody ? { 'content-type': 'application/json' } : {}) },
    body: withBody ? body : undefined,
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: the assertion below reports it
  }
  return { status: res.status, contentType: res.headers.get('content-type'), challenge: res.headers.get('www-authenticate'), json, text };
}

function expectUnauthorized(route: Route, what: string, res: Awaited<ReturnType<typeof send>>): void {
  const label = `${route.method} ${route.path} with ${what}`;
  expect({ label, status: res.status }).toEqual({ label, status: 401 });
  expect(res.contentType).toContain('application/json');
  expect(res.json).toEqual({ error: { code: 'unauthorized', message: expect.any(String), details: expect.any(Object), request_id: expect.any(String) } });
  // RFC 9110 §11.6.1: a 401 names the scheme that would be accepted (an agent's key, else a Bearer token).
  expect({ label, challenge: res.challenge }).toEqual({ label, challenge: route.kind === 'agent' ? 'Agent realm="fpa"' : 'Bearer realm="fpa"' });
}

beforeAll(async () => {
  server = await startTestServer({ ADMIN_JWT_AUDIENCE: AUDIENCE, AGENT_RATE_LIMIT: '100000/m' });
  goodAdmin = await adminToken({ audience: AUDIENCE });
  // The harness client's token has no audience; this server wants one.
  server.admin.headers.authorization = `Bearer ${goodAdmin}`;
  agentKey = (await createAgent(server, 'hostile-auth')).key;
});
afterAll(async () => {
  await server.close();
});

describe('the route table', () => {
  test('holds the terminal prefix, the public routes and both kinds of protected route', () => {
    const all = server.app.routes.map((r) => `${r.method} ${r.path}`);
    expect(all).toContain(`ALL ${server.fpa.settings.ADMS_URL_PREFIX}*`);
    expect(all).toEqual(expect.arrayContaining(['GET /healthz', `GET ${API}/docs`]));
    const routes = protectedRoutes();
    // The OpenAPI document is among the protected routes; the page that fetches it is not.
    expect(routes.map((r) => `${r.method} ${r.path}`)).toContain(`GET ${API}/docs/json`);
    expect(routes.map((r) => `${r.method} ${r.path}`)).not.toContain(`GET ${API}/docs`);
    expect(routes.filter((r) => r.kind === 'agent').length).toBeGreaterThanOrEqual(8);
    expect(routes.filter((r) => r.kind === 'admin').length).toBeGreaterThanOrEqual(30);
  });

  test('the public routes answer without credentials', async () => {
    // The 405 answers of a path served by another method (`GET /console/sign-in/check`) are no public page.
    const publicPaths = server.app.routes.filter((r) => r.method === 'GET' && isPublic(r.method, r.path) && !refusesMethod(r)).map((r) => r.path);
    expect(publicPaths.length).toBeGreaterThanOrEqual(7);
    for (const p of publicPaths.filter((path) => !path.includes(':') && path !== '/console/sign-in' && path !== '/console/sign-in/second-factor')) {
      // `docs` redirects to `docs/`, which fetch follows.
      const res = await fetch(`${server.url}${p}`);
      await res.arrayBuffer();
      expect({ p, status: res.status }).toEqual({ p, status: 200 });
    }
  });
});

describe('refused callers', () => {
  test('anonymous: no credentials, an empty or garbled Authorization, with and without a body', async () => {
    const before = await tableCounts(server);
    for (const route of protectedRoutes()) {
      expectUnauthorized(route, 'no credentials', await send(route, {}));
      expectUnauthorized(route, 'no credentials and a JSON body', await send(route, {}, '{"name":"x","url":"http://127.0.0.1/"}'));
      // The body is not looked at before the caller is known: garbage is still 401.
      expectUnauthorized(route, 'no credentials and a broken body', await send(route, {}, '{"name":'));
      expectUnauthorized(route, 'an empty Authorization', await send(route, { authorization: '' }));
      expectUnauthorized(route, 'Basic credentials', await send(route, { authorization: 'Basic YWRtaW46YWRtaW4=' }));
      expectUnauthorized(route, 'a bogus operator token', await send(route, { [OPERATOR_TOKEN_HEADER]: 'not-the-token' }));
    }
    expect(await tableCounts(server)).toEqual(before);
  });

  test('agent routes: a bogus, an unknown and a revoked agent key, an administrator JWT', async () => {
    const revoked = await createAgent(server, 'hostile-auth-revoked');
    expect((await server.admin.post(`/enrollment-agents/${revoked.id}/revoke/`)).status).toBe(200);
    const before = await tableCounts(server);
    const routes = protectedRoutes().filter((r) => r.kind === 'agent');
    for (const route of routes) {
      expectUnauthorized(route, 'a bogus agent key', await send(route, { authorization: 'Agent fpa_x_y' }, '{}'));
      expectUnauthorized(route, 'a well-formed unknown key', await send(route, { authorization: `Agent fpa_aaaaaaaa_${'A'.repeat(43)}` }, '{}'));
      expectUnauthorized(route, 'a revoked key', await send(route, { authorization: `Agent ${revoked.key}` }, '{}'));
      expectUnauthorized(route, 'the agent key as a Bearer token', await send(route, { authorization: `Bearer ${agentKey}` }, '{}'));
      expectUnauthorized(route, 'an administrator JWT', await send(route, { authorization: `Bearer ${goodAdmin}` }, '{}'));
      expectUnauthorized(route, 'an administrator JWT as an agent key', await send(route, { authorization: `Agent ${goodAdmin}` }, '{}'));
    }
    expect(await tableCounts(server)).toEqual(before);
  });

  test('administrator routes: an agent key and every broken JWT', async () => {
    // Signed, with an `exp` no date (or no RFC 3339 instant) can hold: refused at the door, not a 500 where a route names the expiry.
    const unnameableExpiry = await Promise.all(
      [8640000000001, 1e15, 1e20, 253402300800].map(
        async (exp): Promise<[string, string]> => [`exp ${exp}`, `Bearer ${await adminToken({ expiresIn: exp, audience: AUDIENCE })}`],
      ),
    );
    const tokens: [string, string][] = [
      ['an agent key', `Agent ${agentKey}`],
      ['an agent key as a Bearer token', `Bearer ${agentKey}`],
      ['alg none', `Bearer ${new UnsecuredJWT({ scope: 'fpa:admin' }).setSubject('x').setExpirationTime('5m').setAudience(AUDIENCE).encode()}`],
      ['no exp', `Bearer ${await adminToken({ expiresIn: null, audience: AUDIENCE })}`],
      ['an expired token', `Bearer ${await adminToken({ expiresIn: '-1m', audience: AUDIENCE })}`],
      ['a wrong key', `Bearer ${await adminToken({ secret: 'another-secret-that-is-at-least-32-bytes!', audience: AUDIENCE })}`],
      ['a wrong audience', `Bearer ${await adminToken({ audience: 'someone-else' })}`],
      ['no audience', `Bearer ${await adminToken()}`],
      ['a truncated signature', `Bearer ${goodAdmin.slice(0, -4)}`],
      ...unnameableExpiry,
    ];
    const before = await tableCounts(server);
    for (const route of protectedRoutes().filter((r) => r.kind === 'admin')) {
      for (const [what, authorization] of tokens) expectUnauthorized(route, what, await send(route, { authorization }, '{}'));
    }
    expect(await tableCounts(server)).toEqual(before);
  });

  test('the same routes with the right credentials are not refused (the test can fail)', async () => {
    for (const route of protectedRoutes()) {
      const authorization = route.kind === 'agent' ? `Agent ${agentKey}` : `Bearer ${goodAdmin}`;
      // Job runs do real work and a WebSocket would upgrade: a job that does not exist and a
      // bad `after` are answered only once the caller has been accepted.
      const target = route.path.endsWith('/jobs/:name/run')
        ? { ...route, url: `${API}/jobs/no-such-job/run/` }
        : route.websocket
          ? { ...route, url: `${route.url}?after=x` }
          : route;
      const res = await send(target, { authorization }, route.method === 'GET' ? undefined : '{}');
      // A user's own second factors: any other caller is refused as not a user, by design (the credential was accepted).
      const notAUser = res.status === 403 && (res.json as { error?: { details?: { reason?: string } } })?.error?.details?.reason === 'not_a_user';
      expect({ route: `${route.method} ${route.path}`, refused: !notAUser && (res.status === 401 || res.status === 403) }).toEqual({
        route: `${route.method} ${route.path}`,
        refused: false,
      });
    }
  });
});

describe('a token expiring at the edge of what can be named', () => {
  test('exp 9999-12-31T23:59:59Z is a token like any other; users/me/ names its expiry', async () => {
    const client = new ApiClient(`${server.url}${API}`, { authorization: `Bearer ${await adminToken({ expiresIn: 253402300799, audience: AUDIENCE })}` });
    const me = await client.get('/users/me/');
    expect(me.status).toBe(200);
    expect(me.body.expires_at).toBe('9999-12-31T23:59:59.000Z');
    expect((await client.get('/devices/')).status).toBe(200);
  });
});

describe('console sessions', () => {
  test('administrator routes: a forged or ended session cookie is 401; a live one without the CSRF header may read but not change', async () => {
    const ended = await signInOverHttp(server);
    expect((await fetch(`${server.url}/console/sign-out`, { method: 'POST', headers: { cookie: ended.cookie, 'x-fpa-csrf': ended.csrf } })).status).toBe(204);
    const live = await signInOverHttp(server);
    const before = await tableCounts(server);
    for (const route of protectedRoutes().filter((r) => r.kind === 'admin')) {
      expectUnauthorized(route, 'a forged session cookie', await send(route, { cookie: `fpa_console=${'A'.repeat(43)}` }, '{}'));
      expectUnauthorized(route, 'an ended session', await send(route, { cookie: ended.cookie, 'x-fpa-csrf': ended.csrf }, '{}'));
      if (route.method !== 'GET' || route.websocket) {
        // A change (or a stream opened from nowhere) riding on the cookie alone.
        const res = await send(route, { cookie: live.cookie }, '{}');
        expect({ route: `${route.method} ${route.path}`, status: res.status }).toEqual({ route: `${route.method} ${route.path}`, status: 403 });
      }
    }
    expect(await tableCounts(server)).toEqual(before);
  });

  test('agent routes refuse a console session', async () => {
    const live = await signInOverHttp(server);
    for (const route of protectedRoutes().filter((r) => r.kind === 'agent')) {
      expectUnauthorized(route, 'a console session', await send(route, { cookie: live.cookie, 'x-fpa-csrf': live.csrf }, '{}'));
    }
  });

  test('with the cookie and the CSRF header (and the origin, for streams) no administrator route refuses', async () => {
    const live = await signInOverHttp(server);
    // Signing out ends the session the other routes ride on: it goes last.
    const routes = protectedRoutes().filter((r) => r.kind === 'admin');
    routes.sort((a, b) => Number(a.path === '/console/sign-out') - Number(b.path === '/console/sign-out'));
    for (const route of routes) {
      const target = route.path.endsWith('/jobs/:name/run')
        ? { ...route, url: `${API}/jobs/no-such-job/run/` }
        : route.websocket
          ? { ...route, url: `${route.url}?after=x` }
          : route;
      const res = await send(target, { cookie: live.cookie, 'x-fpa-csrf': live.csrf, origin: server.url }, route.method === 'GET' ? undefined : '{}');
      // A user's own second factors: any other caller is refused as not a user, by design (the credential was accepted).
      const notAUser = res.status === 403 && (res.json as { error?: { details?: { reason?: string } } })?.error?.details?.reason === 'not_a_user';
      expect({ route: `${route.method} ${route.path}`, refused: !notAUser && (res.status === 401 || res.status === 403) }).toEqual({
        route: `${route.method} ${route.path}`,
        refused: false,
      });
    }
  });
});
