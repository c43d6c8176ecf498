/**
 * What an API conformance tester found in the HTTP contract of `/api/fingerprint/v1/`, each
 * through the real server: a body of another media type is 415 (not 400); a JSON body that
 * repeats a key in an object is refused, naming the key and where (not read as its last value).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../support/harness';

const API = '/api/fingerprint/v1';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
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
