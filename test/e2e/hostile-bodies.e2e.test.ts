/**
 * Hostile input, request bodies of the JSON API: on every route that takes a body (enumerated
 * from the running app), with the right credentials and real resources in the path, a body
 * that is not JSON, truncated, binary, not UTF-8, a JSON array or string, repeats a key, nested 50,000 levels
 * deep, or over the cap (with a length or chunked) is answered 400 `validation_error` or 413
 * `payload_too_large` with the error body, and one sent with another Content-Type (or none) 415
 * `unsupported_media_type` — and the database is exactly as before.
 * The cap leaves room for an agent upload of TEMPLATE_MAX_BYTES (here set above 1 MiB).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { API_BODY_LIMIT, apiBodyLimit } from '../../src/platform/http/body';
import { approvedTerminal, type CreatedAgent, createAgent, newEnrollee, type Person, startSession, templateBytes, upload } from '../support/agents';
import { startTestServer, type TestServer } from '../support/harness';
import { tableContents } from '../support/hostile';

const API = '/api/fingerprint/v1';
/** Above 1 MiB once base64-encoded, so the cap must grow for it. */
const TEMPLATE_MAX_BYTES = 1_000_000;
const SERIAL = 'BODY0001';

let server: TestServer;
let limit: number;
let agent: CreatedAgent;
let person: Person;
let sessionId: string;
let webhookId: string;
/** Ids of the calendar, correction and pay-period resources, by path prefix. */
const ids: Record<string, string> = {};

interface Route {
  method: string;
  path: string;
  url: string;
  authorization: string;
}

/** Real resources in the path, so that only the body can be the reason for a refusal. */
function fill(path: string): string {
  const byPrefix: [RegExp, string][] = [
    [/\/devices\/:serial/, `/devices/${SERIAL}`],
    [/\/enrollees\/:id/, `/enrollees/${person.id}`],
    [/\/enrollment-agents\/:id/, `/enrollment-agents/${agent.id}`],
    [/\/agent\/sessions\/:id/, `/agent/sessions/${sessionId}`],
    [/\/webhooks\/:id/, `/webhooks/${webhookId}`],
    [/\/jobs\/:name/, '/jobs/check-devices'],
    [/\/commands\/:id/, '/commands/1'],
    [/\/keys\/:id/, '/keys/no-such-key'],
    [/\/users\/:pin/, '/users/1'],
    // People who sign in: the body is refused before the account is looked for.
    [/\/users\/:id/, '/users/no-such-user'],
    [/\/api-keys\/:id/, '/api-keys/no-such-key'],
    [/\/passkeys\/:id/, '/passkeys/no-such-passkey'],
    [/\/areas\/:name/, '/areas/default'],
    // The directory's employee: the body is refused before the employee is looked for.
    [/\/employees\/:id/, '/employees/no-such-employee'],
    ...['punches', 'holidays', 'leaves', 'weekends', 'work-schedules', 'shift-assignments', 'pay-periods'].map((name): [RegExp, string] => [
      new RegExp(`/${name}/:id`),
      `/${name}/${ids[name]}`,
    ]),
  ];
  let url = path;
  for (const [pattern, value] of byPrefix) url = url.replace(pattern, value);
  expect(url).not.toMatch(/\/:(?!message)/);
  return `${url.replace(/:message/, crypto.randomUUID())}/`;
}

function bodyRoutes(): Route[] {
  const adms = server.fpa.settings.ADMS_URL_PREFIX.replace(/\/$/, '');
  return (
    server.app.routes
      .filter((r) => r.path.startsWith(`${API}/`) && !r.path.startsWith(adms))
      .filter((r) => !['GET', 'HEAD', 'WS'].includes(r.method))
      // The catch-all that answers unknown API paths with the error body is not an endpoint.
      .filter((r) => !r.path.endsWith('/*'))
      .map((r) => ({
        method: r.method,
        path: r.path,
        url: fill(r.path),
        authorization: r.path.startsWith(`${API}/agent/`) ? `Agent ${agent.key}` : (server.admin.headers.authorization ?? ''),
      }))
  );
}

const bytes = (...parts: (string | number[])[]): Uint8Array<ArrayBuffer> =>
  new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p)))));

interface Variant {
  name: string;
  contentType: string | null;
  body: () => BodyInit;
  code: 'validation_error' | 'payload_too_large' | 'unsupported_media_type';
}

const JSON_TYPE = 'application/json';
const STATUS = { validation_error: 400, payload_too_large: 413, unsupported_media_type: 415 } as const;
const object = '{"name":"Ada","algorithm_version":"10","url":"http://127.0.0.1:9/x","id":"E-X","employee":"E-X"}';

