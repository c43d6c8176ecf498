/**
 * What an API conformance tester found in the HTTP contract of `/api/fingerprint/v1/`, each
 * through the real server: a body of another media type is 415 (not 400); a JSON body that
 * repeats a key in an object is refused, naming the key and where (not read as its last value);
 * a value a union, a list of values or a format refuses is named with what it takes in words
 * (not "Expected union value" with an empty path); `?limit=1e3` is no whole number; a path under
 * `/api/` nothing serves is a 404 with the error body (not Elysia's text/plain NOT_FOUND), while
 * the console, the terminals, health, metrics and the docs answer as before.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { approvedTerminal } from '../support/agents';
import { startTestServer, type TestServer } from '../support/harness';

const API = '/api/fingerprint/v1';
const SERIAL = 'CONFORM1';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await approvedTerminal(server, SERIAL);
});
afterAll(async () => {
  await server.close();
});

/** A request with raw headers and body, answered as status, Content-Type and parsed JSON (or the text). */
async function send(method: string, path: string, init: { type?: string | null; body?: BodyInit; authorized?: boolean } = {}) {
  const headers: Record<string, string> = {};
  if (init.authorized !== false) headers.authorization = server.admin.headers.authorization!;
  if (init.type) headers['content-type'] = init.type;
  const res = await fetch(`${server.url}${path}`, { method, headers, ...(init.body === undefined ? {} : { body: init.body }) });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: kept as text for the assertion
  }
  return { status: res.status, type: res.headers.get('content-type'), json };
}

describe('a body of another media type than JSON', () => {
  test('JSON is read; a form, text, XML or no Content-Type at all is 415 unsupported_media_type, with the message and details as before', async () => {
    const created = await send('POST', `${API}/areas/`, { type: 'application/json', body: JSON.stringify({ name: 'media-ok' }) });
    expect(created.status).toBe(201);
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'application/xml', null]) {
      const res = await send('POST', `${API}/areas/`, { type, body: type === 'application/x-www-form-urlencoded' ? 'name=media-form' : '{"name":"media-x"}' });
      expect({ type, status: res.status }).toEqual({ type, status: 415 });
      expect(res.json).toEqual({
        error: {
          code: 'unsupported_media_type',
          message: 'the request body must be JSON sent as Content-Type: application/json (UTF-8)',
          details: { content_type: type },
          request_id: expect.any(String),
        },
      });
    }
    // Nothing was created by the refused ones.
    const names = (await server.admin.get('/areas/')).body.results.map((a: { name: string }) => a.name);
    expect(names.filter((n: string) => n.startsWith('media-'))).toEqual(['media-ok']);
  });

  test('an import of records: CSV or JSON is read, text/plain is 415', async () => {
    const csv = await send('POST', `${API}/punches/import/?dry_run=true`, { type: 'text/csv', body: 'employee,at\n' });
    expect(csv.status).toBe(200);
    const text = await send('POST', `${API}/punches/import/?dry_run=true`, { type: 'text/plain', body: 'employee,at\n' });
    expect([text.status, (text.json as { error: { code: string } }).error.code]).toEqual([415, 'unsupported_media_type']);
  });

  test('an anonymous caller is still told 401 first, whatever the body', async () => {
    const res = await send('POST', `${API}/areas/`, { type: 'text/plain', body: 'x', authorized: false });
    expect(res.status).toBe(401);
  });
});

