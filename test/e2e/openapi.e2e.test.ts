/**
 * The OpenAPI document the running app serves (generated from its routes, src/app/docs/openapi.ts):
 * it is a valid OpenAPI 3.1 document whose every schema compiles; it documents exactly the served
 * API routes, each with a success status and every error status the route can answer; admin
 * bodies refuse unknown properties and text refuses control characters, at every level. And the
 * docs page: public, same-origin only under its CSP, while the document needs an administrator.
 * test/property/openapi-conformance.property.test.ts checks the answers against the document.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { validate } from '@readme/openapi-parser';
import { Elysia, t } from 'elysia';
import { buildOpenApiDocument, documentPath } from '../../src/app/docs/openapi';
import { ERROR_STATUS } from '../../src/platform/errors';
import { Body, errors, Int, OneOf } from '../../src/platform/http/model';
import { adminToken, startTestServer, type TestServer } from '../support/harness';
import { API, type Document, fetchDocument, operationsOf, type Schema, SchemaCheck, schemasOf } from '../support/openapi';

let server: TestServer;
let doc: Document;
let check: SchemaCheck;

beforeAll(async () => {
  server = await startTestServer();
  doc = await fetchDocument(server);
  check = new SchemaCheck(doc);
});
afterAll(async () => {
  await server.close();
});

// The docs, and the API root that points to them.
const isDocsRoute = (path: string) => path === `${API}/` || path === API || path === `${API}/docs` || path.startsWith(`${API}/docs/`);

/** The API routes the app serves: under the prefix, not the catch-all, not the docs. */
function servedRoutes() {
  return server.app.routes.filter((r) => r.path.startsWith(`${API}/`) && !r.path.includes('*') && !isDocsRoute(r.path));
}

const declaredStatuses = (response: unknown): number[] =>
  response && typeof response === 'object' && !Array.isArray(response)
    ? Object.keys(response)
        .filter((k) => /^\d{3}$/.test(k))
        .map(Number)
    : [];

