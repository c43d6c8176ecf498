/**
 * "Show me my fingerprints are gone": a person on two terminals withdraws consent; their deletion
 * proof is incomplete until both terminals answer the delete (one of them offline for a day, on
 * the test clock), then complete, with the `deletion_proof_completed` event delivered to a webhook.
 * The proof's signature verifies with `jose` against the key set the service publishes; the PDF
 * reads as a document. A terminal removed and never back is `unreachable` after
 * DELETION_PROOF_UNREACHABLE_AFTER. Through the real server and simulated terminals.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { compactVerify, createLocalJWKSet, type JSONWebKeySet, SignJWT } from 'jose';
import { extractText, getDocumentProxy } from 'unpdf';
import { FPA_EVENT_TYPES } from '../../src/app/event-catalog';
import { SimulatedTerminal, type SimulatedTerminalOptions, syntheticTemplate } from '../../src/simulator/terminal';
import { ApiClient, JWT_SECRET, startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';
import { receiver, waitFor } from '../support/webhook-receiver';

const DAY = 86_400_000;
let offset = 0;
const clock = { now: () => Date.now() + offset };
let server: TestServer;
let rx: ReturnType<typeof receiver>;
/** Every terminal approved so far: each holds everyone (one area). */
const fleet = new Map<string, SimulatedTerminal>();

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 50 }, { clock });
  rx = receiver();
  expect((await server.admin.post('/webhooks/', { url: rx.url, events: ['deletion_proof_completed'] })).status).toBe(201);
});
afterAll(async () => {
  rx.stop();
  await server.close();
});