function variants(): Variant[] {
  const huge = () => bytes(`{"name":"${'x'.repeat(limit)}"}`);
  const form = new FormData();
  form.set('name', 'Ada');
  return [
    { name: 'not JSON', contentType: JSON_TYPE, body: () => 'hello, terminal', code: 'validation_error' },
    { name: 'truncated JSON', contentType: JSON_TYPE, body: () => object.slice(0, 30), code: 'validation_error' },
    { name: 'binary bytes', contentType: JSON_TYPE, body: () => bytes([0x00, 0xff, 0xfe, 0x80, 0x81, 0x0a, 0x7b, 0xc0, 0xaf]), code: 'validation_error' },
    { name: 'invalid UTF-8 inside a string', contentType: JSON_TYPE, body: () => bytes('{"name":"', [0xc3, 0x28], '"}'), code: 'validation_error' },
    { name: 'GB18030 text', contentType: JSON_TYPE, body: () => bytes('{"name":"', [0xd5, 0xc5, 0xc8, 0xfd], '"}'), code: 'validation_error' },
    { name: 'a NUL byte', contentType: JSON_TYPE, body: () => bytes('{"name":"a', [0x00], '"}'), code: 'validation_error' },
    { name: 'a JSON array', contentType: JSON_TYPE, body: () => `[${object}]`, code: 'validation_error' },
    { name: 'a JSON string', contentType: JSON_TYPE, body: () => '"Ada"', code: 'validation_error' },
    // JSON.parse would keep the last: which one was meant is a guess.
    { name: 'a repeated key', contentType: JSON_TYPE, body: () => object.replace('{', '{"name":"Bob",'), code: 'validation_error' },
    // Another media type than JSON (or none said) is 415, not 400: the body may be fine, its type is not read here.
    { name: 'JSON sent as text/plain', contentType: 'text/plain', body: () => object, code: 'unsupported_media_type' },
    {
      name: 'a form',
      contentType: 'application/x-www-form-urlencoded',
      body: () => 'name=Ada&algorithm_version=10&employee=E-X',
      code: 'unsupported_media_type',
    },
    { name: 'XML', contentType: 'application/xml', body: () => '<name>Ada</name>', code: 'unsupported_media_type' },
    { name: 'multipart', contentType: null, body: () => form, code: 'unsupported_media_type' },
    { name: 'no Content-Type', contentType: null, body: () => bytes(object), code: 'unsupported_media_type' },
    { name: 'JSON in another charset', contentType: 'application/json; charset=iso-8859-1', body: () => object, code: 'unsupported_media_type' },
    // Refused before anything walks it recursively (the validator's error report would overflow).
    { name: 'nested 50,000 levels', contentType: JSON_TYPE, body: () => `{"name":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_001)}`, code: 'validation_error' },
    {
      name: 'arrays nested 50,000 levels',
      contentType: JSON_TYPE,
      body: () => `{"fingers":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
      code: 'validation_error',
    },
    { name: 'over the cap', contentType: JSON_TYPE, body: huge, code: 'payload_too_large' },
    {
      name: 'over the cap, chunked',
      contentType: JSON_TYPE,
      body: () => {
        const chunk = bytes('x'.repeat(64 * 1024));
        let sent = 0;
        return new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent === 0) controller.enqueue(bytes('{"name":"'));
            if (sent > limit) return controller.close();
            controller.enqueue(chunk);
            sent += chunk.byteLength;
          },
        });
      },
      code: 'payload_too_large',
    },
  ];
}

async function send(route: Route, variant: Variant) {
  const res = await fetch(`${server.url}${route.url}`, {
    method: route.method,
    headers: { authorization: route.authorization, ...(variant.contentType ? { 'content-type': variant.contentType } : {}) },
    body: variant.body(),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // reported by the assertion
  }
  return { status: res.status, contentType: res.headers.get('content-type'), json };
}

beforeAll(async () => {
  server = await startTestServer({ TEMPLATE_MAX_BYTES, AGENT_RATE_LIMIT: '100000/m', WEBHOOK_ALLOW_PRIVATE_NETWORKS: true });
  limit = apiBodyLimit(server.fpa.settings);
  agent = await createAgent(server, 'hostile-bodies');
  await approvedTerminal(server, SERIAL, { algorithm: '10' });
  person = await newEnrollee(server);
  sessionId = (await startSession(server, person.id, agent.id, [1, 2])).id;
  expect((await agent.client.post(`/sessions/${sessionId}/claim/`)).status).toBe(200);
  const hook = await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/hook' });
  expect(hook.status).toBe(201);
  webhookId = hook.body.id;
  const created = async (path: string, body: unknown, name: string) => {
    const res = await server.admin.post(path, body);
    expect(res.status).toBe(201);
    ids[name] = res.body.id;
  };
  await created('/punches/manual/', { enrollee: person.id, at: '2026-01-05T08:00:00Z', reason: 'forgot' }, 'punches');
  await created('/holidays/', { date: '2026-01-06', name: 'Epiphany' }, 'holidays');
  await created('/leaves/', { enrollee: person.id, from: '2026-01-07', to: '2026-01-08', kind: 'annual' }, 'leaves');
  await created('/weekends/', { area: 'default', days: [0, 6] }, 'weekends');
  await created('/work-schedules/', { name: 'day', start: '09:00', end: '17:00' }, 'work-schedules');
  await created('/shift-assignments/', { schedule: 'day', area: 'default', from: '2026-01-01' }, 'shift-assignments');
  await created('/pay-periods/', { from: '2026-01-01', to: '2026-01-15' }, 'pay-periods');
  // Every day those changes touch is computed before the database is compared.
  expect((await server.admin.get('/attendance-days/')).status).toBe(200);
});
afterAll(async () => {
  await server.close();
});

describe('the JSON body cap', () => {
  test('is 1 MiB, raised here so that a TEMPLATE_MAX_BYTES upload fits', () => {
    expect(API_BODY_LIMIT).toBe(1024 * 1024);
    expect(limit).toBeGreaterThan(Math.ceil(TEMPLATE_MAX_BYTES / 3) * 4);
    expect(limit).toBeGreaterThan(API_BODY_LIMIT);
  });
});

describe('bad bodies on every route that takes one', () => {
  test('are refused with 400, 413 or 415 and the error body, and nothing in the database changes', async () => {
    const routes = bodyRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(20);
    const before = await tableContents(server);
    for (const route of routes) {
      for (const variant of variants()) {
        const res = await send(route, variant);
        if (route.path === `${API}/punches/import` && variant.name === 'a JSON array') {
          // The import takes records as a JSON array: these are refused one by one, nothing stored.
          expect(res.status).toBe(200);
          expect(res.json).toMatchObject({ imported: 0, duplicates: 0, errors: [{ line: 1 }] });
          continue;
        }
        if (route.path === `${API}/employees/import` && variant.name === 'a JSON array') {
          // So does the people import (issue 26): each record refused on its own, nothing stored.
          expect(res.status).toBe(200);
          expect(res.json).toMatchObject({ created: 0, updated: 0, errors: [{ line: 1 }] });
          continue;
        }
        const label = `${route.method} ${route.path}: ${variant.name}`;
        if (route.path === `${API}/devices/:serial/punches/import`) {
          // A terminal's USB file is read as the terminal wrote it, whatever it claims to be: each
          // line that is no punch is reported and costs only itself, nothing is stored; NUL bytes
          // make it the binary file of older terminals, refused as a whole.
          if (res.status === 200) expect({ label, json: res.json }).toMatchObject({ label, json: { imported: 0, lines: 0, error_count: expect.any(Number) } });
          else
            expect({ label, status: res.status, code: (res.json as { error: { code: string } }).error.code }).toEqual({
              label,
              status: 400,
              code: 'validation_error',
            });
          continue;
        }
        expect({ label, status: res.status }).toEqual({ label, status: STATUS[variant.code] });
        expect(res.contentType).toContain('application/json');
        expect({ label, json: res.json }).toEqual({
          label,
          json: { error: { code: variant.code, message: expect.any(String), details: expect.any(Object), request_id: expect.any(String) } },
        });
      }
    }
    expect(await tableContents(server)).toEqual(before);
  });
});

describe('good bodies still work', () => {
  test('JSON with a charset parameter, and a merge-patch type', async () => {
    const created = await fetch(`${server.url}${API}/employees/`, {
      method: 'POST',
      headers: { authorization: server.admin.headers.authorization!, 'content-type': 'application/json; charset=UTF-8' },
      body: JSON.stringify({ id: 'E-CHARSET', name: 'Zhāng Sān 张三' }),
    });
    expect(created.status).toBe(201);
    expect((await created.json()).name).toBe('Zhāng Sān 张三');
    const patched = await fetch(`${server.url}${API}/devices/${SERIAL}/`, {
      method: 'PATCH',
      headers: { authorization: server.admin.headers.authorization!, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ name: 'Front door' }),
    });
    expect(patched.status).toBe(200);
  });

  test('an optional body may be left out', async () => {
    const res = await fetch(`${server.url}${API}/agent/sessions/${sessionId}/cancel/`, { method: 'POST', headers: { authorization: `Agent ${agent.key}` } });
    expect(res.status).toBe(200);
    sessionId = (await startSession(server, person.id, agent.id, [1, 2])).id;
    expect((await agent.client.post(`/sessions/${sessionId}/claim/`)).status).toBe(200);
  });

  test('an agent upload of exactly TEMPLATE_MAX_BYTES passes the cap; one byte more is template_too_large, not 413', async () => {
    const full = await agent.client.post(`/sessions/${sessionId}/templates/`, upload(1, templateBytes(7, TEMPLATE_MAX_BYTES)));
    expect(full.status).toBe(200);
    expect(full.body).toEqual({ captured: [1], remaining: [2] });
    const over = await agent.client.post(`/sessions/${sessionId}/templates/`, upload(2, templateBytes(8, TEMPLATE_MAX_BYTES + 1)));
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe('template_too_large');
  });
});
