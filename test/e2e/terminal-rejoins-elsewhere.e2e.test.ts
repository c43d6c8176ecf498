/**
 * A terminal removed and approved again into another area: the people the service put there for
 * its old area leave it once it has said who it holds (its inventory), as an area change takes
 * them off; its own users (made at its menu) stay listed for adoption; a plain resync does the
 * same. Through the real server and a simulated terminal.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  for (const name of ['siteA', 'siteB']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

interface Person {
  id: string;
  device_pin: string;
}

/** An enrollee of `area` with consent and fingerprints 5 and 6. */
async function person(employee: string, area: string): Promise<Person> {
  expect((await server.admin.post('/employees/', { id: employee, name: `Person ${employee}` })).status).toBe(201);
  const e = await server.admin.post('/enrollees/', { employee, areas: [area] });
  expect(e.status).toBe(201);
  expect((await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  for (const finger of [5, 6]) {
    await server.fpa.service.storeTemplate(e.body.id, finger, new Uint8Array(Buffer.from(syntheticTemplate(180), 'base64')), {
      algorithmVersion: '10',
      by: 'test',
    });
  }
  return e.body;
}

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
    expect(detail.body.sync_check.fingerprints).toEqual({ expected: 4, reported: 4 });
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
});
