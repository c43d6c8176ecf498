/**
 * Console sign-in and sessions over HTTP: a link works once and only within CONSOLE_LINK_TTL;
 * the cookie is HttpOnly, SameSite=Strict and Secure behind a trusted HTTPS proxy; a change with
 * the cookie alone is refused (CSRF), with the header it is done and audited under the session's
 * actor; sessions end by sign-out, idle time and age; a host's own sign-in opens a session.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { HostIdentity } from '../../src/platform/http/admin-auth';
import { createLogger } from '../../src/platform/log';
import { consoleLink, linkToken, signInOverHttp } from '../support/console';
import { startTestServer, type TestServer } from '../support/harness';
import { openSocket } from '../support/sockets';

const API = '/api/fingerprint/v1';
let server: TestServer;
let now = Date.now();
const clock = { now: () => now };

beforeAll(async () => {
  server = await startTestServer({ CONSOLE_LINK_TTL: '10m', CONSOLE_SESSION_IDLE_TIMEOUT: '30m', CONSOLE_SESSION_TTL: '2h' }, { clock });
});
afterAll(async () => {
  await server.close();
});

const tokenOf = linkToken;
const postSignIn = (token: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ token }).toString(),
  });

const checkLink = (token: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/console/sign-in/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, ...headers },
    body: JSON.stringify({ token }),
  });

describe('sign-in links', () => {
  test('the token rides after #: the page asks whom it signs in without spending it; the post signs in once', async () => {
    const link = await consoleLink(server, 'grace@example.com');
    expect(link).toMatch(/\/console\/sign-in#token=fpc_[A-Za-z0-9_-]{43}$/);
    // What a browser asks the server for: the page, without the part after `#`.
    const page = await fetch(link);
    expect(new URL(page.url).search).toBe('');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    // No Referer, not even to its own stylesheet and script.
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).toContain('<meta name="referrer" content="no-referrer" />');
    expect(html).not.toMatch(/<script(?![^>]*src=)/);
    expect(html).toMatch(/<script type="module" src="assets\/sign-in-link-[0-9a-f]{12}\.js"><\/script>/);

    // The page's script reads the token and asks whom it signs in: asking does not spend it.
    for (let i = 0; i < 2; i++) {
      const checked = await checkLink(tokenOf(link));
      expect(checked.status).toBe(200);
      expect(await checked.json()).toEqual({ actor: 'grace@example.com' });
    }
    expect((await checkLink(tokenOf(link), { origin: 'https://evil.example' })).status).toBe(403);

    const first = await postSignIn(tokenOf(link), { origin: server.url });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('./');
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^fpa_console=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);

    const again = await postSignIn(tokenOf(link));
    expect(again.status).toBe(410);
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(again.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await again.text()).toContain('This sign-in link is no longer valid');
    expect((await checkLink(tokenOf(link))).status).toBe(404);
  });

  test('a link of the old form (?token=) signs nobody in: 410, and the token, now in the logs, is cancelled', async () => {
    const link = await consoleLink(server, 'grace@example.com');
    const old = `${server.url}/console/sign-in?token=${encodeURIComponent(tokenOf(link))}`;
    const page = await fetch(old);
    expect(page.status).toBe(410);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).toContain('This sign-in link is in an old form');
    expect(html).not.toContain(tokenOf(link));
    // A copy of the token out of an access log signs nobody in either.
    expect((await checkLink(tokenOf(link))).status).toBe(404);
    expect((await postSignIn(tokenOf(link))).status).toBe(410);
    const audit = await server.admin.get('/audit-log/?action=console_link_cancelled');
    expect(audit.body.results[0]).toMatchObject({ actor: 'test', target_id: 'grace@example.com', details: { reason: 'token_in_query' } });
  });

  test('a link past CONSOLE_LINK_TTL signs nobody in; an unknown one neither', async () => {
    const link = await consoleLink(server);
    now += 11 * 60_000;
    try {
      expect((await postSignIn(tokenOf(link))).status).toBe(410);
    } finally {
      now -= 11 * 60_000;
    }
    expect((await postSignIn('fpc_not-a-real-token')).status).toBe(410);
  });

  test('sign-in posted from another site is refused', async () => {
    const link = await consoleLink(server);
    expect((await postSignIn(tokenOf(link), { origin: 'https://evil.example' })).status).toBe(403);
    // The link was not spent by the refused attempt.
    expect((await postSignIn(tokenOf(link), { origin: server.url })).status).toBe(303);
  });

  test('only hashes are stored', async () => {
    const link = await consoleLink(server);
    const token = tokenOf(link);
    const session = await signInOverHttp(server);
    const rows = await server.fpa.db.client.execute('select token_hash from fpa_console_links union all select id_hash from fpa_console_sessions');
    const stored = JSON.stringify(rows.rows);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(session.cookie.split('=')[1]!);
  });

  test('a server that does not require consent says so in the console’s session (whose enrollment form then needs none)', async () => {
    const lenient = await startTestServer({ ENROLLMENT_REQUIRE_CONSENT: 'false' });
    try {
      const { cookie } = await signInOverHttp(lenient, 'hr-officer');
      const me = await fetch(`${lenient.url}/console/session`, { headers: { cookie } });
      expect((await me.json()).consent_required).toBe(false);
    } finally {
      await lenient.close();
    }
  });

  test('behind a proxy the cookie is Secure only when the proxy is trusted', async () => {
    const trusting = await startTestServer({ CONSOLE_TRUST_PROXY: 'true' });
    try {
      const link = await consoleLink(trusting);
      const res = await fetch(`${trusting.url}/console/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-proto': 'https' },
        body: new URLSearchParams({ token: tokenOf(link) }).toString(),
      });
      expect(res.headers.get('set-cookie')).toMatch(/^__Host-fpa_console=.*; Secure$/);
    } finally {
      await trusting.close();
    }
    const link = await consoleLink(server);
    const res = await postSignIn(tokenOf(link), { 'x-forwarded-proto': 'https' });
    expect(res.headers.get('set-cookie')).not.toContain('Secure');
  });
});

describe('a session', () => {
  test('reads with the cookie; a change needs the CSRF header; the change is audited under the actor', async () => {
    const { cookie, csrf } = await signInOverHttp(server, 'hr-officer');
    const me = await fetch(`${server.url}/console/session`, { headers: { cookie } });
    // consent_required: whether the console may offer enrollment before consent is on record.
    expect(await me.json()).toMatchObject({ actor: 'hr-officer', csrf_token: csrf, csrf_header: 'x-fpa-csrf', time_zone: 'UTC', consent_required: true });

    expect((await fetch(`${server.url}${API}/devices/`, { headers: { cookie } })).status).toBe(200);
    const body = JSON.stringify({ serial_number: 'CSRF0001' });
    const headers = { cookie, 'content-type': 'application/json' };
    const refused = await fetch(`${server.url}${API}/devices/`, { method: 'POST', headers, body });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('forbidden');
    const wrong = await fetch(`${server.url}${API}/devices/`, { method: 'POST', headers: { ...headers, 'x-fpa-csrf': `${csrf}x` }, body });
    expect(wrong.status).toBe(403);
    expect((await server.admin.get('/devices/CSRF0001/')).status).toBe(404);

    const done = await fetch(`${server.url}${API}/devices/`, { method: 'POST', headers: { ...headers, 'x-fpa-csrf': csrf }, body });
    expect(done.status).toBe(201);
    const audit = await server.admin.get('/audit-log/?actor=hr-officer');
    expect(audit.body.results.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(['console_signed_in']));
    expect(audit.body.results.some((e: { target_id: string }) => e.target_id === 'CSRF0001')).toBe(true);
  });

  test('another session’s CSRF token does not work', async () => {
    const a = await signInOverHttp(server);
    const b = await signInOverHttp(server);
    const res = await fetch(`${server.url}${API}/areas/`, {
      method: 'POST',
      headers: { cookie: a.cookie, 'x-fpa-csrf': b.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'cross' }),
    });
    expect(res.status).toBe(403);
  });

  test('sign-out ends it (and needs the CSRF header)', async () => {
    const { cookie, csrf } = await signInOverHttp(server);
    expect((await fetch(`${server.url}/console/sign-out`, { method: 'POST', headers: { cookie } })).status).toBe(403);
    const out = await fetch(`${server.url}/console/sign-out`, { method: 'POST', headers: { cookie, 'x-fpa-csrf': csrf } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await fetch(`${server.url}${API}/devices/`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${server.url}/console/session`, { headers: { cookie } })).status).toBe(401);
  });

  test('a cookie of a session that has ended is told so (sign in again), not asked for a token', async () => {
    const { cookie, csrf } = await signInOverHttp(server);
    expect((await fetch(`${server.url}/console/sign-out`, { method: 'POST', headers: { cookie, 'x-fpa-csrf': csrf } })).status).toBe(204);
    for (const path of [`${API}/devices/`, '/console/session']) {
      const res = await fetch(`${server.url}${path}`, { headers: { cookie } });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: unknown }).error).toMatchObject({
        code: 'unauthorized',
        message: 'your console session has ended: sign in again',
        details: { reason: 'session_ended' },
      });
    }
    // Without a cookie (a script), the token is what is missing.
    const bare = await fetch(`${server.url}${API}/devices/`);
    expect(((await bare.json()) as { error: { message: string } }).error.message).toBe('an administrator token is required (Authorization: Bearer <JWT>)');
  });

  test('it ends after the idle timeout, and after its lifetime however busy', async () => {
    const idle = await signInOverHttp(server);
    now += 31 * 60_000;
    expect((await fetch(`${server.url}${API}/devices/`, { headers: { cookie: idle.cookie } })).status).toBe(401);

    const busy = await signInOverHttp(server);
    for (let i = 0; i < 4; i++) {
      now += 25 * 60_000;
      expect((await fetch(`${server.url}${API}/devices/`, { headers: { cookie: busy.cookie } })).status).toBe(200);
    }
    now += 25 * 60_000;
    expect((await fetch(`${server.url}${API}/devices/`, { headers: { cookie: busy.cookie } })).status).toBe(401);
  });

  test('the punch stream takes the cookie from the console’s own origin only', async () => {
    const { cookie } = await signInOverHttp(server);
    const handshake = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' };
    const other = await fetch(`${server.url}${API}/punches/stream/`, { headers: { ...handshake, cookie, origin: 'https://evil.example' } });
    expect(other.status).toBe(403);
    const none = await fetch(`${server.url}${API}/punches/stream/`, { headers: { ...handshake } });
    expect(none.status).toBe(401);
    const stream = await openSocket(`${server.url.replace('http', 'ws')}${API}/punches/stream/`, { cookie, origin: server.url });
    expect(stream.closed()).toBeNull();
    stream.ws.close();
  });
});

describe('a host’s own sign-in', () => {
  test('opening the console while the host vouches for the request starts a session for that person', async () => {
    const host = await startTestServer(
      {},
      { authorizeAdmin: (req: Request): HostIdentity | null => (req.headers.get('cookie')?.includes('host_session=alice') ? { by: 'alice@host' } : null) },
    );
    try {
      const anonymous = await fetch(`${host.url}/console/`);
      expect(anonymous.status).toBe(200);
      expect(anonymous.headers.get('set-cookie')).toBeNull();
      const vouched = await fetch(`${host.url}/console/`, { headers: { cookie: 'host_session=alice' } });
      const cookie = (vouched.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      expect(cookie).toStartWith('fpa_console=');
      const me = await fetch(`${host.url}/console/session`, { headers: { cookie } });
      expect(await me.json()).toMatchObject({ actor: 'alice@host' });
    } finally {
      await host.close();
    }
  });
});

describe('a host whose sign-in answers something else than { by, role?, areas? }', () => {
  test('its callers get the spec’s 500 body, and the log names the host’s mistake (no half-made session)', async () => {
    const lines: string[] = [];
    // A host in JavaScript, handing over its own session object.
    const hostSession = (req: Request) => (req.headers.get('cookie')?.includes('host_session=bob') ? { sub: 'bob', role: 'boss' } : null);
    const host = await startTestServer(
      {},
      { authorizeAdmin: hostSession as unknown as (req: Request) => HostIdentity | null, logger: createLogger('debug', (line) => lines.push(line)) },
    );
    try {
      const opened = await fetch(`${host.url}/console/`, { headers: { cookie: 'host_session=bob' } });
      expect(opened.headers.get('set-cookie')).toBeNull();
      const api = await fetch(`${host.url}/api/fingerprint/v1/devices/`, { headers: { cookie: 'host_session=bob' } });
      expect(api.status).toBe(500);
      expect(await api.json()).toMatchObject({ error: { code: 'internal_error' } });
      const logged = lines.join('\n');
      expect(logged).toContain('authorizeAdmin returned what is not { by, role?, areas? } or null: `by` must be a non-empty string');
      expect(logged).toContain('`role` must be one of owner, admin, hr, manager, installer, viewer');
      expect(logged).not.toContain('fpa_console_sessions');
      // Anyone else is still refused as before.
      expect((await fetch(`${host.url}/api/fingerprint/v1/devices/`)).status).toBe(401);
    } finally {
      await host.close();
    }
  });
});

describe('the console page', () => {
  test('is served with a strict policy, and its assets with long cache lives and hashed names', async () => {
    const page = await fetch(`${server.url}/console/`);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBe(2);
    for (const asset of assets) {
      expect(asset).toMatch(/-[0-9a-f]{12}\.(js|css)$/);
      const res = await fetch(`${server.url}/console/${asset}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    expect((await fetch(`${server.url}/console`, { redirect: 'manual' })).headers.get('location')).toBe('console/');
  });

  test('an address under it that nothing serves is a 404 page in its own style, whose links lead back to the console', async () => {
    for (const [path, base] of [
      ['/console/people', ''],
      ['/console/people/42/punches', '../../'],
    ] as const) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toStartWith('text/html');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      const html = await res.text();
      expect(html).toContain('<h2>Page not found</h2>');
      expect(html).toContain(base ? `<base href="${base}" />` : '<link rel="stylesheet"');
      if (!base) expect(html).not.toContain('<base');
      // The stylesheet and the way back resolve to the console's own addresses.
      const sheet = /href="(assets\/[^"]+\.css)"/.exec(html)?.[1] ?? '';
      const at = new URL(base + sheet, `${server.url}${path}`);
      expect((await fetch(at)).status).toBe(200);
      expect(new URL(`${base}./`, `${server.url}${path}`).pathname).toBe('/console/');
    }
    // The console's own routes and their 405s are untouched.
    expect((await fetch(`${server.url}/console/session`)).status).not.toBe(404);
    expect((await fetch(`${server.url}/console/assets/nope.js`)).status).toBe(404);
  });
});

describe('explicit credentials', () => {
  test('a bearer token wins over a console cookie the browser adds by itself (no CSRF rule for it)', async () => {
    const { cookie } = await signInOverHttp(server);
    const res = await fetch(`${server.url}${API}/areas/`, {
      method: 'POST',
      headers: { cookie, authorization: server.admin.headers.authorization!, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bearer-wins' }),
    });
    expect(res.status).toBe(201);
    // A broken bearer token is refused whatever cookie comes with it.
    const broken = await fetch(`${server.url}${API}/devices/`, { headers: { cookie, authorization: 'Bearer nope' } });
    expect(broken.status).toBe(401);
  });
});
