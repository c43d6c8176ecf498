/**
 * The OpenAPI document against the routes the running app really serves: every route (except
 * the terminals' ADMS endpoints) must be documented with the same method, so adding a route
 * without documenting it fails here. And the document itself must hang together: auth
 * schemes, the error body, references that resolve, error codes that exist.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { normaliseRoutePath } from '../../src/app/docs/openapi';
import { ERROR_STATUS } from '../../src/platform/errors';
import { adminToken, startTestServer, type TestServer } from '../support/harness';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, Record<string, string>> };
};
type Operation = {
  operationId: string;
  security: Record<string, string[]>[];
  tags: string[];
  parameters?: { name: string; in: string }[];
  responses: Record<string, { content?: Record<string, { schema: unknown; examples?: Record<string, { value: { error: { code: string } } }> }> }>;
};

let server: TestServer;
let doc: Doc;
const API = '/api/fingerprint/v1';

beforeAll(async () => {
  server = await startTestServer();
  const res = await fetch(`${server.url}${API}/docs/json`, { headers: { authorization: `Bearer ${await adminToken()}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/json');
  doc = (await res.json()) as Doc;
});
afterAll(async () => {
  await server.close();
});

/** `GET /a/:b` → `get /a/{}`; WebSocket routes are GETs with an upgrade. */
function routeKey(method: string, path: string): string {
  const m = method.toLowerCase() === 'ws' ? 'get' : method.toLowerCase();
  return `${m} ${normaliseRoutePath(path)}`;
}

function servedRoutes(): string[] {
  const adms = server.fpa.settings.ADMS_URL_PREFIX.replace(/\/$/, '');
  return (
    server.app.routes
      .filter((r) => !(r.path === adms || r.path.startsWith(`${adms}/`)))
      // The catch-all that answers unknown API paths with the error body is not an endpoint.
      .filter((r) => !r.path.endsWith('/*'))
      .map((r) => routeKey(r.method, r.path))
  );
}

function documentedRoutes(): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => routeKey(method, path)));
}

describe('the document covers the served API', () => {
  test('every served route (ADMS aside) is documented with its method', () => {
    const documented = new Set(documentedRoutes());
    const undocumented = [...new Set(servedRoutes())].filter((r) => !documented.has(r));
    expect(undocumented).toEqual([]);
  });

  test('documented routes exist: all of them for every feature that is installed', () => {
    const served = new Set(servedRoutes());
    // A group is the first path segment under the API (devices, webhooks, agent, …). Groups
    // with no served route at all belong to a feature not installed in this build yet.
    const groupOf = (key: string) => key.split(' ')[1]!.replace(`${API}/`, '').split('/')[0]!;
    const servedGroups = new Set([...served].map(groupOf));
    const phantom = documentedRoutes().filter((r) => servedGroups.has(groupOf(r)) && !served.has(r));
    expect(phantom).toEqual([]);
    // The routes of this feature are always there.
    for (const group of ['agent', 'enrollment-agents', 'enrollment-sessions', 'docs', 'devices', 'enrollees', 'jobs']) {
      expect(servedGroups.has(group)).toBe(true);
    }
  });

  test('the comparison notices an undocumented route', () => {
    const documented = new Set(documentedRoutes());
    expect(documented.has(routeKey('GET', `${API}/agent/sessions/:id`))).toBe(true);
    expect(documented.has(routeKey('GET', `${API}/agent/sessions/:sessionId/`))).toBe(true);
    expect(documented.has(routeKey('PUT', `${API}/agent/sessions/:id`))).toBe(false);
    expect(documented.has(routeKey('GET', `${API}/agent/secrets`))).toBe(false);
  });
});

describe('the document hangs together', () => {
  test('OpenAPI 3.1 with both auth schemes and the error body', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.components.securitySchemes.AgentKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(doc.components.securitySchemes.AdminJWT).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(doc.components.schemas.Error).toMatchObject({
      properties: { error: { properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } } } },
    });
  });

  test('agent routes use the Agent key, admin routes the JWT, with 401 (and 429 for agents)', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const op of Object.values(ops)) {
        const schemes = op.security.flatMap((s) => Object.keys(s));
        if (path.startsWith(`${API}/agent/`)) {
          expect(schemes).toEqual(['AgentKey']);
          expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '429']));
        } else if (path === '/healthz' || path === '/readyz') {
          expect(schemes).toEqual([]);
        } else {
          expect(schemes).toContain('AdminJWT');
          expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403']));
        }
      }
    }
    expect(doc.paths[`${API}/enrollment-agents/`]!.post!.security).toEqual([{ AdminJWT: [] }, { OperatorToken: [] }]);
  });

  test('error responses use the error body with codes at their real status', () => {
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          const content = response.content!['application/json']!;
          expect(content.schema).toEqual({ $ref: '#/components/schemas/Error' });
          for (const example of Object.values(content.examples!)) {
            const code = example.value.error.code as keyof typeof ERROR_STATUS;
            expect<number>(ERROR_STATUS[code]).toBe(Number(status));
          }
        }
      }
    }
    const upload = doc.paths[`${API}/agent/sessions/{id}/templates/`]!.post!;
    const codes = Object.values(upload.responses).flatMap((r) => Object.keys(r.content?.['application/json']?.examples ?? {}));
    expect(codes).toEqual(
      expect.arrayContaining([
        'unauthorized',
        'rate_limited',
        'wrong_agent',
        'not_found',
        'session_closed',
        'finger_not_requested',
        'algorithm_incompatible',
        'invalid_template',
        'template_too_large',
        'validation_error',
      ]),
    );
  });

  test('every $ref resolves, operation ids are unique, path parameters are declared', () => {
    const refs = JSON.stringify(doc).match(/"#\/components\/schemas\/[^"]+"/g) ?? [];
    for (const ref of refs) expect(doc.components.schemas[ref.slice('"#/components/schemas/'.length, -1)]).toBeDefined();
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, ops] of Object.entries(doc.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      for (const op of Object.values(ops)) {
        expect(op.parameters?.filter((p) => p.in === 'path').map((p) => p.name) ?? []).toEqual(names);
      }
    }
  });

  test('the HTML page answers with and without the trailing slash and embeds the document', async () => {
    const token = await adminToken();
    for (const path of ['/docs', '/docs/']) {
      const res = await fetch(`${server.url}${API}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await res.text();
      expect(html).toContain('api-reference');
      const embedded = /<script id="fpa-openapi" type="application\/json">([\s\S]*?)<\/script>/.exec(html)?.[1];
      expect(JSON.parse(embedded!)).toEqual(doc);
    }
  });

  test('the page and the document need an administrator: a Bearer token, or ?access_token= for a browser', async () => {
    const token = await adminToken();
    for (const path of ['/docs/', '/docs/json']) {
      const anonymous = await fetch(`${server.url}${API}${path}`);
      expect(anonymous.status).toBe(401);
      expect((await anonymous.json()).error.code).toBe('unauthorized');
      const notAdmin = await fetch(`${server.url}${API}${path}?access_token=${await adminToken({ scope: 'other' })}`);
      expect(notAdmin.status).toBe(403);
      await notAdmin.text();
      const expired = await fetch(`${server.url}${API}${path}?access_token=${await adminToken({ expiresIn: '-1m' })}`);
      expect(expired.status).toBe(401);
      await expired.text();
      const browser = await fetch(`${server.url}${API}${path}?access_token=${token}`);
      expect(browser.status).toBe(200);
      // The token is never echoed back.
      expect(await browser.text()).not.toContain(token);
    }
  });
});
