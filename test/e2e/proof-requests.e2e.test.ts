/**
 * A person's deletion proof over several requests: a withdrawal that withdraws and destroys
 * nothing leaves a proof as it was (its dates, its completion, no second event); a later real
 * request (consent given again, a finger enrolled, withdrawn again; then the person deleted)
 * extends the same proof, which keeps the date of the first request and lists every request, so
 * that no confirmation predates the request it answers. Through the real server and simulated
 * terminals, on the test clock.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { extractText, getDocumentProxy } from 'unpdf';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let offset = 0;
const clock = { now: () => Date.now() + offset };
let server: TestServer;
const fleet: SimulatedTerminal[] = [];

interface Proof {
  reason: string;
  requested_at: string;
  requests: { reason: string; at: string; templates_destroyed: number }[];
  server: { templates_destroyed: number; at: string };
  terminals: { serial_number: string; status: string; confirmed_at: string | null }[];
  complete: boolean;
  completed_at: string | null;
}

beforeAll(async () => {
  server = await startTestServer({}, { clock });
  for (const sn of ['REQ-1', 'REQ-2']) {
    const t = new SimulatedTerminal({ url: server.url, sn, now: clock.now });
    await t.handshake();
    await t.postOptions();
    expect((await server.admin.post(`/devices/${sn}/approve/`, {})).status).toBe(200);
    await drain(t);
    fleet.push(t);
  }
});
afterAll(async () => {
  await server.close();
});

async function proofOf(id: string): Promise<Proof> {
  const res = await server.admin.get(`/enrollees/${id}/deletion-proof/`);
  expect(res.status).toBe(200);
  return res.body as Proof;
}

async function completions(enrollee: string): Promise<number> {
  const events = (await server.admin.get('/events/?type=deletion_proof_completed&limit=500')).body.results as { data: { enrollee: string } }[];
  return events.filter((e) => e.data.enrollee === enrollee).length;
}

async function consentAndFinger(id: string, finger: number): Promise<void> {
  expect((await server.admin.post(`/enrollees/${id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  await server.fpa.service.storeTemplate(id, finger, new Uint8Array(Buffer.from(syntheticTemplate(170 + finger), 'base64')), {
    algorithmVersion: '10',
    by: 'test',
  });
  for (const t of fleet) await drain(t);
}

const later = () => {
  offset += 60_000;
};

/** Every confirmation is at or after the request the proof is dated by. */
const noneBeforeRequest = (proof: Proof) =>
  proof.terminals.filter((t) => t.confirmed_at !== null && Date.parse(t.confirmed_at) < Date.parse(proof.requested_at)).map((t) => t.serial_number);

describe('several requests, one proof', () => {
  test('withdrawing again leaves a complete proof as it was; a real request later extends it, dated by the first', async () => {
    expect((await server.admin.post('/employees/', { id: 'REQ-ALICE', name: 'Alice' })).status).toBe(201);
    const alice = (await server.admin.post('/enrollees/', { employee: 'REQ-ALICE' })).body as { id: string };
    await consentAndFinger(alice.id, 6);
    later();
    expect((await server.admin.delete(`/enrollees/${alice.id}/consent/`)).status).toBe(200);
    later();
    for (const t of fleet) await drain(t);
    const first = await proofOf(alice.id);
    expect(first).toMatchObject({ complete: true, reason: 'consent_withdrawn', server: { templates_destroyed: 1 } });
    expect(first.requests).toEqual([{ reason: 'consent_withdrawn', at: first.requested_at, templates_destroyed: 1 }]);
    expect(await completions(alice.id)).toBe(1);

    // Withdrawn again: nothing to withdraw, nothing destroyed, nothing owed. The proof is as it was.
    later();
    expect((await server.admin.delete(`/enrollees/${alice.id}/consent/`)).body).toEqual({ withdrawn: false, templates_destroyed: 0 });
    const again = await proofOf(alice.id);
    const { issued_at: _a, signature: _s, ...firstBody } = first as Proof & { issued_at: string; signature: string };
    expect(again).toMatchObject(firstBody);
    expect(await completions(alice.id)).toBe(1);

    // Consent given again, a finger enrolled and sent, withdrawn again: the same proof, extended.
    later();
    await consentAndFinger(alice.id, 7);
    later();
    expect((await server.admin.delete(`/enrollees/${alice.id}/consent/`)).body).toEqual({ withdrawn: true, templates_destroyed: 1 });
    const secondAt = new Date(clock.now()).toISOString().slice(0, 16);
    let proof = await proofOf(alice.id);
    expect(proof).toMatchObject({ complete: false, completed_at: null, requested_at: first.requested_at, server: { templates_destroyed: 2 } });
    expect(proof.requests.map((r) => [r.reason, r.templates_destroyed])).toEqual([
      ['consent_withdrawn', 1],
      ['consent_withdrawn', 1],
    ]);
    expect(proof.requests[1]!.at.slice(0, 16)).toBe(secondAt);
    expect(proof.terminals.every((t) => t.status === 'pending')).toBe(true);
    later();
    for (const t of fleet) await drain(t);
    proof = await proofOf(alice.id);
    expect(proof.complete).toBe(true);
    expect(Date.parse(proof.completed_at!)).toBeGreaterThan(Date.parse(first.completed_at!));
    expect(noneBeforeRequest(proof)).toEqual([]);
    expect(await completions(alice.id)).toBe(2);

    // Then deleted: a third request, the reason now `deleted`; still dated by the first.
    later();
    expect((await server.admin.delete(`/enrollees/${alice.id}/`)).status).toBe(204);
    for (const t of fleet) await drain(t);
    proof = await proofOf(alice.id);
    expect(proof).toMatchObject({ complete: true, reason: 'deleted', requested_at: first.requested_at });
    expect(proof.requests.map((r) => r.reason)).toEqual(['consent_withdrawn', 'consent_withdrawn', 'deleted']);
    expect(noneBeforeRequest(proof)).toEqual([]);
    // The PDF lists them.
    const pdf = await fetch(`${server.admin.base}/enrollees/${alice.id}/deletion-proof.pdf`, { headers: server.admin.headers });
    const text = (await extractText(await getDocumentProxy(new Uint8Array(await pdf.arrayBuffer())), { mergePages: true })).text.replace(/\s+/g, ' ');
    expect(text).toContain(`First asked on: ${proof.requested_at.slice(0, 19).replace('T', ' ')} UTC`);
    expect(text).toContain('Biometric consent withdrawn on');
    expect(text).toContain('Person deleted from the attendance service on');
  });
});
