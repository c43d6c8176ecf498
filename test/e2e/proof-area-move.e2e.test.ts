/**
 * A person whose consent was withdrawn is moved to another area before every terminal answered
 * its delete: once the move's date has begun (job `follow-area-moves`), each terminal they left
 * gets the delete of their whole user. Where the fingerprint delete never went out, that delete
 * takes its place and is what the proof waits for (named, cannot be cancelled, its answer
 * confirms); where it went out (answered with an error, waiting to be resent), it is never
 * superseded and stays owed. The same when the person is then deleted. The proof never names a
 * closed command as owed. Through the real server and simulated terminals, on the test clock.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { extractText, getDocumentProxy } from 'unpdf';
import { deviceCommands } from '../../src/app/schema';
import { SimulatedTerminal, type SimulatedTerminalOptions, syntheticTemplate } from '../../src/simulator/terminal';
import { clientAs, startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

const DAY = 24 * 60 * 60_000;
let offset = 0;
const clock = { now: () => Date.now() + offset };
let server: TestServer;
/** Every terminal approved so far (all in north: each gets every person). */
const fleet: SimulatedTerminal[] = [];
/** While set, the terminals that honour it answer every delete with -5 (a transient error, retried). */
let refuseDeletes = false;
const refusing: SimulatedTerminalOptions['respond'] = (c) => (refuseDeletes && c.text.startsWith('DATA DELETE') ? -5 : undefined);

interface Command {
  id: number;
  kind: string;
  status: string;
  payload: Record<string, unknown>;
  return_code: number | null;
  cancel_refused: string | null;
}

interface ProofTerminal {
  serial_number: string;
  status: string;
  command: { id: number; kind: string; status: string; return_code: number | null } | null;
}

