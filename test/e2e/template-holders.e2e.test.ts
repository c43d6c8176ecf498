/**
 * What a terminal holds after a later version of a finger does not reach it, through the real
 * server, an enrollment agent and simulated terminals answering by ADMS: a terminal that holds a
 * version stays a holder of it whatever the next version does there (refused for its algorithm,
 * `Return=-30`; failed, `-9`/`-11`; not sent, its algorithm changed), so a withdrawal deletes it
 * there and the deletion proof waits for that delete; and the templates view says per terminal
 * which version it holds, never `present` for one it did not get.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { type CreatedAgent, createAgent, newEnrollee, type Person, templateBytes, upload } from '../support/agents';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let server: TestServer;
let agent: CreatedAgent;
/** Per terminal, the return code it answers to a fingerprint write (undefined: it takes it). */
const refusing = new Map<string, number>();
const fleet: SimulatedTerminal[] = [];
let seed = 0;

async function terminal(sn: string): Promise<SimulatedTerminal> {
  const t = new SimulatedTerminal({
    url: server.url,
    sn,
    respond: (c) => (c.text.startsWith('DATA UPDATE FINGERTMP') ? refusing.get(sn) : undefined),
  });
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${sn}/approve/`)).status).toBe(200);
  await drain(t);
  fleet.push(t);
  return t;
}

/** The agent enrolls one finger (a new version when the person has it already); every terminal then polls. */
async function enroll(person: Person, finger: number): Promise<void> {
  const session = await server.admin.post('/enrollment-sessions/', { enrollee: person.id, agent: agent.id, fingers: [finger] });
  expect(session.status).toBe(201);
  expect((await agent.client.post(`/sessions/${session.body.id}/claim/`)).status).toBe(200);
  expect((await agent.client.post(`/sessions/${session.body.id}/templates/`, upload(finger, templateBytes(++seed)))).status).toBe(200);
  expect((await agent.client.post(`/sessions/${session.body.id}/complete/`)).status).toBe(200);
  for (const t of fleet) await drain(t);
}

type Sync = { device: string; status: string; version: number; held_version: number | null; detail: string | null; updated_at: string };

async function syncOf(person: Person, finger: number): Promise<{ version: number; sync: Record<string, Omit<Sync, 'device'>> }> {
  const res = await server.admin.get(`/enrollees/${person.id}/templates/`);
  expect(res.status).toBe(200);
  const t = (res.body.results as { index: number; version: number; sync: Sync[] }[]).find((r) => r.index === finger)!;
  return { version: t.version, sync: Object.fromEntries(t.sync.map(({ device, ...s }) => [device, s])) };
}

async function proofOf(person: Person) {
  const res = await server.admin.get(`/enrollees/${person.id}/deletion-proof/`);
  expect(res.status).toBe(200);
  return res.body as { complete: boolean; terminals: { serial_number: string; status: string; command: { kind: string } | null }[] };
}

const holds = (t: SimulatedTerminal, person: Person, finger: number) => [...t.templates.values()].some((x) => x.pin === person.pin && x.fingerIndex === finger);

beforeAll(async () => {
  server = await startTestServer();
  agent = await createAgent(server, 'Desk reader');
  await terminal('FP10A');
  await terminal('FP10B');
  await terminal('FP10C');
  await terminal('FP10D');
});
afterAll(async () => {
  await server.close();
});

describe('a finger enrolled, enrolled again, withdrawn', () => {
  test('every terminal takes both versions; the withdrawal deletes it everywhere and the proof completes', async () => {
    const person = await newEnrollee(server);
    await enroll(person, 8);
    expect((await syncOf(person, 8)).sync.FP10A).toMatchObject({ status: 'present', version: 1, held_version: 1 });
    await enroll(person, 8);
    const again = await syncOf(person, 8);
    expect(again.version).toBe(2);
    for (const sn of ['FP10A', 'FP10B', 'FP10C', 'FP10D'])
      expect(again.sync[sn]).toEqual({ status: 'present', version: 2, held_version: 2, detail: null, updated_at: expect.any(String) });
    expect((await server.admin.delete(`/enrollees/${person.id}/consent/`)).status).toBe(200);
    expect((await proofOf(person)).terminals.map((t) => t.serial_number).sort()).toEqual(['FP10A', 'FP10B', 'FP10C', 'FP10D']);
    for (const t of fleet) {
      expect(await drain(t)).toContain(`DATA DELETE FINGERTMP PIN=${person.pin}\tFID=8`);
      expect(holds(t, person, 8)).toBe(false);
    }
    expect(await proofOf(person)).toMatchObject({ complete: true });
  });
});

describe('a terminal that holds version 1 and refuses version 2', () => {
  test('stays a holder whatever it answered (-30, -9, -11): the withdrawal deletes it there and the proof waits for it', async () => {
    const person = await newEnrollee(server);
    await enroll(person, 8);
    refusing.set('FP10A', -30);
    refusing.set('FP10B', -9);
    refusing.set('FP10C', -11);
    try {
      await enroll(person, 8);
    } finally {
      refusing.clear();
    }
    const { version, sync } = await syncOf(person, 8);
    expect(version).toBe(2);
    // Each says what happened to version 2 there, and that version 1 is still there.
    expect(sync.FP10A).toMatchObject({ status: 'incompatible', version: 2, held_version: 1 });
    expect(sync.FP10B).toMatchObject({ status: 'failed', version: 2, held_version: 1 });
    expect(sync.FP10C).toMatchObject({ status: 'failed', version: 2, held_version: 1 });
    expect(sync.FP10D).toMatchObject({ status: 'present', version: 2, held_version: 2 });
    for (const sn of ['FP10A', 'FP10B', 'FP10C']) expect(holds(fleet.find((t) => t.sn === sn)!, person, 8)).toBe(true);

    expect((await server.admin.delete(`/enrollees/${person.id}/consent/`)).status).toBe(200);
    const proof = await proofOf(person);
    expect(proof.terminals.map((t) => t.serial_number).sort()).toEqual(['FP10A', 'FP10B', 'FP10C', 'FP10D']);
    expect(proof.complete).toBe(false);
    for (const t of fleet) {
      expect(await drain(t)).toContain(`DATA DELETE FINGERTMP PIN=${person.pin}\tFID=8`);
      expect(holds(t, person, 8)).toBe(false);
    }
    expect(await proofOf(person)).toMatchObject({ complete: true });
  });
});

describe('a terminal that holds version 1 and then runs another algorithm', () => {
  test('is sent nothing of version 2, shows version 1 as what it holds, and still gets the delete', async () => {
    const person = await newEnrollee(server);
    await enroll(person, 1);
    expect((await syncOf(person, 1)).sync.FP10A).toMatchObject({ status: 'present', version: 1, held_version: 1 });
    const fp10a = fleet.find((t) => t.sn === 'FP10A')!;
    // A firmware update: the terminal now reports algorithm 12.
    await fp10a.post('cdata', { table: 'options' }, 'FingerFunOn=1,FPVersion=12');
    await drain(fp10a);
    const session = await server.admin.post('/enrollment-sessions/', { enrollee: person.id, agent: agent.id, fingers: [1] });
    expect((await agent.client.post(`/sessions/${session.body.id}/claim/`)).status).toBe(200);
    expect((await agent.client.post(`/sessions/${session.body.id}/templates/`, upload(1, templateBytes(++seed), '10'))).status).toBe(200);
    expect((await agent.client.post(`/sessions/${session.body.id}/complete/`)).status).toBe(200);
    expect((await drain(fp10a)).some((c) => c.includes('FINGERTMP') || c.includes('BIODATA'))).toBe(false);
    for (const t of fleet) await drain(t);

    const { version, sync } = await syncOf(person, 1);
    expect(version).toBe(2);
    // Not "On the terminal" for a version it never got: version 2 cannot go there; version 1 is there.
    expect(sync.FP10A).toMatchObject({ status: 'incompatible', version: 2, held_version: 1 });
    expect(sync.FP10B).toMatchObject({ status: 'present', version: 2, held_version: 2 });

    expect((await server.admin.delete(`/enrollees/${person.id}/consent/`)).status).toBe(200);
    expect((await proofOf(person)).terminals.map((t) => t.serial_number)).toContain('FP10A');
    expect(await proofOf(person)).toMatchObject({ complete: false });
    // Algorithm 12 takes BIODATA: the delete goes in that dialect.
    expect(await drain(fp10a)).toContain(`DATA DELETE BIODATA Pin=${person.pin}\tType=1\tNo=1`);
    expect(holds(fp10a, person, 1)).toBe(false);
    for (const t of fleet) await drain(t);
    expect(await proofOf(person)).toMatchObject({ complete: true });
  });
});
