/**
 * A terminal removed and approved again into another area: the people the service put there for
 * its old area leave it once it has said who it holds (its inventory), as an area change takes
 * them off; its own users (made at its menu) stay listed for adoption. A confirmed `delete_user`
 * (a full resync's too) clears that person's fingerprints there, so nothing reads as present on
 * a terminal that holds nothing of theirs. Through the real server and a simulated terminal.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { runningClock } from '../support/clock';
import { startTestServer, type TestServer } from '../support/harness';
import { drain, type EnrolledPerson, personWithFingers } from '../support/terminals';

/** Moved on a day when a move is to take effect. */
const clock = runningClock();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { clock });
  for (const name of ['siteA', 'siteB']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

type Person = EnrolledPerson;

/** An enrollee of `area` with consent and fingerprints 5 and 6. */
const person = (employee: string, area: string) => personWithFingers(server, employee, area);

async function approvedInto(t: SimulatedTerminal, area: string): Promise<string[]> {
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${t.sn}/approve/`, { areas: [area] })).status).toBe(200);
  return drain(t);
}

/** Where the service records the person's fingerprints (`GET enrollees/{id}/templates/`), as `device:status`. */
async function templateHolders(p: Person): Promise<string[]> {
  const res = await server.admin.get(`/enrollees/${p.id}/templates/`);
  expect(res.status).toBe(200);
  return (res.body.results as { sync: { device: string; status: string }[] }[]).flatMap((t) => t.sync.map((d) => `${d.device}:${d.status}`));
}

async function terminalPins(sn: string): Promise<string[]> {
  const res = await server.admin.get(`/devices/${sn}/users/?limit=1000`);
  expect(res.status).toBe(200);
  return (res.body.results as { pin: string }[]).map((u) => u.pin);
}

const pinsOf = (t: SimulatedTerminal) => [...t.users.keys()].sort();
const templatePins = (t: SimulatedTerminal) => [...new Set([...t.templates.values()].map((tpl) => tpl.pin))].sort();

describe('a removed terminal approved again into another area', () => {
  test('loses the old area’s people once it has said who it holds; its own user stays for adoption', async () => {
    const a = [await person('RA-1', 'siteA'), await person('RA-2', 'siteA'), await person('RA-3', 'siteA')];
    const b = [await person('RB-1', 'siteB'), await person('RB-2', 'siteB')];
    // A terminal that already had a user of its own (made at its menu) when it first came.
    const t = new SimulatedTerminal({ url: server.url, sn: 'REJOIN1', existingUsers: [{ pin: '7', name: 'Menu user' }] });
    await approvedInto(t, 'siteA');
    expect(pinsOf(t)).toEqual(['7', ...a.map((p) => p.device_pin)].sort());
    expect((await server.admin.delete('/devices/REJOIN1/')).status).toBe(204);

    // Back, pending: it owes no delete, so it is sent nothing.
    await t.handshake();
    expect(await drain(t)).toEqual([]);
    const sent = await approvedInto(t, 'siteB');
    expect(sent[0]).toBe('DATA QUERY USERINFO');
    for (const p of a) expect(sent).toContain(`DATA DELETE USERINFO PIN=${p.device_pin}`);
    // On the terminal: its own user and the people of siteB, nobody of siteA.
    expect(pinsOf(t)).toEqual(['7', ...b.map((p) => p.device_pin)].sort());
    expect(templatePins(t)).toEqual(b.map((p) => p.device_pin).sort());
    // As the service lists it, and what it expects there.
    expect((await terminalPins('REJOIN1')).sort()).toEqual(['7', ...b.map((p) => p.device_pin)].sort());
    for (const p of a) expect((await templateHolders(p)).filter((h) => h.startsWith('REJOIN1:'))).toEqual([]);
    for (const p of b) expect(await templateHolders(p)).toEqual(['REJOIN1:present', 'REJOIN1:present']);
    await t.handshake();
    await t.postOptions();
    const detail = await server.admin.get('/devices/REJOIN1/');
    expect(detail.body.sync_check.users).toEqual({ expected: 3, reported: 3 });
    // Its own user 7, whose fingers it never said (it holds none), is told apart.
    expect(detail.body.sync_check.fingerprints).toEqual({ expected: 4, reported: 4, unknown_users: 1 });
    expect(detail.body.templates_present).toBe(4);
  });
});

describe('a resync takes the service’s people of other areas off a terminal', () => {
  test('a plain resync deletes a person left there outside its areas (their delete was cancelled)', async () => {
    for (const name of ['siteC', 'siteD']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
    const p = await person('RC-1', 'siteC');
    const t = new SimulatedTerminal({ url: server.url, sn: 'PLAIN1' });
    await approvedInto(t, 'siteC');
    expect(t.users.has(p.device_pin)).toBe(true);
    // Moved to another area: the delete of the person is queued, and an installer cancels it.
    expect((await server.admin.patch('/devices/PLAIN1/', { areas: ['siteD'] })).status).toBe(200);
    const pending = (await server.admin.get('/devices/PLAIN1/commands/?status=pending')).body.results as { id: number; kind: string }[];
    const del = pending.find((c) => c.kind === 'delete_user');
    expect(del).toBeDefined();
    expect((await server.admin.post(`/devices/PLAIN1/commands/${del!.id}/cancel/`)).status).toBe(200);
    await drain(t);
    expect(t.users.has(p.device_pin)).toBe(true);

    const resync = await server.admin.post('/devices/PLAIN1/resync/', {});
    expect(resync.status).toBe(200);
    const sent = await drain(t);
    expect(sent).toContain(`DATA DELETE USERINFO PIN=${p.device_pin}`);
    expect(t.users.has(p.device_pin)).toBe(false);
    expect(await terminalPins('PLAIN1')).toEqual([]);
    expect((await templateHolders(p)).filter((h) => h.startsWith('PLAIN1:'))).toEqual([]);
  });

  test('an enrollment station keeps who walked up there until a full resync, whose delete clears their fingerprints there', async () => {
    expect((await server.admin.post('/areas/', { name: 'siteE' })).status).toBe(201);
    const t = new SimulatedTerminal({ url: server.url, sn: 'STATION1' });
    await approvedInto(t, 'siteE');
    expect((await server.admin.patch('/devices/STATION1/', { enrollment_station: true })).status).toBe(200);
    await drain(t);
    // A person of another area enrolls a finger at the station (consent given, nothing stored yet).
    expect((await server.admin.post('/employees/', { id: 'RW-1', name: 'Walker' })).status).toBe(201);
    const w = (await server.admin.post('/enrollees/', { employee: 'RW-1', areas: ['siteA'] })).body as Person;
    expect((await server.admin.post(`/enrollees/${w.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    expect((await t.enrollFinger(w.device_pin, 4)).body).toBe('OK:1');
    expect(await templateHolders(w)).toContain('STATION1:present');

    // A plain resync leaves them there: a station takes anyone's fingerprints.
    expect((await server.admin.post('/devices/STATION1/resync/', {})).status).toBe(200);
    expect((await drain(t)).some((c) => c.startsWith('DATA DELETE'))).toBe(false);
    expect(t.users.has(w.device_pin)).toBe(true);

    // A full one deletes them; once the station confirms, their finger is no longer recorded there.
    expect((await server.admin.post('/devices/STATION1/resync/', { full: true })).status).toBe(200);
    expect(await drain(t)).toContain(`DATA DELETE USERINFO PIN=${w.device_pin}`);
    expect(t.users.has(w.device_pin)).toBe(false);
    expect((await templateHolders(w)).filter((h) => h.startsWith('STATION1:'))).toEqual([]);
    expect((await server.admin.get('/devices/STATION1/')).body.templates_present).toBe(0);
    // Their consent withdrawn: nothing is owed by the station, and the proof does not wait for it.
    expect((await server.admin.delete(`/enrollees/${w.id}/consent/`)).status).toBe(200);
    const queued = (await server.admin.get('/devices/STATION1/commands/?status=pending')).body.results as { kind: string }[];
    expect(queued.filter((c) => c.kind.startsWith('delete'))).toEqual([]);
    const proof = (await server.admin.get(`/enrollees/${w.id}/deletion-proof/`)).body as { terminals: { serial_number: string }[] };
    expect(proof.terminals.map((x) => x.serial_number)).not.toContain('STATION1');
  });

  test('a person taken off a terminal and put back before it polled: the fingerprints written after the delete read as present', async () => {
    for (const name of ['siteG', 'siteH']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
    const p = await person('RG-1', 'siteG');
    const t = new SimulatedTerminal({ url: server.url, sn: 'ROUND1' });
    await approvedInto(t, 'siteG');
    expect(await templateHolders(p)).toEqual(['ROUND1:present', 'ROUND1:present']);
    expect((await server.admin.patch('/devices/ROUND1/', { areas: ['siteH'] })).status).toBe(200);
    expect((await server.admin.patch('/devices/ROUND1/', { areas: ['siteG'] })).status).toBe(200);
    // The delete first, alone; the user record and fingers again once the terminal answered it
    // (a delete refused and retried later would remove them: refused-delete-order.e2e.test.ts).
    expect((await t.poll()).map((c) => c.text.split('\t')[0])).toEqual([`DATA DELETE USERINFO PIN=${p.device_pin}`]);
    const sent = (await t.poll()).map((c) => c.text.split('\t')[0]);
    expect(sent[0]).toBe(`DATA UPDATE USERINFO PIN=${p.device_pin}`);
    expect(sent.filter((c) => c === `DATA UPDATE FINGERTMP PIN=${p.device_pin}`)).toHaveLength(2);
    await drain(t);
    expect(templatePins(t)).toEqual([p.device_pin]);
    expect(await templateHolders(p)).toEqual(['ROUND1:present', 'ROUND1:present']);
  });
});

