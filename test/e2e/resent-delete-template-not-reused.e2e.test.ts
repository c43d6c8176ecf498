/**
 * The withdrawal variant. A withdrawal's delete of a finger went out, its answer late; consent
 * given again, the finger enrolled again at the terminal; withdrawn again: before, the new delete
 * was that earlier one (same content), so the earlier send's late answer closed it and completed
 * the proof while the finger enrolled after that send was still on the terminal.
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

test('withdrawn, given again, finger enrolled again, withdrawn again: the first delete’s late answer must not complete the proof', async () => {
  const t = await approvedTerminal(server, 'REUSE-2', ['south']);
  const lia = await enrolledPerson(server, 'E-REUSE2', 'Lia Reuse', ['south']);
  const consent = async (v: string) => expect((await server.admin.post(`/enrollees/${lia.id}/consent/`, { version: v, method: 'paper' })).status).toBe(201);
  await consent('v1');
  const pin = lia.device_pin;
  await drain(t);
  expect((await t.enrollFinger(pin, 4)).body).toBe('OK:1');
  await drain(t);
  // First withdrawal: the delete goes out and the terminal runs it; its answer is lost (for now).
  expect((await server.admin.delete(`/enrollees/${lia.id}/consent/`)).status).toBe(200);
  const first = await take(t);
  expect(first.map((c) => c.text)).toEqual([`DATA DELETE FINGERTMP PIN=${pin}\tFID=4`]);
  t.templates.delete(`${pin}:4`);
  now += server.fpa.settings.COMMAND_ACK_TIMEOUT + 1_000;
  expect((await server.admin.post('/jobs/retry-commands/run/')).status).toBe(200);
  // Consent given again; the person enrolls finger 4 again at the terminal.
  await consent('v2');
  expect((await t.enrollFinger(pin, 4)).body).toBe('OK:1');
  const templates = (await server.admin.get(`/enrollees/${lia.id}/templates/`)).body.results as { finger_index: number }[];
  expect(templates.map((x) => x.finger_index)).toEqual([4]);
  // Second withdrawal.
  expect((await server.admin.delete(`/enrollees/${lia.id}/consent/`)).status).toBe(200);
  const device = await deviceRow(server.fpa, 'REUSE-2');
  const rows = await server.fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.deviceId, device!.id));
  // The second withdrawal's own delete, queued behind the one that went out: not that one again.
  expect(
    rows
      .filter((r) => r.kind === 'delete_template' && r.status === 'pending')
      .map((r) => r.attempts)
      .sort(),
  ).toEqual([0, 1]);
  // The first send's late answer.
  await answer(
    t,
    first.map((c) => c.id),
  );
  const proof = (await server.admin.get(`/enrollees/${lia.id}/deletion-proof/`)).body as { complete: boolean; terminals: unknown[] };
  // That answer is the first send's: the proof waits for the second withdrawal's delete.
  expect(proof.complete).toBe(false);
  now += 2 * 3_600_000;
  await drain(t);
  expect([...t.templates.keys()].filter((k) => k.startsWith(`${pin}:`))).toEqual([]);
  expect(((await server.admin.get(`/enrollees/${lia.id}/deletion-proof/`)).body as { complete: boolean }).complete).toBe(true);
});
