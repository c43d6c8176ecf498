/**
 * A leave's delete waits until the service holds the fingerprints the terminal has (README
 * "Walk-up by PIN"; a reviewer's find).
 * Here the terminal answers the leave's DATA QUERY FINGERTMP (Return=0) before its upload of the
 * templates arrives (an upload paused or refused by back-pressure and retried later, or a
 * terminal that posts the result first): the service knows of no finger on that user (biometrics
 * are only noted from uploads), so "holds what it reported" is vacuously true and the delete goes
 * out at the next poll — the only copy of an adopted person's fingerprints was deleted. It now
 * waits for a template of theirs the terminal gave; once stored, scope-leave.e2e shows it goes.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { formatDeviceCmdResult } from '../../src/protocol/adms';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { approvedTerminal, drain } from '../support/terminals';

const ZONE = 'Europe/Berlin';
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
let now = berlin('2026-03-02', '07:00');
let server: TestServer;

function terminal(sn: string, area: string, existingUsers: { pin: string; name: string; fingers: number[] }[] = []): Promise<SimulatedTerminal> {
  return approvedTerminal(server, sn, [area], { timeZone: ZONE, now: () => now, existingUsers });
}
const commandsOf = (body: string) =>
  body
    .split('\n')
    .map((l) => /^C:([^:]+):(.*)$/.exec(l.replace(/\r$/, '')))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ id: m[1]!, text: m[2]! }));

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  for (const name of ['site-a', 'site-b']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

test('no DATA DELETE USERINFO for an adopted user before the service holds their fingerprints', async () => {
  const a = await terminal('ORD-A', 'site-a', [{ pin: '5', name: 'Menu Five', fingers: [2] }]);
  const b = await terminal('ORD-B', 'site-b');
  now = berlin('2026-03-03', '08:00');
  expect((await server.admin.post('/employees/', { id: 'ORD-1', name: 'Adopted Five' })).status).toBe(201);
  const adopted = await server.admin.post('/devices/ORD-A/users/5/adopt/', { employee: 'ORD-1' });
  expect(adopted.status).toBe(201);
  const id = adopted.body.id as string;
  expect((await server.admin.post(`/enrollees/${id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  expect((await server.admin.patch(`/enrollees/${id}/`, { areas: ['site-b'] })).status).toBe(200);
  await drain(b);
  now = berlin('2026-03-04', '00:05');
  expect((await server.admin.post('/jobs/follow-area-moves/run/')).status).toBe(200);

  // A's poll: answered with Return=0, its template upload not (yet) arrived.
  const first = await a.get('getrequest');
  const cmds = commandsOf(first.body);
  expect(cmds.map((c) => c.text)).toContain('DATA QUERY FINGERTMP PIN=5');
  const results = cmds.map((c) => formatDeviceCmdResult({ id: c.id, returnCode: 0, cmd: c.text.split(' ')[0] ?? 'DATA' })).join('\n');
  expect((await a.post('devicecmd', {}, `${results}\n`)).status).toBe(200);

  const stored = await server.admin.get<{ results: unknown[] }>(`/enrollees/${id}/templates/`);
  expect(stored.body.results).toEqual([]);
  const next = commandsOf((await a.get('getrequest')).body).map((c) => c.text);
  // The service holds none of their fingers yet: the terminal's copy must not be deleted.
  expect(next.filter((t) => t.startsWith('DATA DELETE USERINFO PIN=5'))).toEqual([]);
});
