/**
 * Every request has an id: the caller's `x-request-id` (a plain token) or a new one, echoed in the
 * answer, in the error body as `error.request_id`, and in the server's log lines for it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLogger } from '../../src/platform/log';
import { adminToken, startTestServer, type TestServer } from '../support/harness';

const lines: Array<Record<string, unknown>> = [];
let server: TestServer;
const API = '/api/fingerprint/v1';

beforeAll(async () => {
  server = await startTestServer({}, { logger: createLogger('info', (line) => lines.push(JSON.parse(line))) });
});
afterAll(() => server.close());

describe('request ids', () => {
  test('a refused request: the given id is echoed, in the error body and in the log line of the refusal', async () => {
    const response = await fetch(`${server.url}${API}/enrollees/not-a-real-id/`, {
      headers: { authorization: `Bearer ${await adminToken()}`, 'x-request-id': 'support-ticket-4711' },
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-request-id')).toBe('support-ticket-4711');
    const body = (await response.json()) as { error: { code: string; request_id: string } };
    expect(body.error).toMatchObject({ code: 'not_found', request_id: 'support-ticket-4711' });
    const logged = lines.filter((l) => l.request_id === 'support-ticket-4711');
    expect(logged).toContainEqual(expect.objectContaining({ msg: 'request refused', status: 404, code: 'not_found' }));
  });

  test('without an id, or with one that could forge a log line, a new one is made and used throughout', async () => {
    for (const given of [null, 'two words', `x${'y'.repeat(200)}`, 'line\\nbreak"}']) {
      const response = await fetch(`${server.url}${API}/devices/`, { headers: given === null ? {} : { 'x-request-id': given } });
      expect(response.status).toBe(401);
      const id = response.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(((await response.json()) as { error: { request_id: string } }).error.request_id).toBe(id!);
      expect(lines.some((l) => l.request_id === id && l.status === 401)).toBe(true);
    }
  });

  test('successful answers carry the id too; two requests never share a generated one', async () => {
    const first = await fetch(`${server.url}/healthz`);
    const second = await fetch(`${server.url}/healthz`);
    expect(first.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
  });

  test('a terminal’s answer carries the id once, given or new (its route puts it among its own headers)', async () => {
    const given = await fetch(`${server.url}/iclock/getrequest?SN=REQID0001`, { headers: { 'x-request-id': 'poll-7' } });
    expect([given.status, given.headers.get('x-request-id')]).toEqual([200, 'poll-7']);
    const fresh = await fetch(`${server.url}/iclock/cdata?SN=REQID0001&options=all`);
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(fresh.headers.get('date')).toMatch(/ GMT$/);
  });

  test('log lines outside a request carry no request id', () => {
    const log = createLogger('info', (line) => lines.push(JSON.parse(line)));
    log.info('a job ran', { job: 'check-devices' });
    expect(lines.at(-1)).not.toHaveProperty('request_id');
  });
});
