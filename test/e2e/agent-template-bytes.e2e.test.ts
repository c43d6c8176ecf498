/**
 * What the bytes of an agent's upload tell (ADMS.md §6.2), through the real server: a ZKFinger
 * template of another generation than declared, one too short to be a template, and the same
 * bytes uploaded for two fingers of one session are refused before anything is staged; bytes
 * that say nothing of their algorithm go in as before.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { stagedTemplates } from '../../src/app/schema';
import { syntheticTemplate } from '../../src/simulator/terminal';
import { answerInventory, approvedTerminal, type CreatedAgent, createAgent, newEnrollee, startSession, templateBytes, upload } from '../support/agents';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let v10: CreatedAgent;
let v9: CreatedAgent;

beforeAll(async () => {
  server = await startTestServer({ FINGERS_REQUIRED_MIN: '1', AGENT_RATE_LIMIT: '1000/m' });
  await approvedTerminal(server, 'BYTES10001', { areas: ['ten'], algorithm: '10' });
  await answerInventory(server, 'BYTES10001');
  await approvedTerminal(server, 'BYTES09001', { areas: ['nine'], algorithm: '9' });
  await answerInventory(server, 'BYTES09001');
  v10 = await createAgent(server, 'v10 reader', '10');
  v9 = await createAgent(server, 'v9 reader', '9');
});
afterAll(async () => {
  await server.close();
});

/** A ZKFinger v9 template's shape: `A1 CA`, then the rest. */
function v9Template(seed: number, size = 500): Uint8Array {
  const bytes = templateBytes(seed, size);
  bytes.set([0xa1, 0xca], 0);
  return bytes;
}

/** A ZKFinger v10 template's shape: `SS21` at bytes 2–5. */
function v10Template(seed: number, size = 1200): Uint8Array {
  const bytes = templateBytes(seed, size);
  bytes.set(new TextEncoder().encode('SS21'), 2);
  return bytes;
}

const staged = (session: string) => server.fpa.db.orm.select().from(stagedTemplates).where(eq(stagedTemplates.sessionId, session));

describe('templates whose bytes agree with their algorithm, or say nothing of it', () => {
  test('a v10 template declared 10, a v9 one declared 9, the simulator’s and opaque bytes are staged', async () => {
    const ten = await newEnrollee(server, { areas: ['ten'] });
    const s = await startSession(server, ten.id, v10.id, [1, 2, 3]);
    expect((await v10.client.post(`/sessions/${s.id}/templates/`, upload(1, v10Template(1)))).status).toBe(200);
    const simulated = new Uint8Array(Buffer.from(syntheticTemplate(), 'base64'));
    expect((await v10.client.post(`/sessions/${s.id}/templates/`, upload(2, simulated))).status).toBe(200);
    // Bytes that carry neither header: nothing to tell, accepted as before.
    expect((await v10.client.post(`/sessions/${s.id}/templates/`, upload(3, templateBytes(3, 64)))).status).toBe(200);
    expect((await v10.client.post(`/sessions/${s.id}/complete/`)).status).toBe(200);

    const nine = await newEnrollee(server, { areas: ['nine'] });
    const s9 = await startSession(server, nine.id, v9.id, [1]);
    expect((await v9.client.post(`/sessions/${s9.id}/templates/`, upload(1, v9Template(4), '9'))).status).toBe(200);
    expect((await v9.client.post(`/sessions/${s9.id}/complete/`)).status).toBe(200);
  });
});

describe('templates refused for what their bytes show', () => {
  test('v9 bytes declared 10, v10 bytes declared 9: template_algorithm_mismatch with declared and found; nothing staged', async () => {
    const ten = await newEnrollee(server, { areas: ['ten'] });
    const s = await startSession(server, ten.id, v10.id, [1]);
    const wrong = await v10.client.post(`/sessions/${s.id}/templates/`, upload(1, v9Template(5)));
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toMatchObject({ code: 'template_algorithm_mismatch', details: { declared: '10', found: '9' } });
    expect(await staged(s.id)).toEqual([]);

    const nine = await newEnrollee(server, { areas: ['nine'] });
    const s9 = await startSession(server, nine.id, v9.id, [1]);
    const other = await v9.client.post(`/sessions/${s9.id}/templates/`, upload(1, v10Template(6), '9.0'));
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ code: 'template_algorithm_mismatch', details: { declared: '9.0', found: '10' } });
    expect(await staged(s9.id)).toEqual([]);
  });

  test('too short to be a template (4 random bytes, 63 bytes): invalid_template with the minimum', async () => {
    const ten = await newEnrollee(server, { areas: ['ten'] });
    const s = await startSession(server, ten.id, v10.id, [1]);
    for (const bytes of [crypto.getRandomValues(new Uint8Array(4)), templateBytes(7, 63), v10Template(8, 40)]) {
      const res = await v10.client.post(`/sessions/${s.id}/templates/`, upload(1, bytes));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_template', details: { field: 'template', size: bytes.byteLength, min: 64 } });
    }
    expect(await staged(s.id)).toEqual([]);
  });

  test('the same bytes for a second finger of the session: template_duplicate; the same finger again replaces it', async () => {
    const ten = await newEnrollee(server, { areas: ['ten'] });
    const s = await startSession(server, ten.id, v10.id, [1, 2]);
    const bytes = v10Template(9);
    expect((await v10.client.post(`/sessions/${s.id}/templates/`, upload(1, bytes))).status).toBe(200);
    const twice = await v10.client.post(`/sessions/${s.id}/templates/`, upload(2, bytes));
    expect(twice.status).toBe(422);
    expect(twice.body.error).toMatchObject({ code: 'template_duplicate', details: { finger_index: 2, same_as: 1 } });
    expect((await staged(s.id)).map((r) => r.fingerIndex)).toEqual([1]);
    // A re-upload of finger 1 is a replacement, not a duplicate; finger 2 scanned for real goes in.
    expect((await v10.client.post(`/sessions/${s.id}/templates/`, upload(1, bytes))).status).toBe(200);
    expect((await v10.client.post(`/sessions/${s.id}/templates/`, upload(2, v10Template(10)))).body).toEqual({ captured: [1, 2], remaining: [] });
    expect((await v10.client.post(`/sessions/${s.id}/complete/`)).status).toBe(200);
  });
});
