/**
 * A terminal reset to factory settings (same serial, same address) comes back empty and says so
 * in its parameters (`UserCount=0`): it is asked for its users at once, the people it lost are
 * sent again when it answers (the reconciliation's own repair, without waiting for the hourly
 * job), and the diagnostics say it until it reports them again. Its empty state deletes nobody.
 * Through the real server and simulated terminals.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain, personWithFingers } from '../support/terminals';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'Europe/Berlin' });
  expect((await server.admin.post('/areas/', { name: 'siteR' })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

const person = (employee: string) => personWithFingers(server, employee, 'siteR');

/** Handshake and parameters: what the terminal reports of itself (its counts among them). */
async function reports(t: SimulatedTerminal): Promise<void> {
  await t.handshake();
  expect((await t.postOptions()).status).toBe(200);
}

async function diagnosticsOf(sn: string) {
  const res = await server.admin.get('/diagnostics/');
  expect(res.status).toBe(200);
  return (res.body.results as { kind: string; device: string; severity: string; details: Record<string, unknown> }[]).filter((d) => d.device === sn);
}

describe('a terminal reset to factory settings', () => {
  test('is asked for its users as soon as it reports none, gets its people back, and is a diagnostic until it holds them', async () => {
    const people = [await person('RS-1'), await person('RS-2'), await person('RS-3')];
    const before = new SimulatedTerminal({ url: server.url, sn: 'RESET1' });
    await reports(before);
    expect((await server.admin.post('/devices/RESET1/approve/', { areas: ['siteR'] })).status).toBe(200);
    await drain(before);
    expect(before.users.size).toBe(3);
    // Still reported empty as it was before its backfill: being filled is no loss.
    expect(await diagnosticsOf('RESET1')).toEqual([]);
    await reports(before);
    expect((await server.admin.get('/devices/RESET1/')).body.sync_check.in_sync).toBe(true);
    expect(await diagnosticsOf('RESET1')).toEqual([]);

    // Reset: the same serial, empty. It handshakes, posts its parameters (UserCount=0) and polls.
    const after = new SimulatedTerminal({ url: server.url, sn: 'RESET1' });
    await reports(after);
    const lost = await diagnosticsOf('RESET1');
    expect(lost.map((d) => [d.kind, d.severity])).toEqual([['users_lost', 'error']]);
    expect(lost[0]!.details).toMatchObject({ reported: 0, expected: 3, held: 3 });
    const sent = await drain(after);
    expect(sent[0]).toBe('DATA QUERY USERINFO');
    for (const p of people) {
      expect(after.users.has(p.device_pin)).toBe(true);
      expect(after.templates.has(`${p.device_pin}:5`)).toBe(true);
      expect(after.templates.has(`${p.device_pin}:6`)).toBe(true);
    }
    // Nobody was taken for deleted: the people are active, listed on it, their fingers present there.
    for (const p of people) expect((await server.admin.get(`/enrollees/${p.id}/`)).body.status).toBe('active');
    const listed = (await server.admin.get('/devices/RESET1/users/')).body.results as { pin: string; enrollee: string | null }[];
    expect(listed.map((u) => u.enrollee).sort()).toEqual(people.map((p) => p.id).sort());
    // Said until it reports its people again.
    expect((await diagnosticsOf('RESET1')).map((d) => d.kind)).toEqual(['users_lost']);
    await reports(after);
    expect(await diagnosticsOf('RESET1')).toEqual([]);
    const detail = (await server.admin.get('/devices/RESET1/')).body;
    expect(detail.sync_check.in_sync).toBe(true);
    expect(detail.templates_present).toBe(6);
  });
});