async function terminal(sn: string, options: Partial<SimulatedTerminalOptions> = {}): Promise<SimulatedTerminal> {
  const t = new SimulatedTerminal({ url: server.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${sn}/approve/`, {})).status).toBe(200);
  await drain(t);
  fleet.set(sn, t);
  return t;
}

async function person(id: string): Promise<{ id: string; device_pin: string }> {
  expect((await server.admin.post('/employees/', { id, name: `Person ${id}` })).status).toBe(201);
  const e = await server.admin.post('/enrollees/', { employee: id });
  expect(e.status).toBe(201);
  expect((await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  await server.fpa.service.storeTemplate(e.body.id, 6, new Uint8Array(Buffer.from(syntheticTemplate(180), 'base64')), { algorithmVersion: '10', by: 'test' });
  return e.body;
}

async function proofOf(id: string) {
  const res = await server.admin.get(`/enrollees/${id}/deletion-proof/`);
  expect(res.status).toBe(200);
  return res.body as {
    complete: boolean;
    terminals: {
      serial_number: string;
      status: string;
      confirmed_at: string | null;
      last_heard_at: string | null;
      command: { kind: string; return_code: number | null } | null;
    }[];
    signature: string;
    [k: string]: unknown;
  };
}

const statuses = (proof: Awaited<ReturnType<typeof proofOf>>) => Object.fromEntries(proof.terminals.map((t) => [t.serial_number, t.status]));

describe('deletion proof', () => {
  test('incomplete until both terminals confirm (one offline for a day), then complete, signed and announced', async () => {
    const a = await terminal('PROOF-A');
    const b = await terminal('PROOF-B');
    const p = await person('PR-1');
    await drain(a);
    await drain(b);
    expect([...a.templates.values()].some((t) => t.pin === p.device_pin)).toBe(true);
    expect([...b.templates.values()].some((t) => t.pin === p.device_pin)).toBe(true);

    // No deletion asked yet: no proof.
    expect((await server.admin.get(`/enrollees/${p.id}/deletion-proof/`)).status).toBe(404);

    expect((await server.admin.delete(`/enrollees/${p.id}/consent`)).status).toBe(200);
    let proof = await proofOf(p.id);
    expect(proof).toMatchObject({ enrollee: p.id, employee: 'PR-1', reason: 'consent_withdrawn', complete: false, completed_at: null });
    expect(proof.server).toMatchObject({ templates_destroyed: 1 });
    expect(statuses(proof)).toEqual({ 'PROOF-A': 'pending', 'PROOF-B': 'pending' });

    // A answers now; B is offline.
    await drain(a);
    expect([...a.templates.values()].some((t) => t.pin === p.device_pin)).toBe(false);
    proof = await proofOf(p.id);
    expect(statuses(proof)).toEqual({ 'PROOF-A': 'confirmed', 'PROOF-B': 'pending' });
    expect(proof.complete).toBe(false);
    const confirmedA = proof.terminals.find((t) => t.serial_number === 'PROOF-A')!;
    expect(confirmedA.command).toMatchObject({ kind: 'delete_template', return_code: 0 });
    expect(confirmedA.confirmed_at).not.toBeNull();

    // A day later B is still only pending (not unreachable), then comes back and answers.
    offset += DAY + 60 * 60_000;
    proof = await proofOf(p.id);
    expect(statuses(proof)).toEqual({ 'PROOF-A': 'confirmed', 'PROOF-B': 'pending' });
    await b.handshake();
    await drain(b);
    expect([...b.templates.values()].some((t) => t.pin === p.device_pin)).toBe(false);
    proof = await proofOf(p.id);
    expect(proof.complete).toBe(true);
    expect(statuses(proof)).toEqual({ 'PROOF-A': 'confirmed', 'PROOF-B': 'confirmed' });

    // The signature verifies against the published key set (no authentication), and covers the rest.
    const jwksRes = await fetch(`${server.url}/.well-known/fpa-proof-key.json`);
    expect(jwksRes.status).toBe(200);
    const jwks = (await jwksRes.json()) as JSONWebKeySet;
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(JSON.stringify(jwks)).not.toContain('"d"');
    const { payload, protectedHeader } = await compactVerify(proof.signature, createLocalJWKSet(jwks));
    expect(protectedHeader.alg).toBe('ES256');
    const { signature, ...rest } = proof;
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(rest);
    // A changed document no longer matches its signature's payload; a forged signature fails.
    const forged = `${signature.slice(0, -4)}${signature.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    await expect(compactVerify(forged, createLocalJWKSet(jwks))).rejects.toThrow();

    // The event reached the webhook.
    await waitFor(() => rx.calls.some((c) => JSON.parse(c.body).data?.enrollee === p.id), 'deletion_proof_completed delivered');
    const delivered = JSON.parse(rx.calls.find((c) => JSON.parse(c.body).data?.enrollee === p.id)!.body);
    expect(delivered.type).toBe('deletion_proof_completed');
    expect(delivered.data).toMatchObject({ enrollee: p.id, reason: 'consent_withdrawn', terminals: 2 });

    // The PDF reads as a document with the same facts and the signature.
    const pdf = await fetch(`${server.admin.base}/enrollees/${p.id}/deletion-proof.pdf`, { headers: server.admin.headers });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(await pdf.arrayBuffer())), { mergePages: true });
    expect(text).toContain('Proof of deletion');
    expect(text).toContain('PROOF-A');
    expect(text).toContain('PROOF-B');
    expect(text).toContain('Complete');
    expect(text.replace(/\s+/g, '')).toContain(proof.signature.slice(0, 40));
  });

  test('a person deleted while a terminal is removed: that terminal is pending, then unreachable after 30 days', async () => {
    await terminal('PROOF-C');
    const d = await terminal('PROOF-D');
    const p = await person('PR-2');
    for (const t of fleet.values()) await drain(t);
    expect((await server.admin.delete('/devices/PROOF-D/')).status).toBe(204);
    fleet.delete('PROOF-D');
    expect((await server.admin.delete(`/enrollees/${p.id}/`)).status).toBe(204);
    for (const t of fleet.values()) await drain(t);
    let proof = await proofOf(p.id);
    expect(proof.reason).toBe('deleted');
    expect(statuses(proof)).toEqual({ 'PROOF-A': 'confirmed', 'PROOF-B': 'confirmed', 'PROOF-C': 'confirmed', 'PROOF-D': 'pending' });
    expect(proof.terminals.find((t) => t.serial_number === 'PROOF-C')!.command).toMatchObject({ kind: 'delete_user' });
    offset += 31 * DAY;
    proof = await proofOf(p.id);
    expect(statuses(proof)).toEqual({ 'PROOF-A': 'confirmed', 'PROOF-B': 'confirmed', 'PROOF-C': 'confirmed', 'PROOF-D': 'unreachable' });
    expect(proof.complete).toBe(false);
    // It comes back after all: it is sent the delete it owes, and the proof completes.
    await d.handshake();
    await drain(d);
    proof = await proofOf(p.id);
    expect(statuses(proof)).toEqual({ 'PROOF-A': 'confirmed', 'PROOF-B': 'confirmed', 'PROOF-C': 'confirmed', 'PROOF-D': 'confirmed' });
    expect(proof.complete).toBe(true);
  });

  test('a person on no terminal: complete at once; an area-limited caller outside their areas gets 404', async () => {
    expect((await server.admin.post('/employees/', { id: 'PR-3', name: 'Nobody Anywhere' })).status).toBe(201);
    const e = await server.admin.post('/enrollees/', { employee: 'PR-3', areas: ['north'] });
    expect(e.status).toBe(201);
    // Consent on record (withdrawing a consent never given, with nothing stored, asks no deletion).
    expect((await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    expect((await server.admin.delete(`/enrollees/${e.body.id}/consent`)).status).toBe(200);
    const proof = await proofOf(e.body.id);
    expect(proof.complete).toBe(true);
    expect(proof.terminals).toEqual([]);
    expect((await server.admin.get('/enrollees/00000000-0000-4000-8000-000000000000/deletion-proof/')).status).toBe(404);
    const limitedTo = async (areas: string[]) => {
      const token = await new SignJWT({ scope: 'fpa:admin', fpa_role: 'hr', fpa_areas: areas })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('hr@example.com')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(JWT_SECRET));
      return new ApiClient(server.admin.base, { authorization: `Bearer ${token}` }).get(`/enrollees/${e.body.id}/deletion-proof/`);
    };
    expect((await limitedTo(['south'])).status).toBe(404);
    expect((await limitedTo(['north'])).status).toBe(200);
  });

  test('a person’s view says whether a proof is kept (has_deletion_proof): before the withdrawal not, after it, and after consent given again, so', async () => {
    expect((await server.admin.post('/employees/', { id: 'PR-HAS', name: 'Has Proof' })).status).toBe(201);
    const e = await server.admin.post('/enrollees/', { employee: 'PR-HAS' });
    expect(e.status).toBe(201);
    expect(e.body.has_deletion_proof).toBe(false);
    const view = async () => (await server.admin.get(`/enrollees/${e.body.id}/`)).body.has_deletion_proof;
    const listed = async () => (await server.admin.get(`/enrollees/?ids=${e.body.id}`)).body.results[0].has_deletion_proof;
    expect((await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    expect([await view(), await listed()]).toEqual([false, false]);
    expect((await server.admin.get(`/enrollees/${e.body.id}/deletion-proof/`)).status).toBe(404);
    expect((await server.admin.delete(`/enrollees/${e.body.id}/consent/`)).status).toBe(200);
    expect([await view(), await listed()]).toEqual([true, true]);
    expect((await server.admin.get(`/enrollees/${e.body.id}/deletion-proof/`)).status).toBe(200);
    // Consent given again: the proof of the withdrawal is still kept, and still said.
    expect((await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    expect([await view(), await listed()]).toEqual([true, true]);
  });

  test('one key for every instance; a rotation keeps the old public key published, so earlier proofs still verify', async () => {
    const before = (await (await fetch(`${server.url}/.well-known/fpa-proof-key.json`)).json()) as JSONWebKeySet;
    // A second instance over the same database signs with the same key.
    const second = await startTestServer({}, { dir: server.dir, db: server.fpa.db, startJobs: false, clock });
    try {
      expect(await second.fpa.service.proofKeys()).toEqual(before as never);
    } finally {
      await second.close();
    }
    const old = await proofOf((await server.admin.get('/events/?type=deletion_proof_completed&limit=1')).body.results[0].data.enrollee);
    const rotated = await server.admin.post('/jobs/rotate-proof-key/run/');
    expect(rotated.status).toBe(200);
    const after = (await (await fetch(`${server.url}/.well-known/fpa-proof-key.json`)).json()) as JSONWebKeySet;
    expect(after.keys.length).toBe(before.keys.length + 1);
    expect(after.keys.map((k) => k.kid)).toEqual(expect.arrayContaining(before.keys.map((k) => k.kid)));
    // The proof signed before the rotation verifies with the key set published after it.
    await compactVerify(old.signature, createLocalJWKSet(after));
    // A proof signed now uses the new key.
    const fresh = await proofOf(old.enrollee as string);
    const { protectedHeader } = await compactVerify(fresh.signature, createLocalJWKSet(after));
    expect(protectedHeader.kid).toBe(rotated.body.result.kid);
    expect(before.keys.map((k) => k.kid)).not.toContain(protectedHeader.kid);
  });

  test('withdrawn, then deleted before the terminals answered: the delete of the whole user confirms both', async () => {
    const p = await person('PR-4');
    for (const t of fleet.values()) await drain(t);
    expect((await server.admin.delete(`/enrollees/${p.id}/consent`)).status).toBe(200);
    expect((await server.admin.delete(`/enrollees/${p.id}/`)).status).toBe(204);
    let proof = await proofOf(p.id);
    expect(proof.reason).toBe('deleted');
    expect(proof.complete).toBe(false);
    // What each terminal owes now: the delete of the whole user, not the fingerprint delete it replaced.
    for (const t of proof.terminals) expect(t.command).toMatchObject({ kind: 'delete_user', status: 'pending' });
    for (const t of fleet.values()) {
      const ran = await drain(t);
      // The unsent fingerprint delete gave way to the delete of the whole user.
      expect(ran).toEqual([`DATA DELETE USERINFO PIN=${p.device_pin}`]);
    }
    proof = await proofOf(p.id);
    expect(proof.complete).toBe(true);
    expect(proof.terminals.every((t) => t.status === 'confirmed' && t.command?.kind === 'delete_user')).toBe(true);
    expect(proof.terminals.map((t) => t.serial_number).sort()).toEqual([...fleet.keys()].sort());
  });

  test('a delete the proof waits for cannot be cancelled; another command can', async () => {
    const e = await terminal('PROOF-E');
    const p = await person('PR-5');
    for (const t of fleet.values()) await drain(t);
    expect((await server.admin.delete(`/enrollees/${p.id}/consent`)).status).toBe(200);
    const queue = await server.admin.get('/devices/PROOF-E/commands/?status=pending');
    const owed = queue.body.results.find((c: { kind: string }) => c.kind === 'delete_template' || c.kind === 'delete_user');
    expect(owed).toBeDefined();
    // An installer clearing the queue would leave her fingerprint on the terminal for good.
    const refused = await server.admin.post(`/devices/PROOF-E/commands/${owed.id}/cancel/`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', details: { command: owed.id } });
    expect(refused.body.error.message).toContain('deletion proof waits for it');
    const still = await server.admin.get('/devices/PROOF-E/commands/?status=pending');
    const kept = still.body.results.find((c: { id: number }) => c.id === owed.id);
    // The queue says so beforehand, so that no one is offered a cancel bound to fail.
    expect(kept.cancel_refused).toBe(refused.body.error.message);
    // Any other command is cancelled as before.
    const info = await server.admin.post('/devices/PROOF-E/commands/', { kind: 'info' });
    expect(info.status).toBe(201);
    const queue2 = await server.admin.get('/devices/PROOF-E/commands/?status=pending');
    expect(queue2.body.results.find((c: { id: number }) => c.id === info.body.id).cancel_refused).toBeNull();
    expect((await server.admin.post(`/devices/PROOF-E/commands/${info.body.id}/cancel/`, {})).status).toBe(200);
    for (const t of fleet.values()) await drain(t);
    expect([...e.templates.values()].some((t) => t.pin === p.device_pin)).toBe(false);
    expect((await proofOf(p.id)).complete).toBe(true);
  });

  test('a terminal that confirmed one of two deletes is pending on the one it still owes, which the proof names', async () => {
    // The terminal answers the delete of finger 6 and never the one of finger 7.
    await terminal('PROOF-F', { respond: (c) => (/^DATA DELETE .*FID=7\b/.test(c.text) ? 'ignore' : undefined) });
    const p = await person('PR-6');
    await server.fpa.service.storeTemplate(p.id, 7, new Uint8Array(Buffer.from(syntheticTemplate(181), 'base64')), { algorithmVersion: '10', by: 'test' });
    for (const t of fleet.values()) await drain(t);
    expect((await server.admin.delete(`/enrollees/${p.id}/consent`)).status).toBe(200);
    for (const t of fleet.values()) await drain(t);
    const proof = await proofOf(p.id);
    expect(proof.complete).toBe(false);
    const f = proof.terminals.find((t) => t.serial_number === 'PROOF-F')!;
    const owed = (await server.admin.get('/devices/PROOF-F/commands/?status=sent')).body.results.find((c: { kind: string }) => c.kind === 'delete_template');
    expect(owed.payload).toMatchObject({ pin: p.device_pin, fingerIndex: 7 });
    expect(f).toMatchObject({ status: 'pending', confirmed_at: null, command: { id: owed.id, kind: 'delete_template', status: 'sent', return_code: null } });
  });

  test('in-process listeners hear a withdrawal’s events in the log’s order', async () => {
    const heard: number[] = [];
    const offs = FPA_EVENT_TYPES.map((type) => server.fpa.events.on(type, (_payload, event) => void heard.push(event.sequence)));
    try {
      const p = await person('PR-7');
      for (const t of fleet.values()) await drain(t);
      expect((await server.admin.delete(`/enrollees/${p.id}/consent`)).status).toBe(200);
      for (const t of fleet.values()) await drain(t);
      expect((await proofOf(p.id)).complete).toBe(true);
      // The deletes' answers, then the proof completed by the last of them: one order everywhere.
      expect(heard.length).toBeGreaterThan(3);
      expect(heard).toEqual([...heard].sort((a, b) => a - b));
    } finally {
      for (const off of offs) off();
    }
  });

  test('a terminal answering its delete with an error is shown with that answer, and when it was last heard from', async () => {
    await terminal('PROOF-G', { respond: (c) => (c.text.startsWith('DATA DELETE') ? -5 : undefined) });
    const p = await person('PR-8');
    for (const t of fleet.values()) await drain(t);
    expect((await server.admin.delete(`/enrollees/${p.id}/consent`)).status).toBe(200);
    for (const t of fleet.values()) await drain(t);
    const g = (await proofOf(p.id)).terminals.find((t) => t.serial_number === 'PROOF-G')!;
    expect(g.status).toBe('pending');
    // Retried, as the queue says: its error answer in the proof, not "not answered yet".
    expect(g.command).toMatchObject({ kind: 'delete_template', status: 'pending', return_code: -5 });
    expect(Date.parse(g.last_heard_at!)).toBeGreaterThan(clock.now() - 60_000);
    const pdf = await fetch(`${server.admin.base}/enrollees/${p.id}/deletion-proof.pdf`, { headers: server.admin.headers });
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(await pdf.arrayBuffer())), { mergePages: true });
    expect(text).toContain('Last heard from');
    fleet.delete('PROOF-G');
    expect((await server.admin.delete('/devices/PROOF-G/')).status).toBe(204);
  });

  test('templates destroyed, then the person deleted: the proof keeps when the templates were destroyed', async () => {
    const p = await person('PR-9');
    expect((await server.admin.delete(`/enrollees/${p.id}/consent`)).status).toBe(200);
    const destroyedAt = (await proofOf(p.id)).server as { at: string; templates_destroyed: number };
    offset += 60_000;
    expect((await server.admin.delete(`/enrollees/${p.id}/`)).status).toBe(204);
    expect((await proofOf(p.id)).server).toEqual(destroyedAt);
  });

  test('a terminal unreachable for long, then removed, stays unreachable (counted from when it was last heard from)', async () => {
    await terminal('PROOF-H');
    const p = await person('PR-10');
    for (const t of fleet.values()) await drain(t);
    fleet.delete('PROOF-H');
    expect((await server.admin.delete(`/enrollees/${p.id}/consent`)).status).toBe(200);
    for (const t of fleet.values()) await drain(t);
    offset += 31 * DAY;
    expect(statuses(await proofOf(p.id))['PROOF-H']).toBe('unreachable');
    expect((await server.admin.delete('/devices/PROOF-H/')).status).toBe(204);
    const after = (await proofOf(p.id)).terminals.find((t) => t.serial_number === 'PROOF-H')!;
    expect(after.status).toBe('unreachable');
    expect(Date.parse(after.last_heard_at!)).toBeLessThan(clock.now() - 30 * DAY);
  });
});
