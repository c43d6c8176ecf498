/**
 * A delete a terminal refused with a transient code is retried later, with backoff, and never
 * expires; what is written under the same PIN after it waits for it. Otherwise the terminal took
 * the write first (the user put back, a finger enrolled again) and the delete's retry removed it,
 * while the service still believed the terminal held it. Through the real server and a simulated
 * terminal, on the test clock: the flow a data protection officer reported (a user photo makes a
 * withdrawal delete the user and put them back), then the same shape for one finger.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { approvedTerminal, drain, type EnrolledPerson, personWithFingers } from '../support/terminals';

let offset = 0;
const clock = { now: () => Date.now() + offset };
let server: TestServer;

/** Command texts the terminal refuses with Return=-5 (a transient error), once each. */
const refuseOnce = new Set<string>();
/** Command texts the terminal runs without answering (the answer comes later, by hand), once each. */
const answerLater = new Set<string>();

function refuser(command: { text: string }): number | 'ignore' | undefined {
  for (const prefix of answerLater) {
    if (!command.text.startsWith(prefix)) continue;
    answerLater.delete(prefix);
    return 'ignore';
  }
  for (const prefix of refuseOnce) {
    if (!command.text.startsWith(prefix)) continue;
    refuseOnce.delete(prefix);
    return -5;
  }
  return undefined;
}

/** A user photo on the terminal's user of `pin`: a withdrawal deletes that user there and puts them back. */
async function userPhotoOn(t: SimulatedTerminal, pin: string): Promise<void> {
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, ...new Array(60).fill(7)]).toString('base64');
  const userpic = `USERPIC PIN=${pin}\tFileName=${pin}.jpg\tSize=${jpeg.length}\tContent=${jpeg}\n`;
  expect((await t.post('cdata', { table: 'OPERLOG', Stamp: '9999' }, userpic)).body).toBe('OK:1');
  expect(await userOn(t.sn, pin)).toMatchObject({ biometrics: { user_photo: 1 } });
}

const terminal = (sn: string): Promise<SimulatedTerminal> => approvedTerminal(server, sn, ['dpo'], { respond: refuser, now: clock.now });

interface Command {
  id: number;
  kind: string;
  status: string;
  attempts: number;
  finished_at: string | null;
  payload: Record<string, unknown>;
}

async function commandsOf(sn: string): Promise<Command[]> {
  const res = await server.admin.get(`/devices/${sn}/commands/?limit=100`);
  expect(res.status).toBe(200);
  return res.body.results as Command[];
}

async function userOn(sn: string, pin: string) {
  const res = await server.admin.get(`/devices/${sn}/users/`);
  expect(res.status).toBe(200);
  return (res.body.results as { pin: string; enrollee: string | null; biometrics: Record<string, number> }[]).find((u) => u.pin === pin);
}

async function withdrawAndConsentAgain(person: EnrolledPerson): Promise<void> {
  expect((await server.admin.delete(`/enrollees/${person.id}/consent/`)).status).toBe(200);
}

async function enrolFinger(person: EnrolledPerson, finger: number): Promise<void> {
  expect((await server.admin.post(`/enrollees/${person.id}/consent/`, { version: 'v2', method: 'tablet' })).status).toBe(201);
  await server.fpa.service.storeTemplate(person.id, finger, new Uint8Array(Buffer.from(syntheticTemplate(180), 'base64')), {
    algorithmVersion: '10',
    by: 'test',
  });
}

beforeAll(async () => {
  server = await startTestServer({}, { clock });
});
afterAll(async () => {
  await server.close();
});

