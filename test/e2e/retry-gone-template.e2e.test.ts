/**
 * An operator's retry of a template write (`POST devices/{sn}/commands/{id}/retry/`) whose
 * template no longer exists is 409 with the reason: there is nothing to send. Before, it answered
 * 200 `pending` and the next poll superseded it silently. A template still there is sent again.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { approvedTerminal, drain, type EnrolledPerson, personWithFingers } from '../support/terminals';

interface Command {
  id: number;
  kind: string;
  status: string;
  payload: Record<string, unknown>;
}

let server: TestServer;
let terminal: SimulatedTerminal;
let refuse = true;
let person: EnrolledPerson;

beforeAll(async () => {
  server = await startTestServer();
  terminal = await approvedTerminal(server, 'RETRY1', ['north'], {
    respond: (c) => (refuse && c.text.startsWith('DATA UPDATE FINGERTMP') ? -9 : undefined),
  });
  person = await personWithFingers(server, 'R-1', 'north');
  await drain(terminal);
});
afterAll(async () => {
  await server.close();
});

async function failedTemplateWrites(): Promise<Command[]> {
  const res = await server.admin.get('/devices/RETRY1/commands/?limit=500&status=failed');
  expect(res.status).toBe(200);
  return (res.body.results as Command[]).filter((c) => c.kind === 'update_template');
}

describe('retrying a failed template write', () => {
  test('its template still there: it is pending again and reaches the terminal', async () => {
    const failed = await failedTemplateWrites();
    expect(failed.map((c) => c.payload.fingerIndex).sort()).toEqual([5, 6]);
    refuse = false;
    const retried = await server.admin.post(`/devices/RETRY1/commands/${failed[0]!.id}/retry/`);
    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe('pending');
    expect((await drain(terminal)).filter((t) => t.startsWith('DATA UPDATE FINGERTMP'))).toHaveLength(1);
  });

  test('its template destroyed (consent withdrawn): 409, saying the template no longer exists, and nothing is queued', async () => {
    const [left] = await failedTemplateWrites();
    expect(left).toBeDefined();
    expect((await server.admin.delete(`/enrollees/${person.id}/consent/`)).status).toBe(200);
    await drain(terminal);
    const retried = await server.admin.post(`/devices/RETRY1/commands/${left!.id}/retry/`);
    expect(retried.status).toBe(409);
    expect(retried.body.error.code).toBe('conflict');
    expect(retried.body.error.message).toContain('no longer exists');
    expect((await failedTemplateWrites()).map((c) => c.id)).toContain(left!.id);
    expect(await drain(terminal)).toEqual([]);
  });
});