describe('a JSON body that repeats a key', () => {
  const post = (path: string, body: string) => send('POST', `${API}${path}`, { type: 'application/json', body });

  test('is 400 validation_error naming the key and its path; nothing is created', async () => {
    expect((await post('/areas/', '{"name":"dup0"}')).status).toBe(201);
    const res = await post('/areas/', '{"name":"dup1","name":"dup2"}');
    expect([res.status, res.json]).toEqual([
      400,
      {
        error: {
          code: 'validation_error',
          message: 'the request body gives the key "name" more than once (at /name); give it once',
          details: { in: 'body', errors: [{ path: '/name', message: 'given more than once' }] },
          request_id: expect.any(String),
        },
      },
    ]);
    const names = (await server.admin.get('/areas/')).body.results.map((a: { name: string }) => a.name);
    expect(names.filter((n: string) => n.startsWith('dup'))).toEqual(['dup0']);
  });

  test('in any object: nested, written with an escape, in a record of an import', async () => {
    const nested = await post('/shift-assignments/batch/', '{"schedule":"x","assignments":[{"enrollee":"a","from":"2026-01-01","from":"2026-01-02"}]}');
    expect([nested.status, (nested.json as { error: { details: unknown } }).error.details]).toEqual([
      400,
      { in: 'body', errors: [{ path: '/assignments/0/from', message: 'given more than once' }] },
    ]);
    // `"\u006e\u0061\u006d\u0065"` is `name` as JSON reads it.
    const escaped = await post('/areas/', '{"name":"e1","\\u006e\\u0061\\u006d\\u0065":"e2"}');
    expect([escaped.status, (escaped.json as { error: { details: unknown } }).error.details]).toEqual([
      400,
      { in: 'body', errors: [{ path: '/name', message: 'given more than once' }] },
    ]);
    const records = await post('/punches/import/?dry_run=true', '[{"employee":"E1","at":"2026-01-05T08:00:00Z","employee":"E2"}]');
    expect([records.status, (records.json as { error: { details: unknown } }).error.details]).toEqual([
      400,
      { in: 'body', errors: [{ path: '/0/employee', message: 'given more than once' }] },
    ]);
  });

  test('the same key in two objects, or a value that repeats, is no repeat', async () => {
    const records = await post(
      '/punches/import/?dry_run=true',
      '[{"employee":"E1","at":"2026-01-05T08:00:00Z"},{"employee":"E1","at":"2026-01-05T17:00:00Z"}]',
    );
    expect(records.status).toBe(200);
    expect((await post('/areas/', '{"name":"name","description":"name"}')).status).toBe(201);
  });
});

/** The status, message and errors of an answer. */
const refusal = (res: { status: number; body: { error?: { message: string; details: { errors?: unknown } } } }) => [
  res.status,
  res.body.error?.message,
  res.body.error?.details.errors,
];

describe('a value of the wrong shape is named, with what it takes in words', () => {
  test('a command: the branch its kind names says what is missing or wrong; an unknown kind lists the kinds', async () => {
    const commands = `/devices/${SERIAL}/commands/`;
    expect((await server.admin.post(commands, { kind: 'clear_logs', confirm: SERIAL })).status).toBe(201);
    expect(refusal(await server.admin.post(commands, { kind: 'clear_logs' }))).toEqual([
      400,
      'field "confirm" is required for clear_logs',
      [{ path: '/confirm', message: 'required' }],
    ]);
    expect(refusal(await server.admin.post(commands, { kind: 'reupload_logs' }))).toEqual([
      400,
      'field "from" is required for reupload_logs',
      [{ path: '/from', message: 'required' }],
    ]);
    expect(refusal(await server.admin.post(commands, { kind: 'reupload_logs', from: 'yesterday' }))).toEqual([
      400,
      'field "from" must be a date (YYYY-MM-DD) for reupload_logs',
      [{ path: '/from', message: 'must be a date (YYYY-MM-DD)' }],
    ]);
    const kinds = 'must be one of: reboot, set_time, info, query_users, reupload_logs, clear_logs, clear_data, raw';
    expect(refusal(await server.admin.post(commands, { kind: 'bogus' }))).toEqual([400, `field "kind" ${kinds}`, [{ path: '/kind', message: kinds }]]);
    expect(refusal(await server.admin.post(commands, {}))).toEqual([400, 'field "kind" is required', [{ path: '/kind', message: 'required' }]]);
    // A property the kind does not take is named as any unknown property is.
    expect(refusal(await server.admin.post(commands, { kind: 'reboot', confirm: SERIAL }))).toEqual([
      400,
      'the request does not match the expected shape',
      [{ path: '/confirm', message: 'Unknown property' }],
    ]);
  });

  test('query parameters: a list of values, a whole number in a range, true or false', async () => {
    expect((await server.admin.get(`/devices/${SERIAL}/commands/?order=newest&limit=5`)).status).toBe(200);
    expect(refusal(await server.admin.get(`/devices/${SERIAL}/commands/?order=asc`))).toEqual([
      400,
      'query parameter "order" must be one of: oldest, newest',
      [{ path: '/order', message: 'must be one of: oldest, newest' }],
    ]);
    const limit = 'must be a whole number from 1 to 1000';
    for (const value of ['abc', '0', '1001', '1.5']) {
      expect(refusal(await server.admin.get(`/punches/?limit=${value}`))).toEqual([
        400,
        `query parameter "limit" ${limit}`,
        [{ path: '/limit', message: limit }],
      ]);
    }
    const preview = await server.admin.get('/reports/summary/preview/?from=2026-01-01&to=2026-01-31&limit=abc');
    expect(refusal(preview)[2]).toEqual([{ path: '/limit', message: 'must be a whole number from 1 to 500' }]);
    expect((await server.admin.get('/employees/?enrolled=false')).status).toBe(200);
    expect(refusal(await server.admin.get('/employees/?enrolled=yes'))).toEqual([
      400,
      'query parameter "enrolled" must be true or false',
      [{ path: '/enrolled', message: 'must be true or false' }],
    ]);
  });

  test('a body: a role not among the roles, an e-mail address that is none', async () => {
    const created = await server.admin.post('/users/', { name: 'Vera', username: 'vera', role: 'viewer', email: 'vera@example.com' });
    expect(created.status).toBe(201);
    const roles = 'must be one of: owner, admin, hr, manager, installer, viewer';
    expect(refusal(await server.admin.patch(`/users/${created.body.id}/`, { role: 'god' }))).toEqual([
      400,
      `field "role" ${roles}`,
      [{ path: '/role', message: roles }],
    ]);
    const email = await server.admin.post('/users/', { name: 'Ned', username: 'ned', role: 'viewer', email: 'not-an-email' });
    expect(refusal(email)).toEqual([400, 'field "email" must be an e-mail address', [{ path: '/email', message: 'must be an e-mail address' }]]);
    // The others missing too: each named.
    expect(refusal(await server.admin.post('/users/', { email: 'not-an-email' }))[2]).toEqual([
      { path: '/role', message: 'required' },
      { path: '/name', message: 'required' },
      { path: '/username', message: 'required' },
      { path: '/email', message: 'must be an e-mail address' },
    ]);
  });
});

