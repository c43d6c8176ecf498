/**
 * A person's deletion must not reuse an earlier delete_user that went out (deactivation) and was
 * put back for a resend: before, a late answer to that earlier send closed the deletion's delete
 * and completed the proof, while the user record and finger written after that earlier send
 * stayed on the terminal and nothing was ever sent again.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { deviceCommands } from '../../src/app/schema';
import type { Clock } from '../../src/platform/runtime';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { approvedTerminal, deviceRow, drain, enrolledPerson } from '../support/terminals';

let now = Date.parse('2026-04-14T08:00:00Z');
const clock: Clock = { now: () => now };
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { clock });
});
afterAll(async () => {
  await server.close();
});

async function take(t: SimulatedTerminal): Promise<{ id: string; text: string }[]> {
  const res = await t.get('getrequest');
  expect(res.status).toBe(200);
  return res.body
    .split('\n')
    .filter((l) => l.startsWith('C:'))
    .map((l) => {
      const [, id, ...rest] = l.split(':');
      return { id: id!, text: rest.join(':') };
    });
}

async function answer(t: SimulatedTerminal, ids: readonly string[], code = 0): Promise<void> {
  const res = await t.post('devicecmd', {}, ids.map((id) => `ID=${id}&Return=${code}&CMD=DATA\n`).join(''));
  expect(res.status).toBe(200);
}

test('a deletion whose delete_user is an earlier, resent one: its late answer must not stand for the deletion', async () => {
  const t = await approvedTerminal(server, 'REUSE-1', ['south'], { now: clock.now });
  const kai = await enrolledPerson(server, 'E-REUSE', 'Kai Reuse', ['south']);
  expect((await server.admin.post(`/enrollees/${kai.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  const pin = kai.device_pin;
  await drain(t);
  // Deactivated: the delete of the whole user goes out; its answer is lost (for now).
  expect((await server.admin.patch(`/enrollees/${kai.id}/`, { active: false })).status).toBe(200);
  const gone = await take(t);
  expect(gone.map((c) => c.text)).toEqual([`DATA DELETE USERINFO PIN=${pin}`]);
  // The terminal ran it (the user is gone from it); only its answer did not arrive.
  t.users.delete(pin);
  // No answer within COMMAND_ACK_TIMEOUT: put back for a resend, after a backoff.
  now += server.fpa.settings.COMMAND_ACK_TIMEOUT + 1_000;
  expect((await server.admin.post('/jobs/retry-commands/run/')).status).toBe(200);
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
  // The person is deleted.
  expect((await server.admin.delete(`/enrollees/${kai.id}/`)).status).toBe(204);
  const device = await deviceRow(server.fpa, 'REUSE-1');
  const rows = await server.fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.deviceId, device!.id));
  // The deletion's own delete, queued behind the one that went out: not that one again.
  const pendingDeletes = rows.filter((r) => r.kind === 'delete_user' && r.status === 'pending');
  expect(pendingDeletes.map((r) => r.attempts).sort()).toEqual([0, 1]);
  // The late answer to the deactivation's send arrives.
  await answer(
    t,
    gone.map((c) => c.id),
  );
  const proof = (await server.admin.get(`/enrollees/${kai.id}/deletion-proof/`)).body as { complete: boolean; terminals: unknown[] };
  // That answer is the old send's: the proof waits for the deletion's own delete.
  expect(proof.complete).toBe(false);
  // Later polls: whatever is still owed goes out.
  now += 2 * 3_600_000;
  expect(await drain(t)).toContain(`DATA DELETE USERINFO PIN=${pin}`);
  // The person's user and finger must be gone from the terminal, or the proof must not be complete.
  const stillThere = t.users.has(pin);
  expect(stillThere).toBe(false);
  expect(((await server.admin.get(`/enrollees/${kai.id}/deletion-proof/`)).body as { complete: boolean }).complete).toBe(true);
});
