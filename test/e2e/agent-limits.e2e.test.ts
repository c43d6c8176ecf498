/**
 * Time-dependent rules of the agent API with an injected clock: session expiry (lazily on
 * touch and by the expire-sessions job), AGENT_RATE_LIMIT per agent key with Retry-After, and
 * sessions started by the agent itself (AGENT_CAN_START_SESSIONS on).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { stagedTemplates } from '../../src/app/schema';
import { approvedTerminal, type CreatedAgent, createAgent, newEnrollee, startSession, templateBytes, upload } from '../support/agents';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let now = Date.UTC(2030, 0, 15, 9, 0, 0);
const clock = { now: () => now };
const MINUTE = 60_000;

beforeAll(async () => {
  server = await startTestServer({ AGENT_RATE_LIMIT: '5/10s', AGENT_CAN_START_SESSIONS: 'true', ENROLLMENT_SESSION_TTL: '5m' }, { clock });
  await approvedTerminal(server, 'LIM0000001');
});
afterAll(async () => {
  await server.close();
});

/** Each agent gets its own key and so its own rate budget. */
async function freshAgent(name: string): Promise<CreatedAgent> {
  return createAgent(server, name);
}

describe('session expiry', () => {
  test('a session past ENROLLMENT_SESSION_TTL is expired on touch: unlisted, session_closed with its reason, staged data gone', async () => {
    const agent = await freshAgent('expiry-touch');
    const person = await newEnrollee(server);
    const session = await startSession(server, person.id, agent.id, [1]);
    expect((await agent.client.post(`/sessions/${session.id}/templates/`, upload(1, templateBytes(1)))).status).toBe(200);
    now += 5 * MINUTE - 1;
    expect((await agent.client.get('/sessions/')).body.map((s: { id: string }) => s.id)).toContain(session.id);
    now += 1;
    expect((await agent.client.get('/sessions/')).body.map((s: { id: string }) => s.id)).not.toContain(session.id);
    const read = await agent.client.get(`/sessions/${session.id}/`);
    expect(read.status).toBe(409);
    expect(read.body.error).toMatchObject({
      code: 'session_closed',
      details: { session: session.id, status: 'expired', reason: 'session lifetime ended' },
    });
    expect((await server.admin.get(`/enrollment-sessions/${session.id}/`)).body).toMatchObject({ status: 'expired', reason: 'session lifetime ended' });
    for (const path of ['claim/', 'complete/', 'cancel/']) {
      now += 5000; // stay inside this agent's rate budget
      const res = await agent.client.post(`/sessions/${session.id}/${path}`);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'session_closed', details: { status: 'expired' } });
    }
    expect(await server.fpa.db.orm.select().from(stagedTemplates).where(eq(stagedTemplates.sessionId, session.id))).toEqual([]);
  });

  test('an upload or completion exactly at expiry is session_closed even before anything else touched it', async () => {
    const agent = await freshAgent('expiry-upload');
    const person = await newEnrollee(server);
    const session = await startSession(server, person.id, agent.id, [1]);
    now += 5 * MINUTE;
    const res = await agent.client.post(`/sessions/${session.id}/templates/`, upload(1, templateBytes(2)));
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('session_closed');
  });

  test('the expire-sessions job expires sessions nobody touches', async () => {
    const agent = await freshAgent('expiry-job');
    const person = await newEnrollee(server);
    const session = await startSession(server, person.id, agent.id, [2]);
    now += 6 * MINUTE;
    const run = await server.admin.post('/jobs/expire-sessions/run/');
    expect(run.status).toBe(200);
    expect(run.body.result.expired).toBeGreaterThanOrEqual(1);
    expect((await server.admin.get(`/enrollment-sessions/${session.id}/`)).body.status).toBe('expired');
  });
});

describe('AGENT_RATE_LIMIT', () => {
  test('per agent key: the sixth request in a 10 s window is 429 with Retry-After to its end and the error body; other keys are unaffected', async () => {
    now += 10_000 - (now % 10_000); // the start of a window
    const busy = await freshAgent('busy');
    const calm = await freshAgent('calm');
    for (let i = 0; i < 5; i++) {
      const res = await busy.client.get('/me/');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(4 - i));
      now += 1000;
    }
    const limited = await busy.client.get('/sessions/');
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'rate_limited', details: { limit: 5, retry_after: 5 } });
    expect(limited.headers.get('retry-after')).toBe('5');
    // Every agent request counts, whatever the endpoint or outcome.
    expect((await busy.client.post(`/sessions/${crypto.randomUUID()}/claim/`)).status).toBe(429);

    expect((await calm.client.get('/me/')).status).toBe(200);

    // Fixed windows aligned to the epoch: the next window starts the count again.
    now += 4999;
    const last = await busy.client.get('/me/');
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('1');
    now += 1;
    const fresh = await busy.client.get('/me/');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('ratelimit-remaining')).toBe('4');
    expect(fresh.headers.get('ratelimit-reset')).toBe('10');
  });

  test('requests without a valid key are 401, not counted against anyone', async () => {
    const res = await fetch(`${server.url}/api/fingerprint/v1/agent/me/`, { headers: { authorization: 'Agent fpa_zzzzzzzz_' + 'B'.repeat(43) } });
    expect(res.status).toBe(401);
  });
});

describe('sessions started by the agent (AGENT_CAN_START_SESSIONS on)', () => {
  test('by PIN or UUID; the session belongs to the calling agent and runs the whole flow', async () => {
    now += MINUTE;
    const agent = await freshAgent('self-starter');
    const person = await newEnrollee(server);
    const byPin = await agent.client.post('/sessions/', { enrollee: person.pin, fingers: [3, 1] });
    expect(byPin.status).toBe(201);
    expect(byPin.body).toMatchObject({ kind: 'agent', status: 'open', agent: agent.id, fingers_requested: [1, 3], enrollee: { id: person.id } });
    expect(Date.parse(byPin.body.expires_at)).toBe(now + 5 * MINUTE);
    const byId = await agent.client.post('/sessions', { enrollee: person.id, fingers: [2] });
    expect(byId.status).toBe(201);
    const unknown = await agent.client.post('/sessions/', { enrollee: '999999999', fingers: [1] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');

    now += 10_000;
    await agent.client.post(`/sessions/${byId.body.id}/templates/`, upload(2, templateBytes(7)));
    const done = await agent.client.post(`/sessions/${byId.body.id}/complete/`);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
  });
});