describe('a valid OpenAPI 3.1 document', () => {
  test('@readme/openapi-parser validates it', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    // A deep copy: the parser dereferences in place.
    const result = await validate(JSON.parse(JSON.stringify(doc)));
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  test('every schema compiles with Ajv (JSON Schema 2020-12), and every example matches its schema', () => {
    const failures: string[] = [];
    for (const [where, schema] of schemasOf(doc)) {
      try {
        check.compile(schema);
      } catch (error) {
        failures.push(`${where}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
    for (const { method, path, operation } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [name, example] of Object.entries(response.content?.['application/json']?.examples ?? {})) {
          const schema = response.content!['application/json']!.schema;
          expect({ at: `${method} ${path} ${status} ${name}`, problems: check.problems(schema, example.value) }).toEqual({
            at: `${method} ${path} ${status} ${name}`,
            problems: [],
          });
        }
      }
    }
  });

  test('operation ids are unique and every path parameter is declared, in order', () => {
    const ids = operationsOf(doc).map((o) => o.operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, operation } of operationsOf(doc)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      expect(operation.parameters?.filter((p) => p.in === 'path').map((p) => p.name) ?? []).toEqual(names);
      expect(operation.parameters?.filter((p) => p.in === 'path').every((p) => p.required) ?? true).toBe(true);
    }
  });
});

describe('the document and the served routes agree', () => {
  test('every served API route is documented with a success status and each error status it declares or implies', () => {
    const problems: string[] = [];
    for (const route of servedRoutes()) {
      const websocket = route.method === 'WS';
      const method = websocket ? 'get' : route.method.toLowerCase();
      const path = documentPath('', route.path);
      const operation = doc.paths[path]?.[method];
      if (!operation) {
        problems.push(`${route.method} ${route.path} is not documented`);
        continue;
      }
      const documented = new Set(Object.keys(operation.responses).map(Number));
      if (![...documented].some((s) => (websocket ? s === 101 : s >= 200 && s < 300))) problems.push(`${method} ${path}: no success status`);
      const expected = new Set([401, 503, ...declaredStatuses(route.hooks.response)]);
      if (!['get', 'head'].includes(method)) for (const s of [400, 413]) expected.add(s);
      if (path.includes('{')) for (const s of [400, 404]) expected.add(s);
      if (websocket) for (const s of [426, 429]) expected.add(s);
      for (const status of expected) if (!documented.has(status)) problems.push(`${method} ${path}: ${status} undocumented`);
    }
    expect(problems).toEqual([]);
  });

  test('nothing is documented that is not served', () => {
    const served = new Set(servedRoutes().map((r) => `${r.method === 'WS' ? 'get' : r.method.toLowerCase()} ${documentPath('', r.path)}`));
    expect(operationsOf(doc).filter((o) => !served.has(`${o.method} ${o.path}`))).toEqual([]);
    expect(operationsOf(doc).length).toBe(served.size);
    // The routes of every module are there, the docs and the catch-all are not.
    expect(Object.keys(doc.paths).some((p) => p.includes('/docs'))).toBe(false);
    for (const group of [
      'agent',
      'enrollment-agents',
      'enrollment-sessions',
      'devices',
      'employees',
      'enrollees',
      'punches',
      'attendance-days',
      'webhooks',
      'jobs',
    ]) {
      expect(Object.keys(doc.paths).some((p) => p.startsWith(`${API}/${group}/`))).toBe(true);
    }
  });

  test('who may call: agent routes the agent key (and 429), administrator routes the JWT, four of them the operator token too (jobs, agents, console links, user invites)', () => {
    const operator: string[] = [];
    for (const { method, path, operation } of operationsOf(doc)) {
      const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
      const statuses = Object.keys(operation.responses);
      if (path.startsWith(`${API}/agent/`)) {
        expect({ path, schemes }).toEqual({ path, schemes: ['AgentKey'] });
        expect(statuses).toEqual(expect.arrayContaining(['401', '429']));
      } else {
        expect({ path, first: schemes[0] }).toEqual({ path, first: 'AdminJWT' });
        expect(statuses).toEqual(expect.arrayContaining(['401', '403']));
      }
      if (schemes.includes('OperatorToken')) operator.push(`${method} ${path}`);
    }
    expect(operator.sort()).toEqual([`post ${API}/console-links/`, `post ${API}/enrollment-agents/`, `post ${API}/jobs/{name}/run/`, `post ${API}/users/`]);
    expect(doc.components.securitySchemes.AdminJWT).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(doc.components.securitySchemes.AgentKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(doc.components.securitySchemes.AgentKey!.description).toContain('Agent <key>');
    expect(doc.components.securitySchemes.OperatorToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-fpa-operator-token' });
  });

  test('the punch stream is a WebSocket GET: 101, 401, 426, 429', () => {
    const stream = doc.paths[`${API}/punches/stream/`]!.get!;
    expect(stream['x-websocket']).toBe(true);
    expect(Object.keys(stream.responses)).toEqual(expect.arrayContaining(['101', '401', '426', '429']));
    expect(stream.parameters?.map((p) => p.name)).toEqual(['after', 'access_token']);
  });

  test('error responses are the Error body, with example codes of their status', () => {
    expect(doc.components.schemas.Error).toMatchObject({
      properties: {
        error: {
          properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' }, request_id: { type: 'string' } },
          // Every error names its request (README "HTTP contract"): a generated client may rely on it.
          required: ['code', 'message', 'details', 'request_id'],
        },
      },
    });
    for (const { operation } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const media = response.content!['application/json']!;
        expect(media.schema).toEqual({ $ref: '#/components/schemas/Error' });
        for (const code of Object.keys(media.examples!)) expect<number | undefined>(ERROR_STATUS[code as keyof typeof ERROR_STATUS]).toBe(Number(status));
      }
    }
    // A body of another media type is 415, except on the one route that reads any (a terminal's USB file).
    expect(Object.keys(doc.paths[`${API}/areas/`]!.post!.responses)).toContain('415');
    expect(Object.keys(doc.paths[`${API}/devices/{serial}/punches/import/`]!.post!.responses)).not.toContain('415');
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
        'payload_too_large',
        'unsupported_media_type',
        'unavailable',
      ]),
    );
  });
});

/** Every subschema of a schema, `$ref`s followed (each component once). */
function* walk(schema: Schema, seen = new Set<Schema>()): Generator<Schema> {
  const resolved = check.resolve(schema);
  if (seen.has(resolved)) return;
  seen.add(resolved);
  yield resolved;
  const children: unknown[] = [
    ...Object.values((resolved.properties as Record<string, unknown>) ?? {}),
    ...Object.values((resolved.patternProperties as Record<string, unknown>) ?? {}),
    ...((resolved.anyOf as unknown[]) ?? []),
    ...((resolved.oneOf as unknown[]) ?? []),
    ...((resolved.allOf as unknown[]) ?? []),
    resolved.items,
    typeof resolved.additionalProperties === 'object' ? resolved.additionalProperties : undefined,
  ];
  for (const child of children) if (child && typeof child === 'object') yield* walk(child as Schema, seen);
}

describe('what the inputs refuse', () => {
  test('administrator bodies refuse unknown properties at every level', () => {
    const open: string[] = [];
    for (const { method, path, operation } of operationsOf(doc)) {
      if (path.startsWith(`${API}/agent/`)) continue;
      const body = operation.requestBody?.content['application/json']?.schema;
      if (!body) continue;
      for (const s of walk(body))
        if (s.type === 'object' && s.additionalProperties !== false) open.push(`${method} ${path}: ${JSON.stringify(s).slice(0, 120)}`);
    }
    expect(open).toEqual([]);
  });

  test('every free-text input refuses control characters', () => {
    const loose: string[] = [];
    const inputs = operationsOf(doc).flatMap(({ method, path, operation }) => [
      ...(operation.parameters ?? []).map((p): [string, Schema] => [`${method} ${path} ${p.in} ${p.name}`, p.schema]),
      // A file (CSV) is read by its own parser, which says which line is bad: JSON bodies are the text inputs.
      ...Object.entries(operation.requestBody?.content ?? {})
        .filter(([media]) => media === 'application/json')
        .map(([, m]): [string, Schema] => [`${method} ${path} body`, m.schema]),
    ]);
    for (const [where, schema] of inputs) {
      for (const s of walk(schema)) {
        if (s.type !== 'string' || Array.isArray(s.enum) || s.const !== undefined) continue;
        const pattern = typeof s.pattern === 'string' ? new RegExp(s.pattern, 'u') : null;
        const refuses = pattern !== null && ['a\u0000b', 'a\u0001', '\u001f', 'x\u007f'].every((v) => !pattern.test(v));
        // The template is base64 the service checks strictly (400 `invalid_template`), not text.
        if (!refuses && !String(s.description ?? '').startsWith('Standard base64')) loose.push(`${where}: ${JSON.stringify(s)}`);
      }
    }
    expect(loose).toEqual([]);
  });
});

describe('the generator', () => {
  const routes = () =>
    new Elysia()
      .get('/things', () => [], {
        query: t.Object({ limit: t.Optional(t.Integer({ minimum: 1 })), kind: t.Optional(OneOf(['a', 'b'])) }),
        response: { 200: t.Array(t.String()) },
      })
      .post('/things/:id', () => ({ n: 1 }), {
        params: t.Object({ id: t.String({ description: 'The thing.' }) }),
        body: t.Optional(Body({ n: Int({ minimum: 0 }) }, { title: 'ThingPatch' })),
        response: { 200: t.Object({ n: Int() }, { title: 'Thing' }), ...errors('conflict') },
        detail: { summary: 'Change a thing', tags: ['things'], security: [{ AdminJWT: [] }] },
      })
      .delete('/things/:id', () => undefined, { response: { 204: t.Void() } })
      .all('/*', () => 'caught').routes;

  test('reads paths, parameters, bodies, answers and implied errors from the routes', () => {
    // Read as a client reads it: the JSON text.
    const generated: Document = JSON.parse(JSON.stringify(buildOpenApiDocument(routes(), { prefix: '/base' })));
    expect(Object.keys(generated.paths)).toEqual(['/base/things/', '/base/things/{id}/']);
    const list = generated.paths['/base/things/']!.get!;
    expect(list.parameters).toEqual([
      { name: 'limit', in: 'query', required: false, schema: { minimum: 1, type: 'integer' } },
      { name: 'kind', in: 'query', required: false, schema: { type: 'string', enum: ['a', 'b'] } },
    ]);
    const change = generated.paths['/base/things/{id}/']!.post!;
    expect(change).toMatchObject({ operationId: 'post_things_by_id', summary: 'Change a thing', tags: ['things'], security: [{ AdminJWT: [] }] });
    expect(change.parameters).toEqual([
      { name: 'id', in: 'path', required: true, description: 'The thing.', schema: { description: 'The thing.', type: 'string' } },
    ]);
    expect(change.requestBody).toEqual({ required: false, content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingPatch' } } } });
    expect(Object.keys(change.responses)).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '503']);
    expect(change.responses['409']!.description).toBe('Error: `conflict`.');
    expect(generated.components.schemas.Thing).toEqual({ title: 'Thing', type: 'object', required: ['n'], properties: { n: { type: 'integer' } } });
    // A void answer has no content; a route without security documents none.
    const remove = generated.paths['/base/things/{id}/']!.delete!;
    expect(remove.responses['204']).toEqual({ description: 'No content' });
    expect(remove.security).toBeUndefined();
  });

  test('two different schemas under one title are refused', () => {
    const clash = new Elysia()
      .get('/a', () => ({ a: 'x' }), { response: t.Object({ a: t.String() }, { title: 'Same' }) })
      .get('/b', () => ({ b: 'x' }), { response: t.Object({ b: t.String() }, { title: 'Same' }) }).routes;
    expect(() => buildOpenApiDocument(clash, { prefix: '' })).toThrow(/titled Same/);
  });
});

describe('the docs page and the document', () => {
  test('the page is public, same-origin only under its CSP, private and without a referrer', async () => {
    const redirect = await fetch(`${server.url}${API}/docs`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('docs/');
    await redirect.text();

    const res = await fetch(`${server.url}${API}/docs/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toMatch(/https?:/);
    const html = await res.text();
    // No inline script or style, no handler attributes, no token anywhere.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect(html).not.toMatch(/access_token/);
    const urls = [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThanOrEqual(4);
    for (const url of urls) {
      expect(url).not.toMatch(/^(?:[a-z]+:)?\/\//i);
      if (url.startsWith('data:')) continue;
      const resolved = new URL(url, `${server.url}${API}/docs/`);
      expect(resolved.origin).toBe(new URL(server.url).origin);
      const asset = await fetch(resolved);
      expect({ url, status: asset.status }).toEqual({ url, status: 200 });
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('content-type')).toMatch(url.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    // The Swagger UI files carry its version in their names, so the long cache is never stale.
    expect(urls.some((u) => /^swagger-ui-bundle-\d+\.\d+\.\d+\.js$/.test(u))).toBe(true);
  });

  test('the init script fetches the document with a pasted token, never through a URL', async () => {
    const html = await (await fetch(`${server.url}${API}/docs/`)).text();
    const init = [...html.matchAll(/<script src="(fpa-docs-[0-9a-f]+\.js)"/g)].map((m) => m[1]!)[0]!;
    const script = await (await fetch(`${server.url}${API}/docs/${init}`)).text();
    expect(script).toContain("fetch('json'");
    expect(script).toContain("authorization: 'Bearer ' + token");
    expect(script).toContain('validatorUrl: null');
    expect(script).not.toMatch(/access_token|localStorage|sessionStorage|document\.cookie/);
  });

  test('the document needs an administrator, in the Authorization header only', async () => {
    const token = await adminToken();
    const url = `${server.url}${API}/docs/json`;
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe('unauthorized');
    // A token in the URL is not looked at.
    const inUrl = await fetch(`${url}?access_token=${token}`);
    expect(inUrl.status).toBe(401);
    await inUrl.text();
    const notAdmin = await fetch(url, { headers: { authorization: `Bearer ${await adminToken({ scope: 'other' })}` } });
    expect(notAdmin.status).toBe(403);
    await notAdmin.text();
    const expired = await fetch(url, { headers: { authorization: `Bearer ${await adminToken({ expiresIn: '-1m' })}` } });
    expect(expired.status).toBe(401);
    await expired.text();
    const ok = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('application/json');
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(ok.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await ok.json()).toEqual(doc);
    // The same document as the embedding surface hands out.
    expect<unknown>(server.fpa.openapi()).toEqual(doc);
  });
});
