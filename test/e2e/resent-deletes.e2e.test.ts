/**
 * A delete that went out, whose answer came late, and was put back for a resend (the retry job):
 * - a person's deletion must not reuse an earlier delete_user that went out (deactivation):
 *   before, a late answer to that earlier send closed the deletion's delete and completed the
 *   proof, while the user record and finger written after it stayed on the terminal;
 * - the withdrawal variant: withdrawn, consent given again, the finger enrolled again, withdrawn
 *   again; before, the new delete was the earlier one (same content), so its late answer closed it;
 * - consent given again and the finger enrolled again while the first withdrawal's delete waits to
 *   be resent: before, the service showed it `present` and the resent delete removed it; now the
 *   write of that finger is queued again behind the delete (pending until confirmed).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { deviceCommands } from '../../src/app/schema';
import type { Clock } from '../../src/platform/runtime';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { answerCommands, approvedTerminal, deviceRow, drain, type EnrolledPerson, enrolledPerson, takeCommands } from '../support/terminals';

let now = Date.parse('2026-04-14T08:00:00Z');
const clock: Clock = { now: () => now };
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { clock });
});
afterAll(async () => {
  await server.close();
});

const consent = async (person: EnrolledPerson, version: string) =>
  expect((await server.admin.post(`/enrollees/${person.id}/consent/`, { version, method: 'paper' })).status).toBe(201);

/** No answer within COMMAND_ACK_TIMEOUT: the retry job puts what went out back for a resend, after a backoff. */
async function answerLost(): Promise<void> {
  now += server.fpa.settings.COMMAND_ACK_TIMEOUT + 1_000;
  expect((await server.admin.post('/jobs/retry-commands/run/')).status).toBe(200);
}

/**
 * A person with consent whose finger 4, enrolled at the terminal, is deleted by a withdrawal: the
 * delete goes out and the terminal runs it, its answer lost; consent is given again and the
 * finger enrolled again there. The delete's send, as the terminal took it.
 */
async function reenrolledAfterLostDelete(serial: string, employee: string, name: string) {
  // An area of its own: no other test's terminal shares the person (their proof would wait for it).
  const t = await approvedTerminal(server, serial, [serial]);
  const person = await enrolledPerson(server, employee, name, [serial]);
  await consent(person, 'v1');
  const pin = person.device_pin;
  await drain(t);
  expect((await t.enrollFinger(pin, 4)).body).toBe('OK:1');
  await drain(t);
  expect((await server.admin.delete(`/enrollees/${person.id}/consent/`)).status).toBe(200);
  const first = await takeCommands(t);
  expect(first.map((c) => c.text)).toEqual([`DATA DELETE FINGERTMP PIN=${pin}\tFID=4`]);
  t.templates.delete(`${pin}:4`);
  await answerLost();
  await consent(person, 'v2');
  expect((await t.enrollFinger(pin, 4)).body).toBe('OK:1');
  return { t, person, pin, first };
}

/** The pending deletes of `kind` on a terminal, by their attempts. */
async function pendingAttempts(serial: string, kind: 'delete_user' | 'delete_template'): Promise<number[]> {
  const device = await deviceRow(server.fpa, serial);
  const rows = await server.fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.deviceId, device!.id));
  return rows
    .filter((r) => r.kind === kind && r.status === 'pending')
    .map((r) => r.attempts)
    .sort();
}

async function proofComplete(person: EnrolledPerson): Promise<boolean> {
  return ((await server.admin.get(`/enrollees/${person.id}/deletion-proof/`)).body as { complete: boolean }).complete;
}

/** The late answer to the first send arrives; then, past the backoff, whatever is still owed goes out. */
async function lateAnswerThenDrain(t: SimulatedTerminal, first: { id: string }[], person: EnrolledPerson): Promise<string[]> {
  await answerCommands(
    t,
    first.map((c) => c.id),
  );
  // That answer is the old send's: the proof waits for the new request's own delete.
  expect(await proofComplete(person)).toBe(false);
  now += 2 * 3_600_000;
  return drain(t);
}

