/**
 * Every request has an id: the caller's `x-request-id` (a plain token) or a new one, echoed in the
 * answer, in the error body as `error.request_id`, and in the server's log lines for it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLogger } from '../../src/platform/log';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { adminToken, startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

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

  test('a refusal is logged once, on a route of a router used inside another too (remote enrollment, enrollment sessions)', async () => {
    const terminal = new SimulatedTerminal({ url: server.url, sn: 'REQID0002' });
    await terminal.handshake();
    await terminal.postOptions();
    expect((await server.admin.post('/devices/REQID0002/approve/')).status).toBe(200);
    await drain(terminal);
    await server.admin.post('/employees/', { id: 'RID-1', name: 'Rid One' });
    const person = (await server.admin.post('/enrollees/', { employee: 'RID-1', areas: ['north'] })).body as { id: string };
    await server.admin.post(`/enrollees/${person.id}/consent/`, { version: 'v1', method: 'paper' });
    expect((await server.admin.post('/areas/', { name: 'south' })).status).toBe(201);
    const agent = await server.admin.post('/enrollment-agents/', { name: 'South desk', algorithm_version: '10', areas: ['south'] });
    expect(agent.status).toBe(201);
    const refusals = [
      await server.admin.post(`/enrollees/${person.id}/remote-enrollment/`, { device: 'REQID0002', type: 'face' }),
      await server.admin.post('/enrollment-sessions/', { enrollee: person.id, agent: agent.body.id, fingers: [1] }),
      await server.admin.patch(`/enrollees/${person.id}/`, { card: '12a' }),
    ];
    expect(refusals.map((r) => [r.status, r.body.error.code])).toEqual([
      [422, 'command_not_supported'],
      [422, 'not_in_scope'],
      [422, 'invalid_card'],
    ]);
    for (const refused of refusals) {
      const logged = lines.filter((l) => l.request_id === refused.body.error.request_id && l.msg === 'request refused');
      expect({ code: refused.body.error.code, logged: logged.length }).toEqual({ code: refused.body.error.code, logged: 1 });
    }
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
