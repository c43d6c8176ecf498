/**
 * A withdrawal of consent deletes the person's templates on every terminal that holds one, even a
 * terminal whose answer to the person's user record came late (or never): it confirmed the
 * template the service sent it, so the finger there is theirs. Its user there is the person's
 * (linked, never a conflict), the delete goes there, and the deletion proof waits for it — judged
 * by the deletes of this withdrawal, never by a delete an earlier one confirmed. The case the
 * "not theirs" rule is for stays as it was: a terminal whose own menu user holds the PIN, that
 * never got the person's template, is sent no delete of that user's finger. Through the real
 * server, raw ADMS requests and simulated terminals.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { deviceUsers } from '../../src/app/schema';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { answerCommands, approvedTerminal, deviceRow, drain, type EnrolledPerson, enrolledPerson, takeCommands } from '../support/terminals';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

type TerminalUser = { pin: string; enrollee: string | null; conflict: unknown };
type ProofTerminal = { serial_number: string; status: string; command: { id: number; kind: string; status: string } | null };
type Proof = { complete: boolean; terminals: ProofTerminal[]; signature: string };

/**
 * A terminal approved into `areas` whose commands the test answers by hand: its query of users
 * answered (no users), nothing else yet.
 */
async function handAnswered(sn: string, areas: string[]): Promise<SimulatedTerminal> {
  const t = new SimulatedTerminal({ url: server.url, sn });
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${sn}/approve/`, { areas })).status).toBe(200);
  const first = await takeCommands(t);
  expect(first.map((c) => c.text)).toEqual(['DATA QUERY USERINFO']);
  await answerCommands(
    t,
    first.map((c) => c.id),
  );
  return t;
}

async function userOn(sn: string, pin: string): Promise<TerminalUser | undefined> {
  const res = await server.admin.get(`/devices/${sn}/users/`);
  expect(res.status).toBe(200);
  return (res.body.results as TerminalUser[]).find((u) => u.pin === pin);
}

async function proofOf(id: string): Promise<Proof> {
  const res = await server.admin.get(`/enrollees/${id}/deletion-proof/`);
  expect(res.status).toBe(200);
  return res.body as Proof;
}

const statuses = (proof: Proof) => Object.fromEntries(proof.terminals.map((t) => [t.serial_number, t.status]));

async function withConsent(employee: string, areas: string[]): Promise<EnrolledPerson> {
  const person = await enrolledPerson(server, employee, `Person ${employee}`, areas);
  expect((await server.admin.post(`/enrollees/${person.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  return person;
}

const fingerDelete = (pin: string, finger: number) => `DATA DELETE FINGERTMP PIN=${pin}\tFID=${finger}`;

describe('a withdrawal reaches every terminal that holds the finger', () => {
  test('ordinary flow: every terminal answered in time; each is sent the delete, the proof waits for both, then is complete', async () => {
    const a = await approvedTerminal(server, 'ORD-A', ['north']);
    const b = await approvedTerminal(server, 'ORD-B', ['north']);
    const ana = await withConsent('E-ORD', ['north']);
    await drain(a);
    await drain(b);
    expect((await a.uploadTemplate(ana.device_pin, 6)).body).toBe('OK:1');
    expect((await drain(b)).some((text) => text.startsWith(`DATA UPDATE FINGERTMP PIN=${ana.device_pin}\tFID=6`))).toBe(true);
    expect(await userOn('ORD-B', ana.device_pin)).toMatchObject({ enrollee: ana.id, conflict: null });
    expect((await server.admin.delete(`/enrollees/${ana.id}/consent/`)).status).toBe(200);
    const before = await proofOf(ana.id);
    expect(statuses(before)).toEqual({ 'ORD-A': 'pending', 'ORD-B': 'pending' });
    expect(before.complete).toBe(false);
    expect(await drain(a)).toContain(fingerDelete(ana.device_pin, 6));
    expect(await drain(b)).toContain(fingerDelete(ana.device_pin, 6));
    const after = await proofOf(ana.id);
    expect(statuses(after)).toEqual({ 'ORD-A': 'confirmed', 'ORD-B': 'confirmed' });
    expect(after.complete).toBe(true);
  });

  test('a terminal whose answer to the user record is late: the template it confirmed makes its user the person’s, and the withdrawal deletes it there', async () => {
    const ta = await approvedTerminal(server, 'LATE-A', ['east']);
    const tb = await handAnswered('LATE-B', ['east']);
    const e6 = await withConsent('E6', ['east']);
    const pin = e6.device_pin;
    await drain(ta);
    // TB takes the user record; its answer is lost.
    const record = await takeCommands(tb);
    expect(record.map((c) => c.text.split('\t')[0])).toEqual([`DATA UPDATE USERINFO PIN=${pin}`]);
    // Walk-up on TA: stored, fanned out to TB, which confirms the template.
    expect((await ta.uploadTemplate(pin, 6)).body).toBe('OK:1');
    const template = await takeCommands(tb);
    expect(template.map((c) => c.text.split('\t').slice(0, 2).join('\t'))).toEqual([`DATA UPDATE FINGERTMP PIN=${pin}\tFID=6`]);
    await answerCommands(
      tb,
      template.map((c) => c.id),
    );
    const sync = (await server.admin.get(`/enrollees/${e6.id}/templates/`)).body.results[0].sync as {
      device: string;
      status: string;
      held_version: number | null;
    }[];
    expect(sync.find((s) => s.device === 'LATE-B')).toMatchObject({ status: 'present', held_version: 1 });
    // The user the confirmation notes there is E6, as the record's answer would have made it: no conflict.
    expect(await userOn('LATE-B', pin)).toMatchObject({ enrollee: e6.id, conflict: null });

    expect((await server.admin.delete(`/enrollees/${e6.id}/consent/`)).status).toBe(200);
    expect(await drain(ta)).toContain(fingerDelete(pin, 6));
    const pending = await proofOf(e6.id);
    expect(statuses(pending)).toEqual({ 'LATE-A': 'confirmed', 'LATE-B': 'pending' });
    expect(pending.complete).toBe(false);
    const owed = await takeCommands(tb);
    expect(owed.map((c) => c.text)).toEqual([fingerDelete(pin, 6)]);
    // The record's late answer, then the delete's.
    await answerCommands(
      tb,
      record.map((c) => c.id),
    );
    expect(await userOn('LATE-B', pin)).toMatchObject({ enrollee: e6.id, conflict: null });
    expect((await proofOf(e6.id)).complete).toBe(false);
    await answerCommands(
      tb,
      owed.map((c) => c.id),
    );
    const done = await proofOf(e6.id);
    expect(statuses(done)).toEqual({ 'LATE-A': 'confirmed', 'LATE-B': 'confirmed' });
    expect(done.complete).toBe(true);
  });

  test('a user an earlier release left unlinked under the PIN: the sync record says the terminal holds the finger, so it is sent the delete all the same', async () => {
    const ta = await approvedTerminal(server, 'OLD-A', ['old']);
    const tb = await approvedTerminal(server, 'OLD-B', ['old']);
    const fay = await withConsent('E-OLD', ['old']);
    await drain(ta);
    await drain(tb);
    expect((await ta.uploadTemplate(fay.device_pin, 4)).body).toBe('OK:1');
    await drain(tb);
    // What an earlier release noted when the template's answer came before the record's: a user linked to nobody.
    const b = await deviceRow(server.fpa, 'OLD-B');
    await server.fpa.db.write(({ tx }) => tx.update(deviceUsers).set({ enrolleeId: null, source: 'reported' }).where(eq(deviceUsers.deviceId, b!.id)));
    expect((await server.admin.delete(`/enrollees/${fay.id}/consent/`)).status).toBe(200);
    expect(await drain(tb)).toContain(fingerDelete(fay.device_pin, 4));
    expect(await drain(ta)).toContain(fingerDelete(fay.device_pin, 4));
    expect(statuses(await proofOf(fay.id))).toEqual({ 'OLD-A': 'confirmed', 'OLD-B': 'confirmed' });
  });

  test('the same user left unlinked, and the person deleted: that terminal is sent the delete of the finger, never of the user (it may be its own)', async () => {
    const ta = await approvedTerminal(server, 'OLDDEL-A', ['olddel']);
    const tb = await approvedTerminal(server, 'OLDDEL-B', ['olddel']);
    const gil = await withConsent('E-OLDDEL', ['olddel']);
    await drain(ta);
    await drain(tb);
    expect((await ta.uploadTemplate(gil.device_pin, 7)).body).toBe('OK:1');
    await drain(tb);
    const b = await deviceRow(server.fpa, 'OLDDEL-B');
    await server.fpa.db.write(({ tx }) => tx.update(deviceUsers).set({ enrolleeId: null, source: 'reported' }).where(eq(deviceUsers.deviceId, b!.id)));
    expect((await server.admin.delete(`/enrollees/${gil.id}/`)).status).toBe(204);
    const sent = await drain(tb);
    expect(sent).toContain(fingerDelete(gil.device_pin, 7));
    expect(sent.filter((text) => text.startsWith('DATA DELETE USERINFO'))).toEqual([]);
    expect(await drain(ta)).toContain(`DATA DELETE USERINFO PIN=${gil.device_pin}`);
    const proof = await proofOf(gil.id);
    expect(statuses(proof)).toEqual({ 'OLDDEL-A': 'confirmed', 'OLDDEL-B': 'confirmed' });
    expect(proof.complete).toBe(true);
  });

  test('withdrawn, consent given again, withdrawn again: the terminal that missed its backfill’s answers is sent the new delete, and the proof waits for it, not for the first withdrawal’s', async () => {
    const t1 = await approvedTerminal(server, 'TWICE-1', ['west']);
    const t2 = await approvedTerminal(server, 'TWICE-2', ['west']);
    const station = await approvedTerminal(server, 'TWICE-4', ['hq']);
    expect((await server.admin.patch('/devices/TWICE-4/', { enrollment_station: true })).status).toBe(200);
    await drain(station);
    const e1 = await withConsent('E1', ['west']);
    const pin = e1.device_pin;
    expect((await t1.uploadTemplate(pin, 5)).body).toBe('OK:1');
    await drain(t2);
    // T3 approved afterwards: its backfill (E1's record and finger 5) runs, its answers are lost.
    const t3 = await handAnswered('TWICE-3', ['west']);
    const backfill = await takeCommands(t3);
    expect(backfill.map((c) => c.text.split('\t')[0])).toEqual([`DATA UPDATE USERINFO PIN=${pin}`, `DATA UPDATE FINGERTMP PIN=${pin}`]);

    // First withdrawal: T3 may hold finger 5 (sent, unanswered): sent its delete, which it confirms.
    expect((await server.admin.delete(`/enrollees/${e1.id}/consent/`)).status).toBe(200);
    const first = await takeCommands(t3);
    expect(first.map((c) => c.text)).toEqual([fingerDelete(pin, 5)]);
    await answerCommands(
      t3,
      first.map((c) => c.id),
    );
    await drain(t1);
    await drain(t2);
    expect((await proofOf(e1.id)).complete).toBe(true);

    // Consent given again; a station walk-up of finger 3, fanned out; T3 confirms it.
    expect((await server.admin.post(`/enrollees/${e1.id}/consent/`, { version: 'v2', method: 'paper' })).status).toBe(201);
    expect((await station.uploadTemplate(pin, 3)).body).toBe('OK:1');
    await drain(t1);
    await drain(t2);
    const finger3 = await takeCommands(t3);
    expect(finger3.map((c) => c.text.split('\t').slice(0, 2).join('\t'))).toEqual([`DATA UPDATE FINGERTMP PIN=${pin}\tFID=3`]);
    await answerCommands(
      t3,
      finger3.map((c) => c.id),
    );
    expect(await userOn('TWICE-3', pin)).toMatchObject({ enrollee: e1.id, conflict: null });

    // Second withdrawal: every holder of finger 3 is sent its delete, T3 included; the proof waits for T3.
    expect((await server.admin.delete(`/enrollees/${e1.id}/consent/`)).status).toBe(200);
    const second = await takeCommands(t3);
    expect(second.map((c) => c.text)).toEqual([fingerDelete(pin, 3)]);
    for (const t of [t1, t2, station]) expect(await drain(t)).toContain(fingerDelete(pin, 3));
    const waiting = await proofOf(e1.id);
    expect(waiting.complete).toBe(false);
    expect(waiting.terminals.find((t) => t.serial_number === 'TWICE-3')).toMatchObject({
      status: 'pending',
      command: { id: Number(second[0]!.id), kind: 'delete_template' },
    });
    await answerCommands(
      t3,
      second.map((c) => c.id),
    );
    const done = await proofOf(e1.id);
    expect(statuses(done)).toEqual({ 'TWICE-1': 'confirmed', 'TWICE-2': 'confirmed', 'TWICE-3': 'confirmed', 'TWICE-4': 'confirmed' });
    expect(done.complete).toBe(true);
  });

  test('an earlier delete of the whole user answered late does not confirm the delete this withdrawal owes', async () => {
    const t = await approvedTerminal(server, 'WHOLE-1', ['south']);
    const kai = await withConsent('E-WHOLE', ['south']);
    const pin = kai.device_pin;
    await drain(t);
    // Deactivated: the delete of the whole user goes out; its answer is lost.
    expect((await server.admin.patch(`/enrollees/${kai.id}/`, { active: false })).status).toBe(200);
    const gone = await takeCommands(t);
    expect(gone.map((c) => c.text)).toEqual([`DATA DELETE USERINFO PIN=${pin}`]);
    // Active again: the record and a finger written after that delete, confirmed.
    expect((await server.admin.patch(`/enrollees/${kai.id}/`, { active: true })).status).toBe(200);
    await drain(t);
    expect((await t.uploadTemplate(pin, 2)).body).toBe('OK:1');
    expect((await server.admin.delete(`/enrollees/${kai.id}/consent/`)).status).toBe(200);
    const owed = await takeCommands(t);
    expect(owed.map((c) => c.text)).toEqual([fingerDelete(pin, 2)]);
    // The old delete's late answer: finger 2 was written after it, so the withdrawal's delete is still owed.
    await answerCommands(
      t,
      gone.map((c) => c.id),
    );
    const waiting = await proofOf(kai.id);
    expect(waiting.terminals).toMatchObject([{ serial_number: 'WHOLE-1', status: 'pending', command: { id: Number(owed[0]!.id) } }]);
    expect(waiting.complete).toBe(false);
    await answerCommands(
      t,
      owed.map((c) => c.id),
    );
    expect((await proofOf(kai.id)).complete).toBe(true);
  });
});

describe('what the “not theirs” rule protects', () => {
  test('a terminal whose own menu user holds an adopted PIN, made there before the person’s finger went out: that user’s finger is not deleted', async () => {
    // Lee keeps PIN 42 from the terminal where an administrator adopted them.
    const home = await approvedTerminal(server, 'OWN-A', ['dock'], { existingUsers: [{ pin: '42', name: 'Lee Menu', fingers: [4] }] });
    expect((await server.admin.post('/employees/', { id: 'E-LEE', name: 'Lee Dock' })).status).toBe(201);
    const lee = (await server.admin.post('/devices/OWN-A/users/42/adopt/', { employee: 'E-LEE' })).body as EnrolledPerson;
    expect(lee.device_pin).toBe('42');
    await drain(home);
    const other = await handAnswered('OWN-B', ['dock']);
    expect((await server.admin.post(`/enrollees/${lee.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    await drain(home);
    // Lee's finger 1, stored from the home terminal: queued to OWN-B with Lee's record.
    expect((await home.uploadTemplate('42', 1)).body).toBe('OK:1');
    // Before OWN-B fetched them, someone makes their own user 42 at its menu: not Lee (an adopted PIN is Lee's only where adopted or sent).
    const menu = 'USER PIN=42\tName=Menu Own\tPri=0\tPasswd=\tCard=555\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\n';
    expect((await other.post('cdata', { table: 'OPERLOG', Stamp: '5' }, menu)).body).toBe('OK:1');
    expect(await userOn('OWN-B', '42')).toMatchObject({ enrollee: null });
    // Nothing of Lee's goes over that user.
    expect(await takeCommands(other)).toEqual([]);
    expect((await server.admin.delete(`/enrollees/${lee.id}/consent/`)).status).toBe(200);
    expect(await takeCommands(other)).toEqual([]);
    expect(await drain(home)).toContain(fingerDelete('42', 1));
    expect(await userOn('OWN-B', '42')).toMatchObject({ enrollee: null });
    const proof = await proofOf(lee.id);
    expect(statuses(proof)).toEqual({ 'OWN-A': 'confirmed' });
    expect(proof.complete).toBe(true);
  });
});
