/**
 * Subject access (README "Subject access"): HR hands a person the history of their consents.
 * After consent v1, its withdrawal and consent v2, the person's view shows only v2; the earlier
 * grant and its withdrawal are in `enrollees/{id}/consents/`, oldest first, paged like every
 * list, for every role that may read the person and only in its areas (404 outside, as the
 * person), with nothing biometric in it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { syntheticTemplate } from '../../src/simulator/terminal';
import { clientAs, startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let person: { id: string; device_pin: string };

interface ConsentRecord {
  version: string;
  method: string;
  given_at: string;
  given_by: string;
  withdrawn_at: string | null;
  withdrawn_by: string | null;
  ended: 'withdrawn' | 'replaced' | null;
  templates_destroyed: number | null;
}

beforeAll(async () => {
  server = await startTestServer();
  expect((await server.admin.post('/employees/', { id: 'SA-1', name: 'Sara Ali' })).status).toBe(201);
  const created = await server.admin.post('/enrollees/', { employee: 'SA-1', areas: ['north'] });
  expect(created.status).toBe(201);
  person = created.body;
  const hr = await clientAs(server, 'hr', ['north'], 'hr.north@example.com');
  expect((await hr.post(`/enrollees/${person.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  expect((await hr.delete(`/enrollees/${person.id}/consent/`)).status).toBe(200);
  expect((await server.admin.post(`/enrollees/${person.id}/consent/`, { version: 'v2', method: 'signed form' })).status).toBe(201);
  // A new notice replaces v2: v2 ends, replaced, not withdrawn.
  expect((await server.admin.post(`/enrollees/${person.id}/consent/`, { version: 'v3', method: 'signed form' })).status).toBe(201);
});

afterAll(async () => {
  await server.close();
});

describe('a person’s consent history', () => {
  test('the person’s view shows only the current consent; the history shows every record, oldest first', async () => {
    const view = await server.admin.get(`/enrollees/${person.id}/`);
    expect(view.body.consent).toMatchObject({ version: 'v3' });
    expect(view.body.consent_withdrawn).toBeNull();

    const hr = await clientAs(server, 'hr', ['north'], 'hr.north@example.com');
    const history = await hr.get(`/enrollees/${person.id}/consents/`);
    expect(history.status).toBe(200);
    const records = history.body.results as ConsentRecord[];
    expect(history.body.next_cursor).toBeNull();
    expect(records.map((r) => [r.version, r.method, r.given_by, r.ended, r.withdrawn_by])).toEqual([
      ['v1', 'paper', 'hr.north@example.com', 'withdrawn', 'hr.north@example.com'],
      ['v2', 'signed form', 'admin@example.com', 'replaced', 'admin@example.com'],
      ['v3', 'signed form', 'admin@example.com', null, null],
    ]);
    const [v1, v2, v3] = records as [ConsentRecord, ConsentRecord, ConsentRecord];
    expect(v1.templates_destroyed).toBe(0);
    expect(Date.parse(v1.withdrawn_at!)).toBeGreaterThanOrEqual(Date.parse(v1.given_at));
    expect(Date.parse(v2.given_at)).toBeGreaterThanOrEqual(Date.parse(v1.withdrawn_at!));
    // Replaced: its end is the next one's start.
    expect(v2.withdrawn_at).toBe(v3.given_at);
    expect(v3.withdrawn_at).toBeNull();
    // What the record holds, nothing else (nothing biometric, no internal id).
    expect(Object.keys(v1).sort()).toEqual(['ended', 'given_at', 'given_by', 'method', 'templates_destroyed', 'version', 'withdrawn_at', 'withdrawn_by']);
  });

  test('paged like every list', async () => {
    const first = await server.admin.get(`/enrollees/${person.id}/consents/?limit=2`);
    expect(first.body.results.map((r: ConsentRecord) => r.version)).toEqual(['v1', 'v2']);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await server.admin.get(`/enrollees/${person.id}/consents/?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect([second.body.results.map((r: ConsentRecord) => r.version), second.body.next_cursor]).toEqual([['v3'], null]);
    const foreign = (await server.admin.get('/enrollees/?limit=1')).body.next_cursor;
    const refused = await server.admin.get(`/enrollees/${person.id}/consents/?cursor=${encodeURIComponent(foreign ?? 'garbage')}`);
    expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_cursor']);
  });

  test('every role that may read the person reads it, in its areas; outside them, or for nobody, 404', async () => {
    for (const role of ['hr', 'manager', 'installer', 'viewer']) {
      const reader = await clientAs(server, role, ['north']);
      expect([role, (await reader.get(`/enrollees/${person.id}/consents/`)).status]).toEqual([role, 200]);
    }
    const south = await clientAs(server, 'hr', ['south']);
    expect((await south.get(`/enrollees/${person.id}/`)).status).toBe(404);
    const outside = await south.get(`/enrollees/${person.id}/consents/`);
    expect([outside.status, outside.body.error.code]).toEqual([404, 'not_found']);
    expect((await server.admin.get(`/enrollees/${crypto.randomUUID()}/consents/`)).status).toBe(404);
  });

  test('a person who never consented has an empty history', async () => {
    expect((await server.admin.post('/employees/', { id: 'SA-2', name: 'Tom Ek' })).status).toBe(201);
    const other = (await server.admin.post('/enrollees/', { employee: 'SA-2' })).body as { id: string };
    expect((await server.admin.get(`/enrollees/${other.id}/consents/`)).body).toEqual({ results: [], next_cursor: null });
  });

  test('a deleted person’s history is still answered, in the areas they were in: the evidence outlives them', async () => {
    expect((await server.admin.post('/employees/', { id: 'SA-3', name: 'Una Berg' })).status).toBe(201);
    const gone = (await server.admin.post('/enrollees/', { employee: 'SA-3', areas: ['north'] })).body as { id: string };
    expect((await server.admin.post(`/enrollees/${gone.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    for (const finger of [2, 6])
      await server.fpa.service.storeTemplate(gone.id, finger, new Uint8Array(Buffer.from(syntheticTemplate(180), 'base64')), {
        algorithmVersion: '10',
        by: 'test',
      });
    expect((await server.admin.delete(`/enrollees/${gone.id}/`)).status).toBe(204);
    expect((await server.admin.get(`/enrollees/${gone.id}/`)).status).toBe(404);
    const hr = await clientAs(server, 'hr', ['north']);
    const history = await hr.get(`/enrollees/${gone.id}/consents/`);
    expect(history.status).toBe(200);
    const [record] = history.body.results as ConsentRecord[];
    // Deleting the person withdrew the consent: given, then ended, its fingerprints destroyed.
    expect(record).toMatchObject({ version: 'v1', method: 'paper', given_by: 'admin@example.com', ended: 'withdrawn', templates_destroyed: 2 });
    expect(record?.withdrawn_at).not.toBeNull();
    expect((await (await clientAs(server, 'hr', ['south'])).get(`/enrollees/${gone.id}/consents/`)).status).toBe(404);
  });
});