describe('a person of other areas adopted on a terminal', () => {
  test('refused until they are given one of its areas; adopted then and moved out again, they stay through a plain resync (the terminal may hold their only fingerprints); a full resync takes them off', async () => {
    for (const name of ['door-area', 'home-area']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
    expect((await server.admin.post('/employees/', { id: 'RF-1', name: 'Visitor RF-1' })).status).toBe(201);
    const visitor = await server.admin.post('/enrollees/', { employee: 'RF-1', areas: ['home-area'] });
    expect(visitor.status).toBe(201);
    const t = new SimulatedTerminal({ url: server.url, sn: 'ADOPTED1', existingUsers: [{ pin: visitor.body.device_pin, name: 'Visitor' }] });
    await approvedInto(t, 'door-area');
    // Linked out of their areas, they would be sent there and what the terminal holds of them refused as out of scope.
    const refused = await server.admin.post(`/devices/ADOPTED1/users/${visitor.body.device_pin}/adopt/`, { enrollee: visitor.body.id });
    expect({ status: refused.status, reason: refused.body.error?.details?.reason }).toEqual({ status: 409, reason: 'not_in_scope' });
    expect(await drain(t)).toEqual([]);
    expect((await server.admin.patch(`/enrollees/${visitor.body.id}/`, { areas: ['home-area', 'door-area'] })).status).toBe(200);
    const adopted = await server.admin.post(`/devices/ADOPTED1/users/${visitor.body.device_pin}/adopt/`, { enrollee: visitor.body.id });
    expect(adopted.status).toBe(201);
    await drain(t);
    // Out of door-area again: adopted there, without consent nothing is fetched, so they stay.
    expect((await server.admin.patch(`/enrollees/${visitor.body.id}/`, { areas: ['home-area'] })).status).toBe(200);
    clock.advance(86_400_000);
    expect((await server.admin.post('/jobs/follow-area-moves/run/', {})).status).toBe(200);
    expect(await drain(t)).not.toContain(`DATA DELETE USERINFO PIN=${visitor.body.device_pin}`);

    expect((await server.admin.post('/devices/ADOPTED1/resync/', {})).status).toBe(200);
    expect(await drain(t)).not.toContain(`DATA DELETE USERINFO PIN=${visitor.body.device_pin}`);
    expect(t.users.has(visitor.body.device_pin)).toBe(true);

    expect((await server.admin.post('/devices/ADOPTED1/resync/', { full: true })).status).toBe(200);
    expect(await drain(t)).toContain(`DATA DELETE USERINFO PIN=${visitor.body.device_pin}`);
  });
});
