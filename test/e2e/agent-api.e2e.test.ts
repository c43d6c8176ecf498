/**
 * The agent path end to end through the real server: an administrator creates an agent and a
 * session, the agent lists, claims, uploads and completes, and the templates end up encrypted
 * in the database and queued to the terminal. Then every error of the agent API.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { agents, auditLog, enrollmentSessions, stagedTemplates, templates } from '../../src/app/schema';
import { stagedAad, templateAad } from '../../src/modules/enrollment/aad';
import { parseAgentKey } from '../../src/platform/crypto/agent-keys';
import {
  agentClient,
  answerInventory,
  approvedTerminal,
  b64,
  type CreatedAgent,
  containsBytes,
  createAgent,
  newEnrollee,
  nextPoll,
  startSession,
  templateBytes,
  upload,
} from '../support/agents';
import { ApiClient, adminToken, startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let agent: CreatedAgent;
let other: CreatedAgent;
const SERIAL = 'AGT0000001';

beforeAll(async () => {
  server = await startTestServer({
    FINGERS_REQUIRED_MIN: '2',
    FINGERS_ALLOWED_MAX: '3',
    TEMPLATE_MAX_BYTES: '2048',
    ALGORITHM_COMPATIBILITY_MAP: '{"11":["10"]}',
    AGENT_RATE_LIMIT: '1000/m',
  });
  await approvedTerminal(server, SERIAL);
  // It says who it holds (nobody) before anything about a PIN goes to it.
  await answerInventory(server, SERIAL);
  agent = await createAgent(server, 'Front desk reader');
  other = await createAgent(server, 'Back office reader');
});
afterAll(async () => {
  await server.close();
});

const db = () => server.fpa.db.orm;
const keyRing = () => server.fpa.service.runtime.keyRing;

describe('the whole agent flow', () => {
  test('admin creates a session; the agent lists, claims, uploads, completes; templates are stored encrypted and queued', async () => {
    const person = await newEnrollee(server);
    const created = await server.admin.post('/enrollment-sessions/', { enrollee: person.id, agent: agent.id, fingers: [6, 1] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'agent', status: 'open', agent: agent.id, fingers_requested: [1, 6], fingers_captured: [] });
    expect(created.body.enrollee).toEqual({ id: person.id, display_name: expect.any(String), device_pin: person.pin });
    const id: string = created.body.id;

    const me = await agent.client.get('/me/');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      name: 'Front desk reader',
      algorithm_version: '10',
      allowed_fingers: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      limits: {
        template_max_bytes: 2048,
        fingers_required_min: 2,
        fingers_allowed_max: 3,
        session_ttl_seconds: 600,
        rate_limit: { requests: 1000, window_seconds: 60 },
      },
    });
    expect(Math.abs(Date.parse(me.body.server_time) - Date.now())).toBeLessThan(60_000);
    expect(me.headers.get('ratelimit-limit')).toBe('1000');

    for (const path of ['/sessions/', '/sessions']) {
      const list = await agent.client.get(path);
      expect(list.status).toBe(200);
      expect(Array.isArray(list.body)).toBe(true);
      const mine = list.body.find((s: { id: string }) => s.id === id);
      expect(mine).toMatchObject({ id, status: 'open', fingers_requested: [1, 6], enrollee: { id: person.id, device_pin: person.pin } });
      expect(typeof mine.enrollee.display_name).toBe('string');
      expect(Date.parse(mine.expires_at)).toBeGreaterThan(Date.now());
    }
    // The other agent does not see it.
    expect((await other.client.get('/sessions/')).body.some((s: { id: string }) => s.id === id)).toBe(false);

    const claimed = await agent.client.post(`/sessions/${id}/claim/`);
    expect(claimed.status).toBe(200);
    expect(claimed.body.status).toBe('in_progress');
    expect((await agent.client.post(`/sessions/${id}/claim`)).body.status).toBe('in_progress');

    const first = templateBytes(1);
    const replacement = templateBytes(2);
    const six = templateBytes(6);
    const up1 = await agent.client.post(`/sessions/${id}/templates/`, upload(1, first));
    expect(up1.status).toBe(200);
    expect(up1.body).toEqual({ captured: [1], remaining: [6] });
    const again = await agent.client.post(`/sessions/${id}/templates`, upload(1, replacement));
    expect(again.body).toEqual({ captured: [1], remaining: [6] });

    // Staged encrypted, replaced with a new revision, bound to the session.
    const staged = await db()
      .select()
      .from(stagedTemplates)
      .where(and(eq(stagedTemplates.sessionId, id), eq(stagedTemplates.fingerIndex, 1)))
      .limit(1)
      .then((r) => r[0]);
    expect(staged!.revision).toBe(2);
    expect(staged!.keyId).toBe(keyRing().primaryKeyId);
    expect(containsBytes(staged!.ciphertext, replacement.subarray(0, 64))).toBe(false);
    expect(Buffer.from(await keyRing().decrypt(staged!.ciphertext, stagedAad(id, 1, 2))).equals(Buffer.from(replacement))).toBe(true);
    await expect(keyRing().decrypt(staged!.ciphertext, stagedAad(id, 1, 1))).rejects.toThrow();

    const up6 = await agent.client.post(`/sessions/${id}/templates/`, upload(6, six));
    expect(up6.body).toEqual({ captured: [1, 6], remaining: [] });

    const done = await agent.client.post(`/sessions/${id}/complete/`);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(done.body.templates).toEqual([
      { finger_index: 1, algorithm_version: '10', version: 1, queued_to: 1, incompatible: 0 },
      { finger_index: 6, algorithm_version: '10', version: 1, queued_to: 1, incompatible: 0 },
    ]);

    // Stored encrypted under the key ring, never in clear.
    const rows = await db().select().from(templates).where(eq(templates.enrolleeId, person.id));
    expect(rows.map((r) => r.fingerIndex).sort()).toEqual([1, 6]);
    for (const row of rows) {
      const expected = row.fingerIndex === 1 ? replacement : six;
      expect(row.source).toBe('agent');
      expect(row.sizeBytes).toBe(expected.byteLength);
      expect(containsBytes(row.ciphertext, expected.subarray(0, 64))).toBe(false);
      const plain = await keyRing().decrypt(row.ciphertext, templateAad(person.id, row.fingerIndex, row.version));
      expect(Buffer.from(plain).equals(Buffer.from(expected))).toBe(true);
    }
    expect(await db().select().from(stagedTemplates).where(eq(stagedTemplates.sessionId, id))).toEqual([]);

    // The terminal's next poll carries both fingers for this PIN.
    const poll = await nextPoll(server, SERIAL);
    const lines = poll.split('\n').filter((l) => l.includes('DATA UPDATE FINGERTMP'));
    const finger1 = lines.find((l) => new RegExp(`PIN=${person.pin}\\tFID=1\\t`).test(l));
    expect(finger1).toBeDefined();
    expect(finger1).toContain(`TMP=${b64(replacement)}`);
    expect(lines.some((l) => new RegExp(`PIN=${person.pin}\\tFID=6\\t`).test(l))).toBe(true);

    // Closed: every agent request refused, a read included, whose details still say why.
    const read = await agent.client.get(`/sessions/${id}/`);
    expect(read.status).toBe(409);
    expect(read.body.error).toEqual({
      code: 'session_closed',
      message: expect.any(String),
      details: { session: id, status: 'completed', reason: null },
      request_id: read.headers.get('x-request-id'),
    });
    expect((await agent.client.get('/sessions/')).body.some((s: { id: string }) => s.id === id)).toBe(false);
    for (const path of ['claim/', 'complete/', 'cancel/']) {
      const res = await agent.client.post(`/sessions/${id}/${path}`);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'session_closed', details: { status: 'completed' } });
    }
    const late = await agent.client.post(`/sessions/${id}/templates/`, upload(1, first));
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('session_closed');

    const adminView = await server.admin.get(`/enrollment-sessions/${id}/`);
    expect(adminView.body).toMatchObject({ id, status: 'completed', fingers_captured: [1, 6] });
    const enrollee = await server.admin.get(`/enrollees/${person.id}/`);
    expect(enrollee.body.fingers).toEqual([1, 6]);
  });

  test('a later session may add one finger: existing plus new count towards FINGERS_REQUIRED_MIN', async () => {
    const person = await newEnrollee(server);
    const s1 = await startSession(server, person.id, agent.id, [2, 3]);
    await agent.client.post(`/sessions/${s1.id}/templates/`, upload(2, templateBytes(20)));
    await agent.client.post(`/sessions/${s1.id}/templates/`, upload(3, templateBytes(30)));
    expect((await agent.client.post(`/sessions/${s1.id}/complete/`)).status).toBe(200);
    // An unclaimed (open) session takes uploads and completes too.
    const s2 = await startSession(server, person.pin, agent.id, [3]);
    await agent.client.post(`/sessions/${s2.id}/templates/`, upload(3, templateBytes(31)));
    const done = await agent.client.post(`/sessions/${s2.id}/complete/`);
    expect(done.status).toBe(200);
    expect(done.body.templates).toEqual([{ finger_index: 3, algorithm_version: '10', version: 2, queued_to: 1, incompatible: 0 }]);
  });
});

describe('agents, keys and administrators', () => {
  test('the key is shown once at creation, never listed, stored only as a digest', async () => {
    const res = await server.admin.post('/enrollment-agents', { name: 'Kiosk', algorithm_version: '10' });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^fpa_[a-z2-7]{8}_[A-Za-z0-9_-]{43}$/);
    expect(res.body).toMatchObject({ name: 'Kiosk', algorithm_version: '10', status: 'active', created_by: 'admin@example.com', revoked_at: null });
    const list = await server.admin.get('/enrollment-agents/');
    expect(list.status).toBe(200);
    expect(list.body.results.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(list.body)).not.toContain(res.body.key);
    expect(list.body.results.every((a: Record<string, unknown>) => !('key' in a) && !('key_digest' in a))).toBe(true);
    const one = await server.admin.get(`/enrollment-agents/${res.body.id}`);
    expect(one.body.key).toBeUndefined();
    const row = await db()
      .select()
      .from(agents)
      .where(eq(agents.id, res.body.id))
      .limit(1)
      .then((r) => r[0]);
    expect(row!.keyDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(res.body.key);
    const audited = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'agent.created'), eq(auditLog.targetId, res.body.id)));
    expect(audited).toHaveLength(1);
    expect(JSON.stringify(audited)).not.toContain(res.body.key);
  });

  test('agent lists page with a cursor and filter by status', async () => {
    const first = await server.admin.get('/enrollment-agents/?limit=1');
    expect(first.body.results).toHaveLength(1);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await server.admin.get(`/enrollment-agents/?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.results[0].id).not.toBe(first.body.results[0].id);
    expect((await server.admin.get('/enrollment-agents/?cursor=nonsense')).body.error.code).toBe('invalid_cursor');
    expect((await server.admin.get('/enrollment-agents/?status=bogus')).status).toBe(400);
  });

  test('revocation (POST revoke/ and DELETE) refuses the key, cancels open sessions and is audited', async () => {
    const doomed = await createAgent(server, 'Doomed');
    const person = await newEnrollee(server);
    const session = await startSession(server, person.id, doomed.id, [4, 5]);
    await doomed.client.post(`/sessions/${session.id}/templates/`, upload(4, templateBytes(40)));
    expect((await doomed.client.get('/me/')).status).toBe(200);

    const revoked = await server.admin.post(`/enrollment-agents/${doomed.id}/revoke/`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');
    expect(revoked.body.last_used_at).toEqual(expect.any(String));
    const denied = await doomed.client.get('/me/');
    expect(denied.status).toBe(401);
    expect(denied.body.error.code).toBe('unauthorized');
    const closed = await server.admin.get(`/enrollment-sessions/${session.id}/`);
    expect(closed.body).toMatchObject({ status: 'cancelled', reason: 'agent revoked' });
    expect(await db().select().from(stagedTemplates).where(eq(stagedTemplates.sessionId, session.id))).toEqual([]);
    // Revoking again is harmless; DELETE does the same.
    expect((await server.admin.post(`/enrollment-agents/${doomed.id}/revoke`)).status).toBe(200);
    const viaDelete = await createAgent(server, 'Deleted');
    const del = await server.admin.delete(`/enrollment-agents/${viaDelete.id}/`);
    expect(del.status).toBe(200);
    expect(del.body.status).toBe('revoked');
    expect((await viaDelete.client.get('/me')).status).toBe(401);
    expect((await server.admin.get('/enrollment-agents/?status=revoked')).body.results.map((a: { id: string }) => a.id)).toEqual(
      expect.arrayContaining([doomed.id, viaDelete.id]),
    );
    const audited = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'agent.revoked'), eq(auditLog.targetId, doomed.id)));
    expect(audited).toHaveLength(1);

    const refused = await server.admin.post('/enrollment-sessions/', { enrollee: person.id, agent: doomed.id, fingers: [4] });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('agent_revoked');
    expect((await server.admin.post('/enrollment-agents/00000000-0000-0000-0000-000000000000/revoke/')).status).toBe(404);
  });

  test('administrator endpoints refuse anonymous callers and non-admin tokens', async () => {
    const anonymous = new ApiClient(`${server.url}/api/fingerprint/v1`);
    const person = await newEnrollee(server);
    for (const [method, path, body] of [
      ['POST', '/enrollment-agents/', { name: 'x', algorithm_version: '10' }],
      ['GET', '/enrollment-agents/', undefined],
      ['POST', `/enrollment-agents/${agent.id}/revoke/`, {}],
      ['DELETE', `/enrollment-agents/${agent.id}/`, undefined],
      ['POST', '/enrollment-sessions/', { enrollee: person.id, agent: agent.id, fingers: [1] }],
      ['GET', '/enrollment-sessions/', undefined],
    ] as const) {
      const res = await anonymous.request(method, path, body);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    const weak = new ApiClient(`${server.url}/api/fingerprint/v1`, { authorization: `Bearer ${await adminToken({ scope: 'read' })}` });
    expect((await weak.post('/enrollment-agents/', { name: 'x', algorithm_version: '10' })).status).toBe(403);
    // An agent key is no administrator credential.
    const agentAsAdmin = new ApiClient(`${server.url}/api/fingerprint/v1`, { authorization: `Agent ${agent.key}` });
    expect((await agentAsAdmin.get('/enrollment-agents/')).status).toBe(401);
  });

  test('session creation validates enrollee, agent and fingers', async () => {
    const person = await newEnrollee(server);
    const unknownEnrollee = await server.admin.post('/enrollment-sessions/', { enrollee: crypto.randomUUID(), agent: agent.id, fingers: [1] });
    expect(unknownEnrollee.status).toBe(404);
    expect(unknownEnrollee.body.error).toMatchObject({ code: 'not_found', details: { enrollee: expect.any(String) } });
    const unknownAgent = await server.admin.post('/enrollment-sessions/', { enrollee: person.id, agent: crypto.randomUUID(), fingers: [1] });
    expect(unknownAgent.status).toBe(404);
    expect(unknownAgent.body.error.details.agent).toEqual(expect.any(String));
    const badFinger = await server.admin.post('/enrollment-sessions/', { enrollee: person.id, agent: agent.id, fingers: [12] });
    expect(badFinger.status).toBe(422);
    expect(badFinger.body.error.code).toBe('finger_not_allowed');
    const tooMany = await server.admin.post('/enrollment-sessions/', { enrollee: person.id, agent: agent.id, fingers: [1, 2, 3, 4] });
    expect(tooMany.body.error.code).toBe('too_many_fingers');
    const empty = await server.admin.post('/enrollment-sessions/', { enrollee: person.id, agent: agent.id, fingers: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('validation_error');
    await server.admin.patch(`/enrollees/${person.id}/`, { active: false });
    const inactive = await server.admin.post('/enrollment-sessions/', { enrollee: person.id, agent: agent.id, fingers: [1] });
    expect(inactive.status).toBe(409);
    expect(inactive.body.error.code).toBe('enrollee_inactive');
  });

  test('sessions list by status, agent and enrollee with cursor paging', async () => {
    const person = await newEnrollee(server);
    const a = await startSession(server, person.id, other.id, [1, 2]);
    const b = await startSession(server, person.id, other.id, [2, 3]);
    const byEnrollee = await server.admin.get(`/enrollment-sessions/?enrollee=${person.id}`);
    expect(byEnrollee.body.results.map((s: { id: string }) => s.id)).toEqual([b.id, a.id]);
    const byPin = await server.admin.get(`/enrollment-sessions/?enrollee=${person.pin}&status=open&agent=${other.id}`);
    expect(byPin.body.results).toHaveLength(2);
    const paged = await server.admin.get(`/enrollment-sessions/?enrollee=${person.id}&limit=1`);
    expect(paged.body.results[0].id).toBe(b.id);
    const next = await server.admin.get(`/enrollment-sessions?enrollee=${person.id}&limit=1&cursor=${paged.body.next_cursor}`);
    expect(next.body.results[0].id).toBe(a.id);
    expect(next.body.next_cursor).toBeNull();
    expect((await server.admin.get(`/enrollment-sessions/?agent=${agent.id}&enrollee=${person.id}`)).body.results).toEqual([]);
    expect((await server.admin.get('/enrollment-sessions/?status=nope')).body.error.code).toBe('validation_error');
    expect((await server.admin.get(`/enrollment-sessions/${crypto.randomUUID()}/`)).status).toBe(404);
  });
});

/** The same key with its first secret character changed (still well-formed). */
function tamper(key: string): string {
  const at = 'fpa_xxxxxxxx_'.length;
  return `${key.slice(0, at)}${key[at] === 'A' ? 'B' : 'A'}${key.slice(at + 1)}`;
}