describe('an integer query parameter is written in digits', () => {
  test('?limit=1000 is read; 1e3, 0x10, +7 and 7.0 (numbers Number() reads) are 400', async () => {
    expect((await server.admin.get('/punches/?limit=1000')).status).toBe(200);
    expect((await server.admin.get('/punches/?limit=007')).status).toBe(200);
    for (const value of ['1e3', '0x10', '%2B7', '7.0', '%207']) {
      const res = await server.admin.get(`/punches/?limit=${value}`);
      expect({ value, status: res.status, errors: res.body.error?.details.errors }).toEqual({
        value,
        status: 400,
        errors: [{ path: '/limit', message: 'must be a whole number from 1 to 1000' }],
      });
    }
  });
});

describe('a path under /api/ that nothing serves', () => {
  test('is 404 not_found with the error body and its request id, for any method and body, signed in or not', async () => {
    const paths = ['/api/fingerprint/v2/punches/', '/api/fingerprint/', '/api/fingerprint', '/api/', '/api', '/api/other/thing'];
    for (const path of paths) {
      for (const init of [{}, { authorized: false }, { authorized: false, type: 'application/x-www-form-urlencoded', body: 'a=1' }]) {
        const method = 'body' in init ? 'POST' : 'GET';
        const res = await send(method, path, init);
        expect({ path, method, status: res.status, type: res.type, json: res.json }).toEqual({
          path,
          method,
          status: 404,
          type: 'application/json',
          json: {
            error: {
              code: 'not_found',
              message: 'no such endpoint; the API is at /api/fingerprint/v1/',
              details: { method, path },
              request_id: expect.any(String),
            },
          },
        });
      }
    }
    const res = await fetch(`${server.url}/api/fingerprint/v2/`, { headers: { 'x-request-id': 'asked-for-v2' } });
    expect([res.headers.get('x-request-id'), ((await res.json()) as { error: { request_id: string } }).error.request_id]).toEqual([
      'asked-for-v2',
      'asked-for-v2',
    ]);
    // Under the API's version, as before: an unknown path is 404 whatever body it carries (it was 400 or 415 for the body).
    const unknown = await send('POST', `${API}/no-such-thing/`, { type: 'text/plain', body: 'x' });
    expect([unknown.status, (unknown.json as { error: { code: string } }).error.code]).toEqual([404, 'not_found']);
  });

  test('the API, its docs, the console, the terminals and health answer as before; outside /api/ a 404 stays plain', async () => {
    expect((await send('GET', `${API}/`)).status).toBe(200);
    expect((await send('GET', `${API}/punches/`)).status).toBe(200);
    expect((await send('GET', `${API}/docs/`, { authorized: false })).status).toBe(200);
    expect((await send('GET', '/console/', { authorized: false })).status).toBe(200);
    expect((await send('GET', '/healthz', { authorized: false })).json).toEqual({ status: 'ok' });
    expect((await send('GET', '/metrics')).status).toBe(200);
    const terminal = await send('GET', `/iclock/cdata?SN=${SERIAL}&options=all`, { authorized: false });
    expect([terminal.status, terminal.type?.startsWith('text/plain')]).toEqual([200, true]);
    const outside = await send('GET', '/no-such-page', { authorized: false });
    expect([outside.status, outside.json]).toEqual([404, 'NOT_FOUND']);
  });
});
