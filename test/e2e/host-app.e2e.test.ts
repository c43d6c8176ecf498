/**
 * The plugin in a host's own Elysia app, built the way host developers build theirs: the host's
 * hooks registered where Elysia's guides put them, its own routes beside the plugin's, over
 * real HTTP. The plugin's answers must not depend on what the host did around it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type AnyElysia, Elysia } from 'elysia';
import { createFingerprintAttendance, type FingerprintAttendance } from '../../src/app/create';
import { silentLogger } from '../../src/platform/log';
import { adminToken, tempDir, testSettings } from '../support/harness';

const API = '/api/fingerprint/v1';
const tmp = tempDir('fpa-host-app-');
let fpa: FingerprintAttendance;

beforeAll(async () => {
  fpa = await createFingerprintAttendance({ settings: testSettings(tmp.dir), env: {}, logger: silentLogger, startJobs: false });
});
afterAll(async () => {
  await fpa.close();
  tmp.cleanup();
});

/** Listens on a free port; `stop` closes it. */
function serve(app: AnyElysia): { url: string; stop: () => Promise<void> } {
  app.listen({ port: 0, hostname: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${app.server!.port}`,
    stop: async () => {
      await app.stop(true);
    },
  };
}

describe('a host onError registered before .use(plugin)', () => {
  const seen: string[] = [];
  let host: { url: string; stop: () => Promise<void> };

  beforeAll(() => {
    const app = new Elysia()
      .onError(({ code, set }) => {
        seen.push(String(code));
        set.status = 500;
        return { hostError: String(code) };
      })
      .use(fpa.plugin)
      .get('/host/boom', () => {
        throw new Error('the host’s own failure');
      })
      .get('/api/host/thing', () => ({ thing: 'the host’s' }));
    host = serve(app);
  });
  afterAll(() => host.stop());

  test('the plugin still answers its own errors: 401, 404, 405 with Allow, 413, 400, each with its error body and request id', async () => {
    const bearer = { authorization: `Bearer ${await adminToken()}` };
    const json = { ...bearer, 'content-type': 'application/json' };
    const cases: Array<{ name: string; path: string; init?: RequestInit; status: number; code: string }> = [
      { name: 'no credentials', path: `${API}/devices/`, status: 401, code: 'unauthorized' },
      { name: 'unknown path', path: `${API}/no-such-thing/`, status: 404, code: 'not_found' },
      { name: 'wrong method', path: `${API}/devices/`, init: { method: 'PUT', headers: bearer }, status: 405, code: 'method_not_allowed' },
      {
        name: 'body over the limit',
        path: `${API}/areas/`,
        init: { method: 'POST', headers: json, body: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }) },
        status: 413,
        code: 'payload_too_large',
      },
      { name: 'invalid body', path: `${API}/areas/`, init: { method: 'POST', headers: json, body: JSON.stringify({}) }, status: 400, code: 'validation_error' },
      { name: 'unknown resource', path: `${API}/enrollees/no-such-enrollee/`, init: { headers: bearer }, status: 404, code: 'not_found' },
    ];
    for (const c of cases) {
      const res = await fetch(`${host.url}${c.path}`, { ...c.init, headers: { ...(c.init?.headers ?? {}), 'x-request-id': `case-${c.status}` } });
      const body = (await res.json()) as { error?: { code: string; request_id: string } };
      expect({ name: c.name, status: res.status, code: body.error?.code, request_id: body.error?.request_id }).toEqual({
        name: c.name,
        status: c.status,
        code: c.code,
        request_id: `case-${c.status}`,
      });
      if (c.status === 405) expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    }
    // The host's onError still saw them (its logging keeps working): only the answer is the plugin's.
    expect(seen).toContain('unauthorized');
  });

  test('the host’s own routes still get the host’s onError', async () => {
    const res = await fetch(`${host.url}/host/boom`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ hostError: 'UNKNOWN' });
    const unknown = await fetch(`${host.url}/host/nothing-here`);
    expect(await unknown.json()).toEqual({ hostError: 'NOT_FOUND' });
  });

  test('under /api/ the plugin answers only its own namespace: another version is its 404, the host’s /api/ paths stay the host’s', async () => {
    const mine = await fetch(`${host.url}/api/fingerprint/v2/punches/`);
    expect([mine.status, ((await mine.json()) as { error?: { code: string } }).error?.code]).toEqual([404, 'not_found']);
    expect(await (await fetch(`${host.url}/api/host/thing`)).json()).toEqual({ thing: 'the host’s' });
    // A path of the host's under /api/ that nothing serves is the host's 404, not the plugin's.
    expect(await (await fetch(`${host.url}/api/host/nothing-here`)).json()).toEqual({ hostError: 'NOT_FOUND' });
    expect(await (await fetch(`${host.url}/api/`)).json()).toEqual({ hostError: 'NOT_FOUND' });
  });
});

describe('the host’s own /metrics, /readyz and /healthz', () => {
  test('stay the host’s: the plugin mounts none of them', async () => {
    const app = new Elysia()
      .get('/metrics', () => 'host_metric 1')
      .get('/readyz', () => ({ host: 'ready' }))
      .get('/healthz', () => ({ host: 'alive' }))
      .use(fpa.plugin);
    const host = serve(app);
    try {
      expect(await (await fetch(`${host.url}/metrics`)).text()).toBe('host_metric 1');
      expect(await (await fetch(`${host.url}/readyz`)).json()).toEqual({ host: 'ready' });
      expect(await (await fetch(`${host.url}/healthz`)).json()).toEqual({ host: 'alive' });
      // Nor does the plugin answer them for a host that has none: they are the host's paths.
      const bare = new Elysia().use(fpa.plugin);
      expect((await bare.handle(new Request('http://localhost/readyz'))).status).toBe(404);
      expect((await bare.handle(new Request('http://localhost/metrics'))).status).toBe(404);
    } finally {
      await host.stop();
    }
  });

  test('a host that wants the service’s own mounts fpa.operations: /readyz and /metrics as the standalone server has them', async () => {
    const app = new Elysia().use(fpa.operations).use(fpa.plugin);
    const ready = await app.handle(new Request('http://localhost/readyz'));
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
    expect(ready.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await app.handle(new Request('http://localhost/metrics'))).status).toBe(401);
    const scraped = await app.handle(new Request('http://localhost/metrics', { headers: { authorization: `Bearer ${await adminToken()}` } }));
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('# TYPE');
    const wrong = await app.handle(new Request('http://localhost/readyz', { method: 'POST' }));
    expect([wrong.status, wrong.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });
});

describe('request ids in a host that called app.handle() first', () => {
  test('each later request has its own id, the caller’s own when it gives one, on app.handle and on the live server', async () => {
    const app = new Elysia()
      .use(fpa.operations)
      .use(fpa.plugin)
      .get('/host/hello', () => 'hello');
    // Ordinary host code: a warm-up (or a host's test) calls app.handle before anything else.
    const warmUp = await app.handle(new Request('http://localhost/readyz'));
    const first = warmUp.headers.get('x-request-id');
    expect(first).toMatch(/^[0-9a-f-]{36}$/);

    const idOf = async (path: string, given?: string) => {
      const res = await app.handle(new Request(`http://localhost${path}`, { headers: given ? { 'x-request-id': given } : {} }));
      return res.headers.get('x-request-id');
    };
    for (const path of ['/readyz', `${API}/devices/`, '/iclock/cdata?SN=HOSTIDS1&options=all']) {
      const [a, b] = [await idOf(path), await idOf(path)];
      expect({ path, fresh: [a, b].every((id) => id !== first && /^[0-9a-f-]{36}$/.test(id ?? '')), distinct: a !== b }).toEqual({
        path,
        fresh: true,
        distinct: true,
      });
      expect({ path, given: await idOf(path, `host-${path.length}`) }).toEqual({ path, given: `host-${path.length}` });
    }

    const live = serve(app);
    try {
      for (const path of ['/readyz', `${API}/devices/`]) {
        const a = await fetch(`${live.url}${path}`);
        const b = await fetch(`${live.url}${path}`, { headers: { 'x-request-id': 'live-given' } });
        expect({ path, a: a.headers.get('x-request-id') !== first, b: b.headers.get('x-request-id') }).toEqual({ path, a: true, b: 'live-given' });
        if (path !== '/readyz') expect(((await b.json()) as { error: { request_id: string } }).error.request_id).toBe('live-given');
      }
    } finally {
      await live.stop();
    }
  });
});
