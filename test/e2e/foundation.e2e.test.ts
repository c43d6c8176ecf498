import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('foundation through the real server', () => {
  test('healthz answers ok when the database answers', async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  test('employees, enrollees with sequential PINs, consent', async () => {
    const e1 = await server.admin.post('/employees/', { id: 'E-001', name: 'Ada Obi' });
    expect(e1.status).toBe(201);
    await server.admin.post('/employees', { id: 'E-002', name: 'Bo Li' });
    const a = await server.admin.post('/enrollees/', { employee: 'E-001' });
    expect(a.status).toBe(201);
    const b = await server.admin.post('/enrollees/', { employee: 'E-002' });
    expect(Number(b.body.device_pin)).toBe(Number(a.body.device_pin) + 1);
    expect(a.body.display_name).toBe('Ada Obi');
    expect(a.body.areas).toEqual(['default']);
    const consent = await server.admin.post(`/enrollees/${a.body.id}/consent/`, { version: 'v1', method: 'paper' });
    expect(consent.status).toBe(201);
    expect(consent.body.given_by).toBe('admin@example.com');
    const got = await server.admin.get(`/enrollees/${a.body.id}`);
    expect(got.body.consent.version).toBe('v1');
  });

  test('unknown employee and bad bodies get the error body', async () => {
    const res = await server.admin.post('/enrollees/', { employee: 'nobody' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('unknown_employee');
    const bad = await server.admin.post('/enrollees/', { wrong: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    expect(typeof bad.body.error.message).toBe('string');
  });

  test('anonymous callers are refused', async () => {
    const res = await fetch(`${server.url}/api/fingerprint/v1/devices/`);
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('unauthorized');
    // The caller is checked before the body: a bad body from nobody is still 401.
    const bad = await fetch(`${server.url}/api/fingerprint/v1/enrollees/`, {
      method: 'POST',
      body: '{"wrong":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(401);
  });

  test('unknown paths and methods under the API answer the error body', async () => {
    for (const path of ['/nope/', '/devices/X1/nope/', '/docs/no-such-asset.js']) {
      const res = await server.admin.request('GET', path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    // A known path with a method it does not serve: 405 and the methods it does.
    for (const [method, path, allow] of [
      ['PUT', '/devices/', 'GET, HEAD, POST'],
      ['DELETE', '/jobs', 'GET, HEAD'],
      ['POST', '/devices/X1/', 'DELETE, GET, HEAD, PATCH'],
      ['GET', '/jobs/check-devices/run/', 'POST'],
      ['POST', '/punches/stream/', 'GET'],
    ] as const) {
      const res = await server.admin.request(method, path);
      expect({ method, path, status: res.status, allow: res.headers.get('allow') }).toEqual({ method, path, status: 405, allow });
      expect(res.body.error.code).toBe('method_not_allowed');
    }
    // The stream asked without the WebSocket handshake.
    const plain = await server.admin.get('/punches/stream/');
    expect(plain.status).toBe(426);
    expect(plain.body.error.code).toBe('upgrade_required');
    expect(plain.headers.get('upgrade')).toBe('websocket');
  });

  test('jobs can be listed and run', async () => {
    const list = await server.admin.get('/jobs/');
    expect(list.body.results.map((j: { name: string }) => j.name)).toContain('check-devices');
    const run = await server.admin.post('/jobs/check-devices/run/');
    expect(run.status).toBe(200);
    expect(run.body.status).toBe('succeeded');
  });
});
