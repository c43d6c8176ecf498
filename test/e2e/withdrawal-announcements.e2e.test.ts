/**
 * What a withdrawal of consent announces (README "Events", "Proof of deletion"). One that ends a
 * consent, or destroys anything of the person's anywhere, is announced as before:
 * `consent_withdrawn`, `templates_destroyed` (the count the server destroyed, raised only when it
 * destroyed one: the audit entry `templates.destroyed` records a count of 0) and the audit entry;
 * the deletion proof opens either way. One that finds nothing to withdraw (never consented, nothing stored,
 * nothing of theirs on a terminal; or withdrawn already) answers `{ withdrawn: false,
 * templates_destroyed: 0 }` and records nothing: before, it told every listener and webhook that
 * a withdrawal happened. Withdrawal still deletes everywhere: templates stored without consent
 * (ENROLLMENT_REQUIRE_CONSENT off) and parts a terminal was refused as the person's and kept
 * (DELETE_REJECTED_DEVICE_TEMPLATES off) are destroyed, deleted there, and announced.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let s: TestServer;
let hq: SimulatedTerminal;
let out: SimulatedTerminal;

async function online(sn: string, areas: string[]) {
  const t = new SimulatedTerminal({ url: s.url, sn });
  await t.handshake();
  await t.postOptions();
  expect((await s.admin.post(`/devices/${sn}/approve/`, { areas })).status).toBe(200);
  await drain(t);
  return t;
}

async function person(employee: string): Promise<{ id: string; device_pin: string }> {
  expect((await s.admin.post('/employees/', { id: employee, name: `Person ${employee}` })).status).toBe(201);
  const created = await s.admin.post('/enrollees/', { employee, areas: ['hq'] });
  expect(created.status).toBe(201);
  await drain(hq);
  return created.body;
}

/** The withdrawal events the log holds about a person (what listeners and webhooks are given). */
async function eventsAbout(id: string): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const res = await s.admin.get('/events/?type=consent_withdrawn,templates_destroyed&limit=1000');
  return (res.body.results as { type: string; data: Record<string, unknown> }[])
    .filter((e) => e.data.enrollee === id)
    .map(({ type, data }) => ({ type, data }));
}

/** The audit actions about a person, oldest first. */
async function auditOf(id: string): Promise<string[]> {
  const res = await s.admin.get(`/audit-log/?target=${id}&limit=100`);
  return (res.body.results as { action: string }[]).map((r) => r.action).reverse();
}

/** The audit entries of a person's templates destroyed (`templates.destroyed`), oldest first. */
async function destructionsAudited(id: string): Promise<unknown[]> {
  const res = await s.admin.get(`/audit-log/?target=${id}&action=templates.destroyed&limit=100`);
  return (res.body.results as { details: unknown }[]).map((r) => r.details).reverse();
}

const withdraw = async (id: string) => {
  const res = await s.admin.delete(`/enrollees/${id}/consent/`);
  expect(res.status).toBe(200);
  return res.body as { withdrawn: boolean; templates_destroyed: number };
};

beforeAll(async () => {
  s = await startTestServer({ DELETE_REJECTED_DEVICE_TEMPLATES: false, ENROLLMENT_REQUIRE_CONSENT: false });
  hq = await online('HQWD', ['hq']);
  out = await online('OUTWD', ['elsewhere']);
});
afterAll(async () => {
  await s.close();
});

describe('the order of what a withdrawal records (README "Events": a reaction comes after what it reacts to)', () => {
  test('consent and a template no terminal holds: consent_withdrawn, then templates_destroyed, then the proof completed at once', async () => {
    expect((await s.admin.post('/employees/', { id: 'W-0', name: 'Person W-0' })).status).toBe(201);
    const created = await s.admin.post('/enrollees/', { employee: 'W-0', areas: ['nowhere'] });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    await s.fpa.service.giveConsent(id, { version: 'v1', method: 'paper', by: 'hr' });
    await s.fpa.service.storeTemplate(id, 1, new Uint8Array(512).fill(7), { algorithmVersion: '10', by: 'hr' });
    expect(await withdraw(id)).toEqual({ withdrawn: true, templates_destroyed: 1 });
    const res = await s.admin.get('/events/?type=consent_withdrawn,templates_destroyed,deletion_proof_completed&limit=1000');
    const about = (res.body.results as { sequence: number; type: string; data: { enrollee: string } }[]).filter((e) => e.data.enrollee === id);
    expect(about.map((e) => e.type)).toEqual(['consent_withdrawn', 'templates_destroyed', 'deletion_proof_completed']);
    expect(about.map((e) => e.sequence)).toEqual([...about.map((e) => e.sequence)].sort((a, b) => a - b));
  });
});

