/**
 * A deletion proof is dated by the request itself: its `requested_at`, `requests[].at` and
 * `server.at` are the withdrawal's `withdrawn_at` and the instant of its audit entries (for a
 * deleted person, of the deletion's), to the millisecond, so that the signed document and the
 * records agree. On a clock that moves on at every reading, where each part of the request
 * reading the clock again for itself showed up as a few milliseconds of difference.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { consents } from '../../src/app/schema';
import { syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

let ticks = 0;
/** Real time, one millisecond further at every reading. */
const clock = { now: () => Date.now() + ++ticks };
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { clock });
});
afterAll(async () => {
  await server.close();
});

async function personWithTemplate(employee: string): Promise<string> {
  expect((await server.admin.post('/employees/', { id: employee, name: `Person ${employee}` })).status).toBe(201);
  const created = await server.admin.post('/enrollees/', { employee });
  expect(created.status).toBe(201);
  expect((await server.admin.post(`/enrollees/${created.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  await server.fpa.service.storeTemplate(created.body.id, 6, new Uint8Array(Buffer.from(syntheticTemplate(180), 'base64')), {
    algorithmVersion: '10',
    by: 'test',
  });
  return created.body.id;
}

/** The instants of the audit entries of these actions about the person. */
async function auditedAt(id: string, actions: string[]): Promise<Record<string, string>> {
  const entries = (await server.admin.get(`/audit-log/?target=${id}&limit=100`)).body.results as { action: string; at: string }[];
  return Object.fromEntries(entries.filter((e) => actions.includes(e.action)).map((e) => [e.action, e.at]));
}

interface Proof {
  requested_at: string;
  requests: { at: string }[];
  server: { at: string };
  completed_at: string | null;
}

describe('the deletion proof’s dates are the request’s', () => {
  test('a withdrawal: requested_at and server.at are withdrawn_at and its audit entries’ time', async () => {
    const id = await personWithTemplate('PD-1');
    expect((await server.admin.delete(`/enrollees/${id}/consent/`)).body).toEqual({ withdrawn: true, templates_destroyed: 1 });
    const withdrawnAt = (await server.admin.get(`/enrollees/${id}/`)).body.consent_withdrawn.withdrawn_at as string;
    const proof = (await server.admin.get(`/enrollees/${id}/deletion-proof/`)).body as Proof;
    expect({ requested: proof.requested_at, request: proof.requests[0]!.at, destroyed: proof.server.at }).toEqual({
      requested: withdrawnAt,
      request: withdrawnAt,
      destroyed: withdrawnAt,
    });
    expect(await auditedAt(id, ['consent.withdrawn', 'templates.destroyed'])).toEqual({ 'consent.withdrawn': withdrawnAt, 'templates.destroyed': withdrawnAt });
    // No terminal held anything: complete at once, at the request.
    expect(proof.completed_at).toBe(withdrawnAt);
    // The events of the withdrawal say the same time.
    const events = (await server.admin.get('/events/?type=consent_withdrawn,templates_destroyed')).body.results as {
      type: string;
      at: string;
      data: { enrollee: string };
    }[];
    expect(events.filter((e) => e.data.enrollee === id).map((e) => [e.type, e.at])).toEqual([
      ['consent_withdrawn', withdrawnAt],
      ['templates_destroyed', withdrawnAt],
    ]);
  });

  test('a deletion: the proof, the consent it ended and the destruction are dated by the deletion’s audit entry', async () => {
    const id = await personWithTemplate('PD-2');
    expect((await server.admin.delete(`/enrollees/${id}/`)).status).toBe(204);
    const audited = await auditedAt(id, ['enrollee.deleted', 'templates.destroyed']);
    const deletedAt = audited['enrollee.deleted']!;
    expect(audited['templates.destroyed']).toBe(deletedAt);
    const proof = (await server.admin.get(`/enrollees/${id}/deletion-proof/`)).body as Proof;
    expect({ requested: proof.requested_at, request: proof.requests[0]!.at, destroyed: proof.server.at }).toEqual({
      requested: deletedAt,
      request: deletedAt,
      destroyed: deletedAt,
    });
    // The consent the deletion ended ends then too (the record stays; the person's routes are 404 now).
    const ended = await server.fpa.db.orm.select({ at: consents.withdrawnAt }).from(consents).where(eq(consents.enrolleeId, id));
    expect(ended.map((c) => new Date(c.at ?? 0).toISOString())).toEqual([deletedAt]);
  });
});