beforeAll(async () => {
  server = await startTestServer({}, { clock });
  for (const name of ['north', 'south']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

async function terminal(sn: string, area: string, options: Partial<SimulatedTerminalOptions> = {}): Promise<SimulatedTerminal> {
  const t = new SimulatedTerminal({ url: server.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${sn}/approve/`, { areas: [area] })).status).toBe(200);
  await drain(t);
  fleet.push(t);
  return t;
}

/** A consenting person of `north` with fingerprint 3 stored, sent to every terminal. */
async function person(id: string): Promise<{ id: string; device_pin: string }> {
  expect((await server.admin.post('/employees/', { id, name: `Person ${id}` })).status).toBe(201);
  const e = await server.admin.post('/enrollees/', { employee: id, areas: ['north'] });
  expect(e.status).toBe(201);
  expect((await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  await server.fpa.service.storeTemplate(e.body.id, 3, new Uint8Array(Buffer.from(syntheticTemplate(183), 'base64')), { algorithmVersion: '10', by: 'test' });
  for (const t of fleet) {
    await drain(t);
    expect(t.templates.has(`${e.body.device_pin}:3`)).toBe(true);
  }
  return e.body;
}

async function queueOf(sn: string, pin: string): Promise<Command[]> {
  const res = await server.admin.get(`/devices/${sn}/commands/?limit=100`);
  expect(res.status).toBe(200);
  return (res.body.results as Command[]).filter((c) => c.payload.pin === pin);
}

async function proofOf(enrolleeId: string): Promise<{ complete: boolean; terminals: ProofTerminal[] }> {
  const res = await server.admin.get(`/enrollees/${enrolleeId}/deletion-proof/`);
  expect(res.status).toBe(200);
  return res.body;
}

const on = (proof: { terminals: ProofTerminal[] }, sn: string) => proof.terminals.find((t) => t.serial_number === sn)!;

/** Every command the proof names as owed (pending or sent) is open in its terminal's queue. */
async function namesOnlyOpenCommands(enrolleeId: string, pin: string): Promise<void> {
  for (const t of (await proofOf(enrolleeId)).terminals) {
    if (t.status === 'confirmed') continue;
    const named = (await queueOf(t.serial_number, pin)).find((c) => c.id === t.command?.id);
    expect(named?.status).toBe(t.command?.status);
    expect(['pending', 'sent']).toContain(named!.status);
  }
}

describe('consent withdrawn, then the person moved out of the area', () => {
  test('the delete of the whole user takes the unsent delete’s place in the proof; a sent delete stays owed', async () => {
    const pt1 = await terminal('MOVE-PT1', 'north');
    const pt2 = await terminal('MOVE-PT2', 'north', { respond: refusing });
    const p = await person('MOVE-1');

    // Withdrawn: PT1 is offline; PT2 takes its delete and answers -5, so it waits to be resent.
    expect((await server.admin.delete(`/enrollees/${p.id}/consent/`)).status).toBe(200);
    refuseDeletes = true;
    expect(await drain(pt2)).toEqual([`DATA DELETE FINGERTMP PIN=${p.device_pin}\tFID=3`]);
    const [fingerDelete1] = (await queueOf('MOVE-PT1', p.device_pin)).filter((c) => c.kind === 'delete_template');
    const [sentDelete2] = (await queueOf('MOVE-PT2', p.device_pin)).filter((c) => c.kind === 'delete_template');
    expect(sentDelete2).toMatchObject({ status: 'pending', return_code: -5 });
    let proof = await proofOf(p.id);
    expect(on(proof, 'MOVE-PT1').command).toMatchObject({ id: fingerDelete1!.id, kind: 'delete_template', status: 'pending' });

    // Moved to south: the rest of the day is judged under north, so its terminals keep the
    // person until the move's date, and PT1 still owes the fingerprint delete.
    expect((await server.admin.patch(`/enrollees/${p.id}/`, { areas: ['south'] })).status).toBe(200);
    let queue1 = await queueOf('MOVE-PT1', p.device_pin);
    expect(queue1.find((c) => c.id === fingerDelete1!.id)!.status).toBe('pending');
    expect(queue1.some((c) => c.kind === 'delete_user')).toBe(false);
    // The move's date has begun: both terminals are to lose the whole user.
    offset += DAY;
    expect((await server.admin.post('/jobs/follow-area-moves/run/')).body.result).toMatchObject({ people: 1, queued: 2 });
    queue1 = await queueOf('MOVE-PT1', p.device_pin);
    const userDelete1 = queue1.find((c) => c.kind === 'delete_user')!;
    expect(queue1.find((c) => c.id === fingerDelete1!.id)!.status).toBe('superseded');
    proof = await proofOf(p.id);
    // PT1 owes the delete that took the finger delete's place; it cannot be cancelled.
    expect(on(proof, 'MOVE-PT1')).toMatchObject({ status: 'pending', command: { id: userDelete1.id, kind: 'delete_user', status: 'pending' } });
    expect(userDelete1.cancel_refused).toContain('deletion proof waits for it');
    const cancel = await server.admin.post(`/devices/MOVE-PT1/commands/${userDelete1.id}/cancel/`, {});
    expect(cancel.status).toBe(409);
    // PT2's delete went out: it is never superseded, and still what PT2 owes.
    const queue2 = await queueOf('MOVE-PT2', p.device_pin);
    expect(queue2.find((c) => c.id === sentDelete2!.id)).toMatchObject({ status: 'pending', return_code: -5 });
    expect(on(proof, 'MOVE-PT2')).toMatchObject({ status: 'pending', command: { id: sentDelete2!.id, status: 'pending', return_code: -5 } });
    expect((await server.admin.post(`/devices/MOVE-PT2/commands/${sentDelete2!.id}/cancel/`, {})).status).toBe(409);
    await namesOnlyOpenCommands(p.id, p.device_pin);

    // The PDF names the live delete, never the superseded one.
    const pdf = await fetch(`${server.admin.base}/enrollees/${p.id}/deletion-proof.pdf`, { headers: server.admin.headers });
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(await pdf.arrayBuffer())), { mergePages: true });
    expect(text).toContain(`#${userDelete1.id}`);
    expect(text).not.toContain(`#${fingerDelete1!.id} `);

    // PT1 comes back: the delete of the whole user removes the fingerprint and confirms PT1.
    expect(await drain(pt1)).toEqual([`DATA DELETE USERINFO PIN=${p.device_pin}`]);
    expect(pt1.templates.has(`${p.device_pin}:3`)).toBe(false);
    expect(on(await proofOf(p.id), 'MOVE-PT1')).toMatchObject({ status: 'confirmed', command: { id: userDelete1.id, status: 'succeeded' } });

    // PT2 stops refusing: its deletes go out and the proof is complete.
    refuseDeletes = false;
    offset += 2 * 60 * 60_000;
    await drain(pt2);
    expect(pt2.templates.has(`${p.device_pin}:3`)).toBe(false);
    expect((await proofOf(p.id)).complete).toBe(true);
  });

  test('deleted after the withdrawal: a delete that went out is not superseded, an unsent one is replaced', async () => {
    const pt3 = await terminal('MOVE-PT3', 'north');
    await terminal('MOVE-PT4', 'north', { respond: refusing });
    const p = await person('MOVE-2');
    expect((await server.admin.delete(`/enrollees/${p.id}/consent/`)).status).toBe(200);
    refuseDeletes = true;
    for (const t of fleet.filter((t) => t !== pt3)) await drain(t);
    const [sentDelete] = (await queueOf('MOVE-PT4', p.device_pin)).filter((c) => c.kind === 'delete_template');
    expect((await server.admin.delete(`/enrollees/${p.id}/`)).status).toBe(204);
    expect((await queueOf('MOVE-PT4', p.device_pin)).find((c) => c.id === sentDelete!.id)).toMatchObject({ status: 'pending', return_code: -5 });
    const proof = await proofOf(p.id);
    // Every other terminal answered its fingerprint delete; PT3 had not (offline): it owes the delete of the whole user now.
    expect(on(proof, 'MOVE-PT3').command).toMatchObject({ kind: 'delete_user', status: 'pending' });
    expect(on(proof, 'MOVE-PT4').command).toMatchObject({ id: sentDelete!.id, status: 'pending', return_code: -5 });
    await namesOnlyOpenCommands(p.id, p.device_pin);
    refuseDeletes = false;
    offset += 2 * 60 * 60_000;
    for (const t of fleet) await drain(t);
    expect((await proofOf(p.id)).complete).toBe(true);
  });

  test('a delete the proof waited for closed without an answer is shown as it stands, never as owed', async () => {
    await terminal('MOVE-PT5', 'north');
    const p = await person('MOVE-3');
    expect((await server.admin.delete(`/enrollees/${p.id}/consent/`)).status).toBe(200);
    const [owed] = (await queueOf('MOVE-PT5', p.device_pin)).filter((c) => c.kind === 'delete_template');
    // A database from before this release: the delete was closed under the proof.
    await server.fpa.db.write(({ tx }) => tx.update(deviceCommands).set({ status: 'superseded' }).where(eq(deviceCommands.id, owed!.id)));
    expect(on(await proofOf(p.id), 'MOVE-PT5')).toMatchObject({ status: 'pending', command: { id: owed!.id, status: 'superseded' } });
  });
});

describe('who reads a proof', () => {
  test('a caller limited to one of the person’s areas reads every terminal that held them, whatever its area; those terminals stay out of its reach', async () => {
    await terminal('AREA-S1', 'south');
    expect((await server.admin.post('/employees/', { id: 'AREA-DAN', name: 'Dan' })).status).toBe(201);
    const dan = (await server.admin.post('/enrollees/', { employee: 'AREA-DAN', areas: ['north', 'south'] })).body as { id: string; device_pin: string };
    expect((await server.admin.post(`/enrollees/${dan.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    await server.fpa.service.storeTemplate(dan.id, 3, new Uint8Array(Buffer.from(syntheticTemplate(184), 'base64')), { algorithmVersion: '10', by: 'test' });
    for (const t of fleet) await drain(t);
    expect((await server.admin.delete(`/enrollees/${dan.id}/consent/`)).status).toBe(200);
    for (const t of fleet) await drain(t);

    const southHr = await clientAs(server, 'hr', ['south']);
    const res = await southHr.get(`/enrollees/${dan.id}/deletion-proof/`);
    expect(res.status).toBe(200);
    const { issued_at: _i, signature: _s, ...seen } = res.body;
    const { issued_at: _j, signature: _t, ...whole } = (await server.admin.get(`/enrollees/${dan.id}/deletion-proof/`)).body;
    // One signed document for every reader: the north terminals are in it too (README "Proof of deletion", who may read it).
    expect(seen).toEqual(whole);
    expect(seen.terminals.map((t: ProofTerminal) => t.serial_number)).toEqual(expect.arrayContaining(['AREA-S1', 'MOVE-PT1']));
    expect((await southHr.get('/devices/MOVE-PT1/')).status).toBe(404);
  });
});