describe('a withdrawal that withdraws something', () => {
  test('consent on record, nothing stored: announced (the proof opens, complete); withdrawn again: nothing more', async () => {
    const p = await person('W-1');
    expect((await s.admin.post(`/enrollees/${p.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    expect(await withdraw(p.id)).toEqual({ withdrawn: true, templates_destroyed: 0 });
    // Nothing was destroyed: no templates_destroyed (it was raised with count 0); the audit entry says none was held.
    const announced = [{ type: 'consent_withdrawn', data: { enrollee: p.id, by: 'admin@example.com' } }];
    expect(await eventsAbout(p.id)).toEqual(announced);
    const audited = await auditOf(p.id);
    expect(audited.filter((a) => a === 'consent.withdrawn')).toHaveLength(1);
    expect(await destructionsAudited(p.id)).toEqual([{ count: 0, reason: 'consent withdrawn' }]);
    const proof = (await s.admin.get(`/enrollees/${p.id}/deletion-proof/`)).body;
    expect(proof).toMatchObject({ reason: 'consent_withdrawn', complete: true });

    expect(await withdraw(p.id)).toEqual({ withdrawn: false, templates_destroyed: 0 });
    expect(await eventsAbout(p.id)).toEqual(announced);
    // Nothing more but the proof's download, which is audited (proof.downloaded).
    expect(await auditOf(p.id)).toEqual([...audited, 'proof.downloaded']);
    expect((await s.admin.get(`/enrollees/${p.id}/deletion-proof/`)).body.requested_at).toBe(proof.requested_at);
  });

  test('never consented, a template stored (consent not required): destroyed, deleted from the terminal, announced with its count', async () => {
    const p = await person('W-2');
    expect((await hq.enrollFinger(p.device_pin, 1)).body).toBe('OK:1');
    expect((await s.admin.get(`/enrollees/${p.id}/templates/`)).body.results).toHaveLength(1);
    expect(await withdraw(p.id)).toEqual({ withdrawn: false, templates_destroyed: 1 });
    // The withdrawal first, then what follows from it.
    expect(await eventsAbout(p.id)).toEqual([
      { type: 'consent_withdrawn', data: { enrollee: p.id, by: 'admin@example.com' } },
      { type: 'templates_destroyed', data: { enrollee: p.id, count: 1, reason: 'consent withdrawn' } },
    ]);
    expect(await auditOf(p.id)).toContain('consent.withdrawn');
    expect(await drain(hq)).toContain(`DATA DELETE FINGERTMP PIN=${p.device_pin}\tFID=1`);
  });

  test('never consented, nothing stored, a finger a terminal outside their areas was refused as theirs and kept: deleted there, announced, the proof waits for it', async () => {
    const p = await person('W-3');
    expect((await out.enrollFinger(p.device_pin, 2)).body).toBe('OK:1');
    expect((await s.admin.get(`/enrollees/${p.id}/templates/`)).body.results).toHaveLength(0);
    expect(await withdraw(p.id)).toEqual({ withdrawn: false, templates_destroyed: 0 });
    // Nothing of theirs was stored here: no templates_destroyed; the proof opens all the same.
    expect((await eventsAbout(p.id)).map((e) => e.type)).toEqual(['consent_withdrawn']);
    expect(await auditOf(p.id)).toContain('consent.withdrawn');
    const proof = (await s.admin.get(`/enrollees/${p.id}/deletion-proof/`)).body;
    expect(proof).toMatchObject({ complete: false, terminals: [{ serial_number: 'OUTWD', status: 'pending' }] });
    expect(await drain(out)).toEqual([`DATA DELETE FINGERTMP PIN=${p.device_pin}\tFID=2`]);
  });
});

describe('a withdrawal with nothing to withdraw', () => {
  test('never consented, nothing anywhere: 200 as documented, and no event, no audit entry, no proof', async () => {
    const p = await person('W-4');
    const before = await auditOf(p.id);
    expect(await withdraw(p.id)).toEqual({ withdrawn: false, templates_destroyed: 0 });
    expect(await eventsAbout(p.id)).toEqual([]);
    expect(await auditOf(p.id)).toEqual(before);
    expect((await s.admin.get(`/enrollees/${p.id}/deletion-proof/`)).status).toBe(404);
    expect(await drain(hq)).toEqual([]);
  });
});

describe('a person deleted', () => {
  test('without templates: no templates_destroyed, the audit entry records that none was held, the proof opens', async () => {
    const p = await person('W-5');
    expect((await s.admin.delete(`/enrollees/${p.id}/`)).status).toBeLessThan(300);
    const log = await s.admin.get('/events/?type=templates_destroyed,enrollee_deleted&limit=1000');
    expect(
      (log.body.results as { type: string; data: { enrollee: unknown } }[]).filter((e) => JSON.stringify(e.data).includes(p.id)).map((e) => e.type),
    ).toEqual(['enrollee_deleted']);
    expect(await destructionsAudited(p.id)).toEqual([{ count: 0, reason: 'enrollee deleted' }]);
    expect((await s.admin.get(`/enrollees/${p.id}/deletion-proof/`)).body).toMatchObject({ reason: 'deleted' });
  });

  test('with a template: templates_destroyed with its count, as before', async () => {
    const p = await person('W-6');
    expect((await hq.enrollFinger(p.device_pin, 3)).body).toBe('OK:1');
    expect((await s.admin.delete(`/enrollees/${p.id}/`)).status).toBeLessThan(300);
    expect(await eventsAbout(p.id)).toEqual([{ type: 'templates_destroyed', data: { enrollee: p.id, count: 1, reason: 'enrollee deleted' } }]);
    expect(await destructionsAudited(p.id)).toEqual([{ count: 1, reason: 'enrollee deleted' }]);
  });
});
