/**
 * A withdrawal's delete of a finger went out, its answer late, and waits to be resent; consent is
 * given again and the finger enrolled again at the terminal. Before, the service showed it
 * `present` there and the resent delete removed it; now the write of that finger is queued again
 * behind the delete (pending until the terminal confirms it), so the terminal keeps it.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Clock } from '../../src/platform/runtime';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { approvedTerminal, drain, enrolledPerson } from '../support/terminals';

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

test('consent given again and the finger enrolled again: the first withdrawal’s delete, resent, is followed by the finger written again', async () => {
  const t = await approvedTerminal(server, 'REUSE-3', ['south']);
  const mo = await enrolledPerson(server, 'E-REUSE3', 'Mo Reuse', ['south']);
  const consent = async (v: string) => expect((await server.admin.post(`/enrollees/${mo.id}/consent/`, { version: v, method: 'paper' })).status).toBe(201);
  await consent('v1');
  const pin = mo.device_pin;
  await drain(t);
  expect((await t.enrollFinger(pin, 4)).body).toBe('OK:1');
  await drain(t);
  expect((await server.admin.delete(`/enrollees/${mo.id}/consent/`)).status).toBe(200);
  const first = await take(t);
  expect(first.map((c) => c.text)).toEqual([`DATA DELETE FINGERTMP PIN=${pin}\tFID=4`]);
  t.templates.delete(`${pin}:4`);
  now += server.fpa.settings.COMMAND_ACK_TIMEOUT + 1_000;
  expect((await server.admin.post('/jobs/retry-commands/run/')).status).toBe(200);
  await consent('v2');
  expect((await t.enrollFinger(pin, 4)).body).toBe('OK:1');
  const before = (await server.admin.get(`/enrollees/${mo.id}/templates/`)).body.results as {
    finger_index: number;
    sync: { device: string; status: string }[];
  }[];
  // The delete that went out may still be carried out there: the write is owed again, behind it.
  expect(before[0]!.sync.map((x) => x.status)).toEqual(['pending']);
  now += 2 * 3_600_000;
  await drain(t);
  const after = (await server.admin.get(`/enrollees/${mo.id}/templates/`)).body.results as {
    finger_index: number;
    sync: { device: string; status: string }[];
  }[];
  // The finger enrolled with consent is the person's: the terminal should keep it.
  expect(t.templates.has(`${pin}:4`)).toBe(true);
  expect(after[0]!.sync.map((x) => x.status)).toEqual(['present']);
});
