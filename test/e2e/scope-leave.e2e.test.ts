/**
 * One rule for who leaves a terminal out of their scope (enrollment/leaving.ts), on every path: a
 * person the service enrolled leaves the old area's terminal as soon as their move takes effect;
 * a person adopted there, whose fingerprints the service never received, stays until the terminal
 * has been asked for them and they are stored, and then leaves it and reaches the new area's
 * terminal with them. Through the real server, simulated terminals and the test clock.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { approvedTerminal, drain } from '../support/terminals';

const ZONE = 'Europe/Berlin';
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
const MONDAY = '2026-03-02';
const TUESDAY = '2026-03-03';
let now = berlin(MONDAY, '07:00');
let server: TestServer;
let siteA: SimulatedTerminal;
let siteB: SimulatedTerminal;

function terminal(sn: string, area: string, existingUsers: { pin: string; name: string; fingers: number[] }[] = []): Promise<SimulatedTerminal> {
  return approvedTerminal(server, sn, [area], { timeZone: ZONE, now: () => now, existingUsers });
}

async function moveTo(id: string, area: string): Promise<void> {
  expect((await server.admin.patch(`/enrollees/${id}/`, { areas: [area] })).status).toBe(200);
}

async function followMoves(): Promise<Record<string, unknown>> {
  const run = await server.admin.post('/jobs/follow-area-moves/run/');
  expect(run.status).toBe(200);
  return run.body.result;
}

async function fingersStored(id: string): Promise<number[]> {
  const list = await server.admin.get<{ results: { finger_index: number }[] }>(`/enrollees/${id}/templates/`);
  return list.body.results.map((t) => t.finger_index).sort();
}

const consent = (id: string) => server.admin.post(`/enrollees/${id}/consent/`, { version: 'v1', method: 'paper' });

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  for (const name of ['site-a', 'site-b']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
  siteA = await terminal('LEAVE-A', 'site-a', [{ pin: '5', name: 'Menu Five', fingers: [2] }]);
  siteB = await terminal('LEAVE-B', 'site-b');
});
afterAll(async () => {
  await server.close();
});

describe('people moved from site A to site B', () => {
  test('a person enrolled through the service leaves A’s terminal at once when the move takes effect', async () => {
    now = berlin(MONDAY, '08:00');
    expect((await server.admin.post('/employees/', { id: 'LV-SENT', name: 'Sent One' })).status).toBe(201);
    const p = (await server.admin.post('/enrollees/', { employee: 'LV-SENT', areas: ['site-a'] })).body as { id: string; device_pin: string };
    expect((await consent(p.id)).status).toBe(201);
    await server.fpa.service.storeTemplate(p.id, 3, new Uint8Array(Buffer.from(syntheticTemplate(183), 'base64')), { algorithmVersion: '10', by: 'test' });
    await drain(siteA);
    expect(siteA.templates.has(`${p.device_pin}:3`)).toBe(true);

    await moveTo(p.id, 'site-b');
    await drain(siteB);
    now = berlin(TUESDAY, '00:05');
    expect(await followMoves()).toMatchObject({ people: 1, queued: 1 });
    expect(await drain(siteA)).toEqual([`DATA DELETE USERINFO PIN=${p.device_pin}`]);
    expect(siteB.templates.has(`${p.device_pin}:3`)).toBe(true);
  });

  test('a person adopted on A, whose fingerprints the service never received, stays on A until they are stored, then leaves it', async () => {
    now = berlin(TUESDAY, '08:00');
    expect((await server.admin.post('/employees/', { id: 'LV-ADOPT', name: 'Adopted Five' })).status).toBe(201);
    const adopted = await server.admin.post('/devices/LEAVE-A/users/5/adopt/', { employee: 'LV-ADOPT' });
    expect(adopted.status).toBe(201);
    const id = adopted.body.id as string;
    // Consent asks A for their fingerprints, but A does not call before the move takes effect.
    expect((await consent(id)).status).toBe(201);
    expect(await fingersStored(id)).toEqual([]);

    await moveTo(id, 'site-b');
    expect(await drain(siteB)).toEqual([expect.stringMatching(/^DATA UPDATE USERINFO PIN=5\t/)]);
    now = berlin('2026-03-04', '00:05');
    expect(await followMoves()).toMatchObject({ people: 1, queued: 1 });

    // A is asked for their fingerprints (after their record the adoption queued): no delete
    // before they are stored.
    const first = (await siteA.poll()).map((c) => c.text);
    expect(first).toContain('DATA QUERY FINGERTMP PIN=5');
    expect(first.filter((c) => c.startsWith('DATA DELETE'))).toEqual([]);
    expect(siteA.users.has('5')).toBe(true);
    expect(await fingersStored(id)).toEqual([2]);
    const log = (await server.admin.get('/devices/LEAVE-A/')).body.recent_events as { kind: string; details: Record<string, unknown> }[];
    expect(log.find((e) => e.kind === 'leave_waits')).toMatchObject({ details: { pin: '5', enrollee: id, fetching: true } });

    // Stored: they leave A, and B gets the finger A held.
    expect(await drain(siteA)).toEqual(['DATA DELETE USERINFO PIN=5']);
    expect(siteA.users.has('5')).toBe(false);
    await drain(siteB);
    expect(siteB.templates.has('5:2')).toBe(true);
    const users = (await server.admin.get('/devices/LEAVE-A/users/')).body.results as { pin: string }[];
    expect(users.map((u) => u.pin)).not.toContain('5');
  });

  test('a terminal moved to another area: an adopted user whose fingerprints the service holds is asked for them first, then leaves', async () => {
    now = berlin('2026-03-04', '09:00');
    expect((await server.admin.post('/areas/', { name: 'site-c' })).status).toBe(201);
    const c = await terminal('LEAVE-C', 'site-c', [{ pin: '7', name: 'Menu Seven', fingers: [4] }]);
    expect((await server.admin.post('/employees/', { id: 'LV-C', name: 'Seven Adopted' })).status).toBe(201);
    const adopted = await server.admin.post('/devices/LEAVE-C/users/7/adopt/', { employee: 'LV-C' });
    expect(adopted.status).toBe(201);
    expect((await consent(adopted.body.id)).status).toBe(201);
    await drain(c);
    expect(await fingersStored(adopted.body.id)).toEqual([4]);

    // The terminal now serves site-b: the person (of site-c) is out of its scope. Their user there
    // is the one the terminal reported, so it is asked for what it holds before the delete.
    expect((await server.admin.patch('/devices/LEAVE-C/', { areas: ['site-b'] })).status).toBe(200);
    const sent = await drain(c);
    const query = sent.indexOf('DATA QUERY FINGERTMP PIN=7');
    expect(query).toBeGreaterThanOrEqual(0);
    expect(sent.indexOf('DATA DELETE USERINFO PIN=7')).toBeGreaterThan(query);
    expect(c.users.has('7')).toBe(false);
    // Their finger is still the service's.
    expect(await fingersStored(adopted.body.id)).toEqual([4]);
  });

  test('adopted without consent: stays on the old terminal (nothing fetched); consent given, fetched, stored, and then off it', async () => {
    now = berlin('2026-03-05', '08:00');
    const d = await terminal('LEAVE-D', 'site-a', [{ pin: '8', name: 'Menu Eight', fingers: [6] }]);
    expect((await server.admin.post('/employees/', { id: 'LV-NOC', name: 'No Consent' })).status).toBe(201);
    const adopted = await server.admin.post('/devices/LEAVE-D/users/8/adopt/', { employee: 'LV-NOC' });
    expect(adopted.status).toBe(201);
    const id = adopted.body.id as string;
    await drain(d);
    await moveTo(id, 'site-b');
    await drain(siteB);
    now = berlin('2026-03-06', '00:05');
    // Site A's other terminal, where the service sent them, loses them at once.
    expect(await followMoves()).toMatchObject({ people: 1, terminals: 2, queued: 1 });
    expect(await drain(siteA)).toEqual(['DATA DELETE USERINFO PIN=8']);
    // Nothing can be stored without consent: nothing asked, nothing deleted; the log says why.
    expect(await drain(d)).toEqual([]);
    expect(d.users.has('8') && d.templates.has('8:6')).toBe(true);
    const log = (await server.admin.get('/devices/LEAVE-D/')).body.recent_events as { kind: string; details: Record<string, unknown> }[];
    expect(log.find((e) => e.kind === 'leave_waits')).toMatchObject({ details: { pin: '8', enrollee: id, fetching: false } });

    // Consent given: the terminal is asked, its answer is stored although it is out of their
    // areas now (not refused, not deleted there), and then they leave it.
    expect((await consent(id)).status).toBe(201);
    const sent = await drain(d);
    expect(sent.indexOf('DATA DELETE USERINFO PIN=8')).toBeGreaterThan(sent.indexOf('DATA QUERY FINGERTMP PIN=8'));
    expect(sent.filter((c) => c.startsWith('DATA DELETE FINGERTMP'))).toEqual([]);
    expect(await fingersStored(id)).toEqual([6]);
    expect(d.users.has('8')).toBe(false);
    await drain(siteB);
    expect(siteB.templates.has('8:6')).toBe(true);
  });
});