test('a deletion whose delete_user is an earlier, resent one: its late answer must not stand for the deletion', async () => {
  const t = await approvedTerminal(server, 'REUSE-1', ['REUSE-1'], { now: clock.now });
  const kai = await enrolledPerson(server, 'E-REUSE', 'Kai Reuse', ['REUSE-1']);
  await consent(kai, 'v1');
  const pin = kai.device_pin;
  await drain(t);
  // Deactivated: the delete of the whole user goes out; its answer is lost (for now).
  expect((await server.admin.patch(`/enrollees/${kai.id}/`, { active: false })).status).toBe(200);
  const gone = await takeCommands(t);
  expect(gone.map((c) => c.text)).toEqual([`DATA DELETE USERINFO PIN=${pin}`]);
  // The terminal ran it (the user is gone from it); only its answer did not arrive.
  t.users.delete(pin);
  await answerLost();
  // Active again: the record goes out (the old delete waits for its backoff); a finger is enrolled there.
  expect((await server.admin.patch(`/enrollees/${kai.id}/`, { active: true })).status).toBe(200);
  await drain(t);
  // The person, active again, enrolls at the terminal's menu under the PIN HR gave them (walk-up by PIN).
  const user = `USER PIN=${pin}\tName=Kai Reuse\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\n`;
  t.users.set(pin, { pin, name: 'Kai Reuse', fields: { PIN: pin } });
  expect((await t.post('cdata', { table: 'OPERLOG', Stamp: '7' }, user)).body).toBe('OK:1');
  expect((await t.enrollFinger(pin, 2)).body).toBe('OK:1');
  const stored = (await server.admin.get(`/enrollees/${kai.id}/templates/`)).body.results as unknown[];
  expect(stored).toHaveLength(1);
  expect(t.users.has(pin)).toBe(true);
  // The person is deleted: the deletion's own delete, queued behind the one that went out, not that one again.
  expect((await server.admin.delete(`/enrollees/${kai.id}/`)).status).toBe(204);
  expect(await pendingAttempts('REUSE-1', 'delete_user')).toEqual([0, 1]);
  expect(await lateAnswerThenDrain(t, gone, kai)).toContain(`DATA DELETE USERINFO PIN=${pin}`);
  // The person's user and finger are gone from the terminal, and only then is the proof complete.
  expect(t.users.has(pin)).toBe(false);
  expect(await proofComplete(kai)).toBe(true);
});

test('withdrawn, given again, finger enrolled again, withdrawn again: the first delete’s late answer must not complete the proof', async () => {
  const { t, person: lia, pin, first } = await reenrolledAfterLostDelete('REUSE-2', 'E-REUSE2', 'Lia Reuse');
  const templates = (await server.admin.get(`/enrollees/${lia.id}/templates/`)).body.results as { finger_index: number }[];
  expect(templates.map((x) => x.finger_index)).toEqual([4]);
  // Second withdrawal: its own delete, queued behind the one that went out, not that one again.
  expect((await server.admin.delete(`/enrollees/${lia.id}/consent/`)).status).toBe(200);
  expect(await pendingAttempts('REUSE-2', 'delete_template')).toEqual([0, 1]);
  await lateAnswerThenDrain(t, first, lia);
  expect([...t.templates.keys()].filter((k) => k.startsWith(`${pin}:`))).toEqual([]);
  expect(await proofComplete(lia)).toBe(true);
});

test('consent given again and the finger enrolled again: the first withdrawal’s delete, resent, is followed by the finger written again', async () => {
  const { t, person: mo, pin } = await reenrolledAfterLostDelete('REUSE-3', 'E-REUSE3', 'Mo Reuse');
  const syncOf = async () =>
    ((await server.admin.get(`/enrollees/${mo.id}/templates/`)).body.results as { sync: { status: string }[] }[])[0]!.sync.map((x) => x.status);
  // The delete that went out may still be carried out there: the write is owed again, behind it.
  expect(await syncOf()).toEqual(['pending']);
  now += 2 * 3_600_000;
  await drain(t);
  // The finger enrolled with consent is the person's: the terminal keeps it.
  expect(t.templates.has(`${pin}:4`)).toBe(true);
  expect(await syncOf()).toEqual(['present']);
});