describe('a delete_user refused and retried later', () => {
  test('the user put back waits for it, and so does a finger enrolled again: the terminal ends holding what the service says', async () => {
    const a = await terminal('DPOA0001');
    const carol = await personWithFingers(server, 'CAROL', 'dpo');
    const pin = carol.device_pin;
    await drain(a);
    expect(a.users.has(pin)).toBe(true);
    await userPhotoOn(a, pin);

    await withdrawAndConsentAgain(carol);
    refuseOnce.add(`DATA DELETE USERINFO PIN=${pin}`);
    const first = (await a.poll()).map((c) => c.text);
    expect(first).toContain(`DATA DELETE USERINFO PIN=${pin}`);
    // The user record is not sent in the poll that carries the delete: the terminal refused it.
    expect(first.some((text) => text.startsWith('DATA UPDATE USERINFO'))).toBe(false);
    expect(a.users.has(pin)).toBe(true);

    await enrolFinger(carol, 6);
    // Until the delete is retried (its backoff), neither the record nor the finger goes.
    expect(await drain(a)).toEqual([]);
    offset += 10 * 60_000;
    const rest = await drain(a);
    expect(rest[0]).toStartWith(`DATA DELETE USERINFO PIN=${pin}`);
    expect(rest.slice(1).map((text) => text.split('\t')[0])).toEqual([`DATA UPDATE USERINFO PIN=${pin}`, `DATA UPDATE FINGERTMP PIN=${pin}`]);

    const commands = await commandsOf('DPOA0001');
    const ofUser = commands.filter((c) => c.payload.pin === pin && (c.kind === 'delete_user' || c.kind === 'add_user')).sort((x, y) => x.id - y.id);
    // Those of the withdrawal: the delete and the record put back behind it.
    const userCommands = ofUser.slice(ofUser.findIndex((c) => c.kind === 'delete_user'));
    expect(userCommands.map((c) => [c.kind, c.status, c.attempts])).toEqual([
      ['delete_user', 'succeeded', 2],
      ['add_user', 'succeeded', 1],
    ]);
    expect(Date.parse(userCommands[1]!.finished_at!)).toBeGreaterThanOrEqual(Date.parse(userCommands[0]!.finished_at!));
    // The terminal holds the user put back and finger 6, as the service says it does.
    expect(a.users.get(pin)?.name).toBe('Person CAROL');
    expect([...a.templates.values()].filter((t) => t.pin === pin).map((t) => t.fingerIndex)).toEqual([6]);
    expect(await userOn('DPOA0001', pin)).toMatchObject({ enrollee: carol.id, biometrics: { fingerprint: 1 } });
  });
});

describe('a delete_user answered late', () => {
  test('the user put back goes at the next poll after the answer, though a poll found nothing to send meanwhile', async () => {
    const c = await terminal('DPOC0001');
    const eve = await personWithFingers(server, 'EVE', 'dpo');
    const pin = eve.device_pin;
    await drain(c);
    await userPhotoOn(c, pin);
    await withdrawAndConsentAgain(eve);
    answerLater.add(`DATA DELETE USERINFO PIN=${pin}`);
    const sent = await c.poll();
    const userDelete = sent.find((command) => command.text.startsWith(`DATA DELETE USERINFO PIN=${pin}`))!;
    expect(userDelete.returnCode).toBeNull();
    // Sent, not answered: the record waits, and the terminal is idle meanwhile.
    expect(await c.poll()).toEqual([]);
    expect((await c.post('devicecmd', {}, `ID=${userDelete.id}&Return=0&CMD=DATA\n`)).status).toBe(200);
    expect((await c.poll()).map((command) => command.text.split('\t')[0])).toEqual([`DATA UPDATE USERINFO PIN=${pin}`]);
    expect(c.users.get(pin)?.name).toBe('Person EVE');
  });
});

describe('a fingerprint delete refused and retried later', () => {
  test('the same finger enrolled again waits for it', async () => {
    const b = await terminal('DPOB0001');
    const dan = await personWithFingers(server, 'DAN', 'dpo');
    const pin = dan.device_pin;
    await drain(b);
    expect([...b.templates.values()].filter((t) => t.pin === pin).map((t) => t.fingerIndex)).toEqual([5, 6]);

    await withdrawAndConsentAgain(dan);
    refuseOnce.add(`DATA DELETE FINGERTMP PIN=${pin}\tFID=6`);
    const first = (await b.poll()).map((c) => c.text.split('\t').slice(0, 2).join(' '));
    expect([...first].sort()).toEqual([`DATA DELETE FINGERTMP PIN=${pin} FID=5`, `DATA DELETE FINGERTMP PIN=${pin} FID=6`]);

    await enrolFinger(dan, 6);
    expect(await drain(b)).toEqual([]);
    offset += 10 * 60_000;
    const rest = (await drain(b)).map((text) => text.split('\t').slice(0, 2).join(' '));
    expect(rest[0]).toBe(`DATA DELETE FINGERTMP PIN=${pin} FID=6`);
    expect(rest[1]).toStartWith(`DATA UPDATE FINGERTMP PIN=${pin} FID=6`);
    expect(rest).toHaveLength(2);
    expect([...b.templates.values()].filter((t) => t.pin === pin).map((t) => t.fingerIndex)).toEqual([6]);
    expect(await userOn('DPOB0001', pin)).toMatchObject({ enrollee: dan.id, biometrics: { fingerprint: 1 } });
  });
});
