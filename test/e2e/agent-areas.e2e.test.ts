/**
 * Desktop enrollment agents have areas, as accounts and API keys do: an agent enrolls the people
 * of its areas (none: everyone), an HR officer limited to areas creates agents for them, sees
 * those that may enroll its people and revokes only those wholly its own, and an area an agent
 * serves is not removed from under it. Through the
 * real server, as an administrator of every area, one of north, and an agent.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { agentClient } from '../support/agents';
import { type ApiClient, clientAs, startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let hrNorth: ApiClient;
let north: string;
let south: string;

async function person(employee: string, areas: string[]): Promise<string> {
  expect((await server.admin.post('/employees/', { id: employee, name: `Person ${employee}` })).status).toBe(201);
  const r = await server.admin.post('/enrollees/', { employee, areas });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

async function agent(client: ApiClient, name: string, areas?: string[]): Promise<{ id: string; key: string; areas: string[] }> {
  const r = await client.post('/enrollment-agents/', { name, algorithm_version: '10', ...(areas ? { areas } : {}) });
  expect({ name, status: r.status }).toEqual({ name, status: 201 });
  return r.body;
}

beforeAll(async () => {
  server = await startTestServer({ AGENT_CAN_START_SESSIONS: 'true' });
  for (const name of ['north', 'south', 'east']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
  north = await person('E-NORTH', ['north']);
  south = await person('E-SOUTH', ['south']);
  hrNorth = await clientAs(server, 'hr', ['north']);
});
afterAll(async () => {
  await server.close();
});

describe('an HR officer of north', () => {
  test('creates agents for north only: its own areas when it names none, 403 for another area', async () => {
    expect((await agent(hrNorth, 'North desk')).areas).toEqual(['north']);
    expect((await agent(hrNorth, 'North desk 2', ['north'])).areas).toEqual(['north']);
    const refused = await hrNorth.post('/enrollment-agents/', { name: 'South desk', algorithm_version: '10', areas: ['north', 'south'] });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect(refused.body.error.details.areas).toEqual(['south']);
  });

  test('sees the agents that may enroll its people, and revokes only those wholly of its areas', async () => {
    const everywhere = await agent(server.admin, 'Head office');
    const southDesk = await agent(server.admin, 'South desk', ['south']);
    const both = await agent(server.admin, 'Both desks', ['south', 'north']);
    expect(everywhere.areas).toEqual([]);
    expect(both.areas).toEqual(['north', 'south']);

    const seen = await hrNorth.get('/enrollment-agents/?limit=100');
    expect(seen.status).toBe(200);
    const names = (seen.body.results as { name: string }[]).map((a) => a.name).sort();
    // The shared desk of every area enrolls north's people too: it is seen, not the south desk.
    expect(names).toEqual(['Both desks', 'Head office', 'North desk', 'North desk 2']);
    const all = await server.admin.get('/enrollment-agents/?limit=100');
    expect((all.body.results as { name: string }[]).map((a) => a.name).sort()).toEqual([
      'Both desks',
      'Head office',
      'North desk',
      'North desk 2',
      'South desk',
    ]);

    expect((await hrNorth.get(`/enrollment-agents/${southDesk.id}/`)).status).toBe(404);
    expect((await hrNorth.post(`/enrollment-agents/${southDesk.id}/revoke/`)).status).toBe(404);
    expect((await hrNorth.delete(`/enrollment-agents/${southDesk.id}/`)).status).toBe(404);
    expect((await hrNorth.get(`/enrollment-agents/${both.id}/`)).body.areas).toEqual(['north', 'south']);
    expect((await hrNorth.get(`/enrollment-agents/${everywhere.id}/`)).body.areas).toEqual([]);
    const shared = await hrNorth.post(`/enrollment-agents/${both.id}/revoke/`);
    expect(shared.status).toBe(403);
    expect(shared.body.error.details.outside).toEqual(['south']);
    const ofEveryone = await hrNorth.delete(`/enrollment-agents/${everywhere.id}/`);
    expect(ofEveryone.status).toBe(403);
    expect(ofEveryone.body.error.details.outside).toEqual(['every area']);
    // Nothing was revoked by the refusals.
    for (const a of [everywhere, southDesk, both]) expect((await server.admin.get(`/enrollment-agents/${a.id}/`)).body.status).toBe('active');
    const own = await agent(hrNorth, 'North spare');
    const revoked = await hrNorth.post(`/enrollment-agents/${own.id}/revoke/`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');
  });
});

describe('an agent of some areas', () => {
  test('is given sessions for people of its areas only; an administrator is told why', async () => {
    const northDesk = await agent(server.admin, 'North kiosk', ['north']);
    const refused = await server.admin.post('/enrollment-sessions/', { enrollee: south, agent: northDesk.id, fingers: [6] });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('not_in_scope');
    expect(refused.body.error.details.areas).toEqual(['north']);
    const started = await server.admin.post('/enrollment-sessions/', { enrollee: north, agent: northDesk.id, fingers: [6] });
    expect(started.status).toBe(201);
    // An agent of every area enrolls anyone.
    const everywhere = await agent(server.admin, 'Roaming laptop');
    expect((await server.admin.post('/enrollment-sessions/', { enrollee: south, agent: everywhere.id, fingers: [6] })).status).toBe(201);
  });

  test('starting its own session, learns nothing of a person outside its areas (404, as for nobody)', async () => {
    const southDesk = await agent(server.admin, 'South kiosk', ['south']);
    const client = agentClient(server, southDesk.key);
    const outside = await client.post('/sessions/', { enrollee: north, fingers: [7] });
    expect(outside.status).toBe(404);
    expect(outside.body.error.code).toBe('not_found');
    const nobody = await client.post('/sessions/', { enrollee: 'no-such-person', fingers: [7] });
    expect(nobody.status).toBe(404);
    expect(Object.keys(outside.body.error.details)).toEqual(Object.keys(nobody.body.error.details));
    // Nor whether such a person is deactivated: the areas are checked before anything else.
    const gone = await person('E-NORTH-GONE', ['north']);
    expect((await server.admin.patch(`/enrollees/${gone}/`, { active: false })).status).toBe(200);
    const deactivated = await client.post('/sessions/', { enrollee: gone, fingers: [7] });
    expect({ status: deactivated.status, code: deactivated.body.error.code }).toEqual({ status: 404, code: 'not_found' });
    const own = await client.post('/sessions/', { enrollee: south, fingers: [7] });
    expect(own.status).toBe(201);
    expect(own.body.enrollee.id).toBe(south);
  });

  test('an HR officer cannot start a session at an agent it does not see: 404, not a hint of its areas', async () => {
    const southOnly = await agent(server.admin, 'South only', ['south']);
    const both = await person('E-BOTH', ['north', 'south']);
    for (const enrollee of [both, north]) {
      const r = await hrNorth.post('/enrollment-sessions/', { enrollee, agent: southOnly.id, fingers: [8] });
      expect({ status: r.status, code: r.body.error.code, areas: r.body.error.details.areas }).toEqual({ status: 404, code: 'not_found', areas: undefined });
    }
  });
});

test('an area a live agent serves is not removed; once the agent is revoked, it is', async () => {
  const eastDesk = await agent(server.admin, 'East desk', ['east']);
  const inUse = await server.admin.delete('/areas/east/');
  expect(inUse.status).toBe(409);
  expect(inUse.body.error.details.usage.agents).toBe(1);
  expect((await server.admin.post(`/enrollment-agents/${eastDesk.id}/revoke/`)).status).toBe(200);
  expect([200, 204]).toContain((await server.admin.delete('/areas/east/')).status);
  // Its area gone, the revoked agent is still east's, not one of every area: north does not see it.
  expect((await hrNorth.get(`/enrollment-agents/${eastDesk.id}/`)).status).toBe(404);
  const listed = await hrNorth.get('/enrollment-agents/?limit=100');
  expect((listed.body.results as { id: string }[]).some((a) => a.id === eastDesk.id)).toBe(false);
  expect((await server.admin.get(`/enrollment-agents/${eastDesk.id}/`)).body.status).toBe('revoked');
});