describe('agent API errors', () => {
  test('a missing, malformed, unknown or non-agent credential is 401 with the error body', async () => {
    expect(parseAgentKey(tamper(agent.key))).toEqual(parseAgentKey(agent.key));
    const base = `${server.url}/api/fingerprint/v1/agent`;
    const wellFormedButUnknown = `fpa_abcdefgh_${'A'.repeat(43)}`;
    const cases: Record<string, string>[] = [
      {},
      { authorization: 'Agent' },
      { authorization: 'Agent not-a-key' },
      { authorization: `Agent ${wellFormedButUnknown}` },
      // Right prefix, wrong secret: found by prefix, refused by the digest.
      { authorization: `Agent ${tamper(agent.key)}` },
      { authorization: `Bearer ${await adminToken()}` },
    ];
    for (const headers of cases) {
      const res = await fetch(`${base}/me/`, { headers });
      expect(res.status).toBe(401);
      const body = (await res.json()) as { error: { code: string; message: string; details: unknown } };
      expect(body.error.code).toBe('unauthorized');
      expect(typeof body.error.message).toBe('string');
      expect(body.error.details).toEqual({});
    }
    // The key is checked before the body: an anonymous caller learns nothing about the shape.
    const anonymousUpload = await fetch(`${base}/sessions/${crypto.randomUUID()}/templates/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ wrong: true }),
    });
    expect(anonymousUpload.status).toBe(401);
    // The scheme is case-insensitive, as HTTP auth schemes are.
    expect((await fetch(`${base}/me`, { headers: { authorization: `agent ${agent.key}` } })).status).toBe(200);
  });

  test('another agent’s session is wrong_agent (403); an unknown session is 404', async () => {
    const person = await newEnrollee(server);
    const session = await startSession(server, person.id, agent.id, [1, 2]);
    const requests = [
      other.client.get(`/sessions/${session.id}/`),
      other.client.post(`/sessions/${session.id}/claim/`),
      other.client.post(`/sessions/${session.id}/templates/`, upload(1, templateBytes(9))),
      other.client.post(`/sessions/${session.id}/complete/`),
      other.client.post(`/sessions/${session.id}/cancel/`, { reason: 'not mine' }),
    ];
    for (const res of await Promise.all(requests)) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'wrong_agent', details: { session: session.id } });
    }
    expect((await agent.client.get(`/sessions/${session.id}/`)).body.status).toBe('open');
    const missing = await agent.client.post(`/sessions/${crypto.randomUUID()}/claim/`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  test('upload rules: finger_not_requested, algorithm_incompatible, invalid_template, template_too_large', async () => {
    const person = await newEnrollee(server);
    const { id } = await startSession(server, person.id, agent.id, [1, 2]);
    const post = (body: unknown) => agent.client.post(`/sessions/${id}/templates/`, body);

    const notRequested = await post(upload(3, templateBytes(3)));
    expect(notRequested.status).toBe(422);
    expect(notRequested.body.error).toMatchObject({ code: 'finger_not_requested', details: { finger_index: 3, fingers_requested: [1, 2] } });

    const wrongAlgorithm = await post(upload(1, templateBytes(3), '9'));
    expect(wrongAlgorithm.status).toBe(422);
    expect(wrongAlgorithm.body.error).toMatchObject({
      code: 'algorithm_incompatible',
      details: { reason: 'agent_algorithm_mismatch', agent_algorithm_version: '10' },
    });

    for (const template of ['not base64!!', 'AAE', 'AAF=', 'AA==AA==', ' AAAA', 'AAAA\n', '']) {
      const res = await post({ finger_index: 1, algorithm_version: '10', template, quality: 50 });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_template');
    }

    const tooLarge = await post(upload(1, templateBytes(4, 2049)));
    expect(tooLarge.status).toBe(422);
    expect(tooLarge.body.error).toMatchObject({ code: 'template_too_large', details: { max: 2048 } });
    const hugeText = await post({ finger_index: 1, algorithm_version: '10', template: 'A'.repeat(200_000), quality: 1 });
    expect(hugeText.body.error.code).toBe('template_too_large');
    expect((await post(upload(1, templateBytes(4, 2048)))).status).toBe(200);

    const shapeless = await post({ finger_index: 'one', template: 5 });
    expect(shapeless.status).toBe(400);
    expect(shapeless.body.error.code).toBe('validation_error');
    // Nothing of the refused uploads was staged.
    expect((await agent.client.get(`/sessions/${id}/`)).body.fingers_captured).toEqual([1]);
  });

  test('algorithm_incompatible when no in-scope terminal accepts the algorithm, or there is none', async () => {
    await approvedTerminal(server, 'AGTNORTH01', { areas: ['north'], algorithm: '9' });
    await approvedTerminal(server, 'AGTEAST001', { areas: ['east'], algorithm: '11' });
    const north = await newEnrollee(server, { areas: ['north'] });
    const east = await newEnrollee(server, { areas: ['east'] });
    const nowhere = await newEnrollee(server, { areas: ['nowhere'] });

    const s1 = await startSession(server, north.id, agent.id, [1]);
    const refused = await agent.client.post(`/sessions/${s1.id}/templates/`, upload(1, templateBytes(5)));
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: 'algorithm_incompatible',
      details: { reason: 'no_device_accepts', devices: [{ serial_number: 'AGTNORTH01', algorithm_version: '9', reason: 'algorithm_differs' }] },
    });

    const s2 = await startSession(server, nowhere.id, agent.id, [1]);
    const none = await agent.client.post(`/sessions/${s2.id}/templates/`, upload(1, templateBytes(5)));
    expect(none.status).toBe(422);
    expect(none.body.error).toMatchObject({ code: 'algorithm_incompatible', details: { reason: 'no_device_in_scope' } });

    // ALGORITHM_COMPATIBILITY_MAP: a v11 terminal takes v10 templates here.
    const s3 = await startSession(server, east.id, agent.id, [1]);
    expect((await agent.client.post(`/sessions/${s3.id}/templates/`, upload(1, templateBytes(5)))).status).toBe(200);
  });

  test('algorithm_incompatible when the only in-scope terminal is a card-only reader (FingerFunOn=0)', async () => {
    await approvedTerminal(server, 'AGTGATE001', { areas: ['gate'] });
    const options = 'FingerFunOn=0,FaceFunOn=0,PvFunOn=0,FvFunOn=0,MultiBioDataSupport=0:0:0:0:0:0:0:0:0:0';
    const posted = await fetch(`${server.url}${server.fpa.settings.ADMS_URL_PREFIX}cdata?SN=AGTGATE001&table=options`, { method: 'POST', body: options });
    expect(await posted.text()).toBe('OK');
    const gate = await newEnrollee(server, { areas: ['gate'] });
    const s = await startSession(server, gate.id, agent.id, [1]);
    const refused = await agent.client.post(`/sessions/${s.id}/templates/`, upload(1, templateBytes(5)));
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: 'algorithm_incompatible',
      details: { reason: 'no_fingerprint_reader', devices: [{ serial_number: 'AGTGATE001', algorithm_version: null, reason: 'no_fingerprint_reader' }] },
    });
  });

  test('a face-only terminal that reports FPVersion=10 is no fingerprint reader: listed as such, never with algorithm 10', async () => {
    const faceOnly = async (serial: string, area: string) => {
      await approvedTerminal(server, serial, { areas: [area] });
      const options = 'FingerFunOn=0,FPVersion=10,FaceFunOn=1,FaceVersion=58,PvFunOn=0,FvFunOn=0';
      const posted = await fetch(`${server.url}${server.fpa.settings.ADMS_URL_PREFIX}cdata?SN=${serial}&table=options`, { method: 'POST', body: options });
      expect(await posted.text()).toBe('OK');
      expect((await server.admin.get(`/devices/${serial}/`)).body.algorithm_version).toBe('10');
    };
    // Beside a v10 fingerprint terminal, the upload goes in as before.
    await faceOnly('AGTFACE001', 'lobby');
    await approvedTerminal(server, 'AGTLOBBY01', { areas: ['lobby'], algorithm: '10' });
    const lobby = await newEnrollee(server, { areas: ['lobby'] });
    const s1 = await startSession(server, lobby.id, agent.id, [1]);
    expect((await agent.client.post(`/sessions/${s1.id}/templates/`, upload(1, templateBytes(5)))).status).toBe(200);

    // Alone, it is no reader: not `no_device_accepts` with a terminal of algorithm 10 in the list.
    await faceOnly('AGTFACE002', 'porch');
    const porch = await newEnrollee(server, { areas: ['porch'] });
    const s2 = await startSession(server, porch.id, agent.id, [1]);
    const alone = await agent.client.post(`/sessions/${s2.id}/templates/`, upload(1, templateBytes(5)));
    expect(alone.status).toBe(422);
    expect(alone.body.error).toMatchObject({ code: 'algorithm_incompatible', details: { reason: 'no_fingerprint_reader', algorithm_version: '10' } });
    expect(alone.body.error.details.devices).toEqual([{ serial_number: 'AGTFACE002', algorithm_version: null, reason: 'no_fingerprint_reader' }]);

    // Beside a v9 reader: no device accepts v10; each terminal says why of its own.
    await faceOnly('AGTFACE003', 'yard');
    await approvedTerminal(server, 'AGTYARD001', { areas: ['yard'], algorithm: '9' });
    const yard = await newEnrollee(server, { areas: ['yard'] });
    const s3 = await startSession(server, yard.id, agent.id, [1]);
    const mixed = await agent.client.post(`/sessions/${s3.id}/templates/`, upload(1, templateBytes(5)));
    expect(mixed.status).toBe(422);
    expect(mixed.body.error.details.reason).toBe('no_device_accepts');
    expect(mixed.body.error.details.devices).toEqual(
      expect.arrayContaining([
        { serial_number: 'AGTFACE003', algorithm_version: null, reason: 'no_fingerprint_reader' },
        { serial_number: 'AGTYARD001', algorithm_version: '9', reason: 'algorithm_differs' },
      ]),
    );
    expect(mixed.body.error.details.devices).toHaveLength(2);
  });

  test('consent given after the session started, before the scans: the session says so and the uploads go in', async () => {
    const later = await newEnrollee(server, { consent: false });
    const created = await server.admin.post('/enrollment-sessions/', { enrollee: later.id, agent: agent.id, fingers: [1, 2] });
    expect(created.status).toBe(201);
    expect(created.body.consent_recorded).toBe(false);
    const id: string = created.body.id;
    expect((await agent.client.get(`/sessions/${id}/`)).body.consent_recorded).toBe(false);
    expect((await agent.client.get('/sessions/')).body.find((s: { id: string }) => s.id === id).consent_recorded).toBe(false);

    expect((await server.admin.post(`/enrollees/${later.id}/consent/`, { version: 'v2', method: 'tablet' })).status).toBe(201);
    expect((await agent.client.get(`/sessions/${id}/`)).body.consent_recorded).toBe(true);
    expect((await server.admin.get(`/enrollment-sessions/${id}/`)).body.consent_recorded).toBe(true);
    expect((await agent.client.post(`/sessions/${id}/claim/`)).body.consent_recorded).toBe(true);
    expect((await agent.client.post(`/sessions/${id}/templates/`, upload(1, templateBytes(15)))).status).toBe(200);
    expect((await agent.client.post(`/sessions/${id}/templates/`, upload(2, templateBytes(16)))).status).toBe(200);
    const done = await agent.client.post(`/sessions/${id}/complete/`);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', consent_recorded: true });
  });

  test('without recorded consent an upload is refused (consent_required) and nothing is staged; complete/ refuses too', async () => {
    const noConsent = await newEnrollee(server, { consent: false });
    const s1 = await startSession(server, noConsent.id, agent.id, [1, 2]);
    await agent.client.post(`/sessions/${s1.id}/claim/`);
    const refused = await agent.client.post(`/sessions/${s1.id}/templates/`, upload(1, templateBytes(11)));
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'consent_required', details: { enrollee: noConsent.id } });
    expect(await db().select().from(stagedTemplates).where(eq(stagedTemplates.sessionId, s1.id))).toEqual([]);
    const view = (await agent.client.get(`/sessions/${s1.id}/`)).body;
    expect(view).toMatchObject({ status: 'in_progress', fingers_captured: [], consent_recorded: false });
    expect((await server.admin.get(`/enrollment-sessions/${s1.id}/`)).body.consent_recorded).toBe(false);
    const consent = await agent.client.post(`/sessions/${s1.id}/complete/`);
    expect(consent.status).toBe(422);
    expect(consent.body.error).toMatchObject({ code: 'consent_required', details: { enrollee: noConsent.id } });
    expect((await agent.client.get(`/sessions/${s1.id}/`)).body.status).toBe('in_progress');
  });

  test('completion checks: fingers_missing, too_few_fingers; nothing stored, session stays open', async () => {
    const person = await newEnrollee(server);
    const s2 = await startSession(server, person.id, agent.id, [2, 3]);
    await agent.client.post(`/sessions/${s2.id}/templates/`, upload(2, templateBytes(13)));
    const missing = await agent.client.post(`/sessions/${s2.id}/complete/`);
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ code: 'fingers_missing', details: { missing: [3], captured: [2] } });
    expect((await agent.client.get(`/sessions/${s2.id}/`)).body.status).toBe('open');

    const s3 = await startSession(server, person.id, agent.id, [4]);
    await agent.client.post(`/sessions/${s3.id}/templates/`, upload(4, templateBytes(14)));
    const few = await agent.client.post(`/sessions/${s3.id}/complete/`);
    expect(few.status).toBe(422);
    expect(few.body.error).toMatchObject({ code: 'too_few_fingers', details: { required: 2, fingers: [4] } });
    expect(await db().select().from(templates).where(eq(templates.enrolleeId, person.id))).toEqual([]);
  });

  test('completion is atomic: a rule failing on the second template stores nothing and keeps the staged data', async () => {
    // FINGERS_ALLOWED_MAX is 3 here: two existing fingers, then a session for two more.
    const person = await newEnrollee(server);
    const s1 = await startSession(server, person.id, agent.id, [1, 2]);
    await agent.client.post(`/sessions/${s1.id}/templates/`, upload(1, templateBytes(21)));
    await agent.client.post(`/sessions/${s1.id}/templates/`, upload(2, templateBytes(22)));
    expect((await agent.client.post(`/sessions/${s1.id}/complete/`)).status).toBe(200);
    const before = await db().select().from(templates).where(eq(templates.enrolleeId, person.id));

    const s2 = await startSession(server, person.id, agent.id, [3, 4]);
    await agent.client.post(`/sessions/${s2.id}/templates/`, upload(3, templateBytes(23)));
    await agent.client.post(`/sessions/${s2.id}/templates/`, upload(4, templateBytes(24)));
    const res = await agent.client.post(`/sessions/${s2.id}/complete/`);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('too_many_fingers');
    const after = await db().select().from(templates).where(eq(templates.enrolleeId, person.id));
    expect(after.map((t) => [t.fingerIndex, t.version]).sort()).toEqual(before.map((t) => [t.fingerIndex, t.version]).sort());
    const session = await db()
      .select()
      .from(enrollmentSessions)
      .where(eq(enrollmentSessions.id, s2.id))
      .limit(1)
      .then((r) => r[0]);
    expect(session!.status).toBe('open');
    expect(await db().select().from(stagedTemplates).where(eq(stagedTemplates.sessionId, s2.id))).toHaveLength(2);
  });

  test('cancel discards staged data and keeps existing templates', async () => {
    const person = await newEnrollee(server);
    const s1 = await startSession(server, person.id, agent.id, [1, 2]);
    await agent.client.post(`/sessions/${s1.id}/templates/`, upload(1, templateBytes(31)));
    await agent.client.post(`/sessions/${s1.id}/templates/`, upload(2, templateBytes(32)));
    await agent.client.post(`/sessions/${s1.id}/complete/`);
    const before = await db().select().from(templates).where(eq(templates.enrolleeId, person.id));

    const s2 = await startSession(server, person.id, agent.id, [1]);
    await agent.client.post(`/sessions/${s2.id}/claim/`);
    await agent.client.post(`/sessions/${s2.id}/templates/`, upload(1, templateBytes(33)));
    const cancelled = await agent.client.post(`/sessions/${s2.id}/cancel/`, { reason: 'finger too dry' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', reason: 'finger too dry' });
    expect(await db().select().from(stagedTemplates).where(eq(stagedTemplates.sessionId, s2.id))).toEqual([]);
    const after = await db().select().from(templates).where(eq(templates.enrolleeId, person.id));
    expect(after.map((t) => [t.fingerIndex, t.version, Buffer.from(t.ciphertext).toString('hex')]).sort()).toEqual(
      before.map((t) => [t.fingerIndex, t.version, Buffer.from(t.ciphertext).toString('hex')]).sort(),
    );
    const again = await agent.client.post(`/sessions/${s2.id}/templates/`, upload(1, templateBytes(34)));
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'session_closed', details: { status: 'cancelled' } });

    // Cancel without any body, as a bare POST.
    const s3 = await startSession(server, person.id, agent.id, [1]);
    const bare = await fetch(`${server.url}/api/fingerprint/v1/agent/sessions/${s3.id}/cancel/`, {
      method: 'POST',
      headers: { authorization: `Agent ${agent.key}` },
    });
    expect(bare.status).toBe(200);
    expect(((await bare.json()) as { status: string }).status).toBe('cancelled');
  });

  test('bare POSTs without a body work for claim and complete', async () => {
    const person = await newEnrollee(server);
    const s = await startSession(server, person.id, agent.id, [7, 8]);
    const headers = { authorization: `Agent ${agent.key}` };
    const claim = await fetch(`${server.url}/api/fingerprint/v1/agent/sessions/${s.id}/claim`, { method: 'POST', headers });
    expect(claim.status).toBe(200);
    // Some HTTP clients send a JSON content type with an empty body.
    const emptyJson = await fetch(`${server.url}/api/fingerprint/v1/agent/sessions/${s.id}/claim/`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
    });
    expect(emptyJson.status).toBe(200);
    await agent.client.post(`/sessions/${s.id}/templates/`, upload(7, templateBytes(71)));
    await agent.client.post(`/sessions/${s.id}/templates/`, upload(8, templateBytes(81)));
    const complete = await fetch(`${server.url}/api/fingerprint/v1/agent/sessions/${s.id}/complete/`, { method: 'POST', headers });
    expect(complete.status).toBe(200);
  });

  test('agents may not start sessions while AGENT_CAN_START_SESSIONS is off', async () => {
    const person = await newEnrollee(server);
    const res = await agent.client.post('/sessions/', { enrollee: person.pin, fingers: [1] });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('agent_sessions_disabled');
  });

  test('an agent key authenticates with lastUsedAt recorded', async () => {
    const fresh = await createAgent(server, 'Usage');
    expect((await server.admin.get(`/enrollment-agents/${fresh.id}/`)).body.last_used_at).toBeNull();
    await agentClient(server, fresh.key).get('/me/');
    expect((await server.admin.get(`/enrollment-agents/${fresh.id}/`)).body.last_used_at).toEqual(expect.any(String));
  });
});
