/**
 * A deletion proof never says more than is true: a terminal that confirmed its delete and then
 * uploads the person's data again (a finger enrolled again at its menu after their consent was
 * withdrawn, or after they were deleted) is pending again in the proof, which is no longer
 * complete, until it answers the delete the refusal queued; that delete cannot be cancelled; the
 * proof's entry for the terminal says what happened. Completing again announces it again.
 * Through the real server and simulated terminals.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { extractText, getDocumentProxy } from 'unpdf';
import { SimulatedTerminal, type SimulatedTerminalOptions, syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { deviceLog, drain } from '../support/terminals';

let server: TestServer;

interface Returned {
  at: string;
  type: string;
  index: number;
  command: number;
  was_confirmed_at: string | null;
}
interface ProofTerminal {
  serial_number: string;
  status: string;
  confirmed_at: string | null;
  command: { id: number; kind: string; status: string; return_code: number | null } | null;
  data_returned: Returned[];
}
interface Proof {
  complete: boolean;
  completed_at: string | null;
  requested_at: string;
  terminals: ProofTerminal[];
}

beforeAll(async () => {
  server = await startTestServer({});
});
afterAll(async () => {
  await server.close();
});

async function terminal(sn: string, options: Partial<SimulatedTerminalOptions> = {}): Promise<SimulatedTerminal> {
  const t = new SimulatedTerminal({ url: server.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${sn}/approve/`, {})).status).toBe(200);
  await drain(t);
  return t;
}

/** A consenting person with finger 3 stored. */
async function person(id: string): Promise<{ id: string; device_pin: string }> {
  expect((await server.admin.post('/employees/', { id, name: `Person ${id}` })).status).toBe(201);
  const e = await server.admin.post('/enrollees/', { employee: id });
  expect(e.status).toBe(201);
  expect((await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  await server.fpa.service.storeTemplate(e.body.id, 3, new Uint8Array(Buffer.from(syntheticTemplate(183), 'base64')), { algorithmVersion: '10', by: 'test' });
  return e.body;
}

async function proofOf(id: string): Promise<Proof> {
  const res = await server.admin.get(`/enrollees/${id}/deletion-proof/`);
  expect(res.status).toBe(200);
  return res.body as Proof;
}

const on = (proof: Proof, sn: string) => proof.terminals.find((t) => t.serial_number === sn)!;

async function completions(enrollee: string): Promise<number> {
  const events = (await server.admin.get('/events/?type=deletion_proof_completed&limit=500')).body.results as { data: { enrollee: string } }[];
  return events.filter((e) => e.data.enrollee === enrollee).length;
}

async function pendingDeletes(sn: string, pin: string) {
  const queue = (await server.admin.get(`/devices/${sn}/commands/?status=pending`)).body.results as {
    id: number;
    kind: string;
    payload: Record<string, unknown>;
    cancel_refused: string | null;
  }[];
  return queue.filter((c) => c.kind === 'delete_template' && c.payload.pin === pin);
}

describe('data of a person with a deletion proof back on a terminal', () => {
  test('a finger uploaded again after the withdrawal reopens the proof until the terminal answers the new delete', async () => {
    const tn1 = await terminal('RET-1');
    const tn2 = await terminal('RET-2');
    const eve = await person('RET-EVE');
    await drain(tn1);
    await drain(tn2);
    expect((await server.admin.delete(`/enrollees/${eve.id}/consent/`)).status).toBe(200);
    await drain(tn1);
    await drain(tn2);
    let proof = await proofOf(eve.id);
    expect(proof.complete).toBe(true);
    const firstConfirmation = on(proof, 'RET-2').confirmed_at;
    expect(on(proof, 'RET-2')).toMatchObject({ status: 'confirmed', data_returned: [] });
    expect(await completions(eve.id)).toBe(1);

    // Her finger enrolled again at RET-2's menu: refused (no consent), a delete queued.
    expect((await tn2.enrollFinger(eve.device_pin, 3)).body).toBe('OK:1');
    const [rejected] = await deviceLog(server.fpa, 'RET-2', 'template_rejected');
    expect(rejected?.details).toMatchObject({ pin: eve.device_pin, reason: 'consent_required', delete_queued: true });
    const [owed] = await pendingDeletes('RET-2', eve.device_pin);
    expect(owed?.payload).toMatchObject({ fingerIndex: 3, rejected: true });

    proof = await proofOf(eve.id);
    expect(proof).toMatchObject({ complete: false, completed_at: null });
    expect(on(proof, 'RET-1')).toMatchObject({ status: 'confirmed', data_returned: [] });
    const tn2Entry = on(proof, 'RET-2');
    expect(tn2Entry).toMatchObject({
      status: 'pending',
      confirmed_at: null,
      command: { id: owed!.id, kind: 'delete_template', status: 'pending' },
      data_returned: [{ type: 'fingerprint', index: 3, command: owed!.id, was_confirmed_at: firstConfirmation }],
    });
    expect(Date.parse(tn2Entry.data_returned[0]!.at)).toBeGreaterThan(Date.parse(firstConfirmation!));

    // The PDF says so in words.
    const pdf = await fetch(`${server.admin.base}/enrollees/${eve.id}/deletion-proof.pdf`, { headers: server.admin.headers });
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(await pdf.arrayBuffer())), { mergePages: true });
    expect(text.replace(/\s+/g, ' ')).toContain(`uploaded this person's finger 3 again after it had confirmed its delete`);
    expect(text.replace(/\s+/g, ' ')).toContain(`sent delete command #${owed!.id}`);

    // That delete is one the proof waits for: it cannot be cancelled, and the queue says so.
    expect(owed!.cancel_refused).toContain('deletion proof waits for it');
    expect((await server.admin.post(`/devices/RET-2/commands/${owed!.id}/cancel/`, {})).status).toBe(409);

    // Withdrawing again changes nothing of it: the proof still waits for that delete.
    expect((await server.admin.delete(`/enrollees/${eve.id}/consent/`)).status).toBe(200);
    expect(on(await proofOf(eve.id), 'RET-2')).toMatchObject({ status: 'pending', command: { id: owed!.id } });

    // RET-2 answers it at its next poll: complete again, announced again.
    await drain(tn2);
    expect([...tn2.templates.values()].some((t) => t.pin === eve.device_pin)).toBe(false);
    proof = await proofOf(eve.id);
    expect(proof.complete).toBe(true);
    expect(on(proof, 'RET-2')).toMatchObject({ status: 'confirmed', command: { id: owed!.id, return_code: 0 } });
    expect(on(proof, 'RET-2').data_returned).toHaveLength(1);
    expect(await completions(eve.id)).toBe(2);
  });

  test('a deleted person’s finger from a terminal that has not yet taken them off: the proof waits for both deletes there', async () => {
    const tn1 = await terminal('RET-3');
    const tn2 = await terminal('RET-4');
    const dee = await person('RET-DEE');
    await drain(tn1);
    await drain(tn2);
    expect((await server.admin.delete(`/enrollees/${dee.id}/`)).status).toBe(204);
    await drain(tn1);
    expect((await tn2.enrollFinger(dee.device_pin, 4)).body).toBe('OK:1');
    const [rejected] = await deviceLog(server.fpa, 'RET-4', 'template_rejected');
    expect(rejected?.details).toMatchObject({ pin: dee.device_pin, reason: 'unknown_pin', delete_queued: true });
    const [owed] = await pendingDeletes('RET-4', dee.device_pin);
    const entry = on(await proofOf(dee.id), 'RET-4');
    expect(entry).toMatchObject({ status: 'pending', data_returned: [{ type: 'fingerprint', index: 4, command: owed!.id, was_confirmed_at: null }] });
    expect(owed!.cancel_refused).toContain('deletion proof waits for it');
    // The delete of the whole user goes first; the finger's delete, queued after it, is answered too
    // (a delete of the whole user answers only the deletes queued before it), and confirms the terminal.
    expect(await drain(tn2)).toEqual([`DATA DELETE USERINFO PIN=${dee.device_pin}`, `DATA DELETE FINGERTMP PIN=${dee.device_pin}\tFID=4`]);
    for (const sn of ['RET-1', 'RET-2']) await drain(new SimulatedTerminal({ url: server.url, sn }));
    const proof = await proofOf(dee.id);
    expect(proof.complete).toBe(true);
    expect(on(proof, 'RET-4')).toMatchObject({ status: 'confirmed', command: { id: owed!.id, kind: 'delete_template' } });
  });

  test('outside the person’s areas: listed in the proof until it answers; once consent is given again, a refusal is not about the deletion', async () => {
    expect((await server.admin.post('/areas/', { name: 'far' })).status).toBe(201);
    const near = await terminal('RET-5');
    const far = new SimulatedTerminal({ url: server.url, sn: 'RET-FAR' });
    await far.handshake();
    await far.postOptions();
    expect((await server.admin.post('/devices/RET-FAR/approve/', { areas: ['far'] })).status).toBe(200);
    await drain(far);
    const ann = await person('RET-ANN');
    await drain(near);
    expect((await server.admin.delete(`/enrollees/${ann.id}/consent/`)).status).toBe(200);
    for (const sn of ['RET-1', 'RET-2', 'RET-3', 'RET-4', 'RET-5']) await drain(new SimulatedTerminal({ url: server.url, sn }));
    let proof = await proofOf(ann.id);
    expect(proof.complete).toBe(true);
    expect(proof.terminals.map((t) => t.serial_number)).not.toContain('RET-FAR');

    expect((await far.enrollFinger(ann.device_pin, 5)).body).toBe('OK:1');
    const [rejected] = await deviceLog(server.fpa, 'RET-FAR', 'template_rejected');
    expect(rejected?.details).toMatchObject({ reason: 'not_in_scope', delete_queued: true });
    proof = await proofOf(ann.id);
    expect(proof.complete).toBe(false);
    expect(on(proof, 'RET-FAR')).toMatchObject({
      status: 'pending',
      confirmed_at: null,
      data_returned: [{ type: 'fingerprint', index: 5, was_confirmed_at: null }],
    });
    await drain(far);
    proof = await proofOf(ann.id);
    expect(proof.complete).toBe(true);
    const completedAt = proof.completed_at;

    // Consent given again: her data may be on terminals again; a refusal there leaves the proof as it is.
    expect((await server.admin.post(`/enrollees/${ann.id}/consent/`, { version: 'v2', method: 'paper' })).status).toBe(201);
    expect((await far.enrollFinger(ann.device_pin, 6)).body).toBe('OK:1');
    expect(await deviceLog(server.fpa, 'RET-FAR', 'template_rejected')).toHaveLength(2);
    proof = await proofOf(ann.id);
    expect(proof).toMatchObject({ complete: true, completed_at: completedAt });
    expect(on(proof, 'RET-FAR').data_returned).toHaveLength(1);
    expect((await pendingDeletes('RET-FAR', ann.device_pin))[0]?.cancel_refused).toBeNull();
  });

  test('a face photo a terminal reports again on the withdrawn person’s user: that user is deleted there and put back, and the proof waits for it', async () => {
    const vf = await terminal('RET-VF', { biodata: true, kinds: { visible_face: '58.10' } });
    const fay = await person('RET-FAY');
    for (const sn of ['RET-1', 'RET-2', 'RET-3', 'RET-4', 'RET-5']) await drain(new SimulatedTerminal({ url: server.url, sn }));
    await drain(vf);
    expect((await server.admin.delete(`/enrollees/${fay.id}/consent/`)).status).toBe(200);
    for (const sn of ['RET-1', 'RET-2', 'RET-3', 'RET-4', 'RET-5']) await drain(new SimulatedTerminal({ url: server.url, sn }));
    await drain(vf);
    expect((await proofOf(fay.id)).complete).toBe(true);

    // Her face enrolled again at the terminal's menu: the template is refused; the comparison photo that comes with it is not kept.
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, ...new Array(60).fill(7)]).toString('base64');
    const biophoto = `BIOPHOTO PIN=${fay.device_pin}\tFileName=${fay.device_pin}.jpg\tType=9\tSize=${jpeg.length}\tContent=${jpeg}\n`;
    expect((await vf.post('cdata', { table: 'BIOPHOTO', Stamp: '9999' }, biophoto)).body).toBe('OK:1');
    const [rejected] = await deviceLog(server.fpa, 'RET-VF', 'template_rejected');
    expect(rejected?.details).toMatchObject({ pin: fay.device_pin, type: 'face_photo', reason: 'consent_required', delete_queued: true });
    const proof = await proofOf(fay.id);
    expect(proof.complete).toBe(false);
    const entry = on(proof, 'RET-VF');
    expect(entry).toMatchObject({ status: 'pending', command: { kind: 'delete_user' }, data_returned: [{ type: 'face_photo' }] });
    // Deleted there (every biometric with the user), put back without it, so her card and PIN still punch.
    const sent = await drain(vf);
    expect(sent[0]).toStartWith(`DATA DELETE USERINFO PIN=${fay.device_pin}`);
    expect(sent[1]).toStartWith(`DATA UPDATE USERINFO PIN=${fay.device_pin}`);
    expect((await proofOf(fay.id)).complete).toBe(true);
  });
});
