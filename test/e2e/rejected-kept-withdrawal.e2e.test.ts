/**
 * DELETE_REJECTED_DEVICE_TEMPLATES off: a finger or face refused as outside the person's areas is
 * left on the terminal and noted on its user there as refused for that person, a user the service
 * never linked to them (the terminal is not theirs). Withdrawing their consent, deactivating or
 * deleting them deletes those parts there, one by one, and the deletion proof waits for them; the
 * user, its card and anything else stay. A terminal user that only has their PIN (it punches, or
 * was made at the menu) is not them there: nothing of it is deleted.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { deviceLog, drain } from '../support/terminals';

let s: TestServer;

async function online(sn: string, areas: string[], options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}) {
  const t = new SimulatedTerminal({ url: s.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  expect((await s.admin.post(`/devices/${sn}/approve/`, { areas })).status).toBe(200);
  await drain(t);
  return t;
}

async function userOn(sn: string, pin: string) {
  const users = (await s.admin.get(`/devices/${sn}/users/`)).body.results as {
    pin: string;
    enrollee: string | null;
    card: string | null;
    biometrics: Record<string, number>;
  }[];
  return users.find((u) => u.pin === pin) ?? null;
}

/** A user made at the terminal's menu, with a card, as its OPERLOG reports it. */
async function menuUser(t: SimulatedTerminal, pin: string, card: string) {
  t.users.set(pin, { pin, name: 'At the menu', fields: { PIN: pin, Card: card } });
  const line = `USER PIN=${pin}\tName=At the menu\tPri=0\tPasswd=\tCard=${card}\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\n`;
  expect((await t.post('cdata', { table: 'OPERLOG', Stamp: '9999' }, line)).body).toBe('OK:1');
}

async function proofOf(id: string) {
  return (await s.admin.get(`/enrollees/${id}/deletion-proof/`)).body as { complete: boolean; terminals: { serial_number: string; status: string }[] };
}

beforeAll(async () => {
  s = await startTestServer({ DELETE_REJECTED_DEVICE_TEMPLATES: false });
});
afterAll(async () => {
  await s.close();
});

describe('a template refused outside the person’s areas and left on the terminal', () => {
  test('is deleted there, part by part, when consent is withdrawn; the user and its card stay; the proof lists that terminal and waits for it', async () => {
    const hq = await online('HQFP', ['hq']);
    const outFp = await online('OUTFP', ['other']);
    const outVf = await online('OUTVF', ['other'], { biodata: true, kinds: { visible_face: '58.10' } });
    await s.admin.post('/employees/', { id: 'A-1', name: 'Alice' });
    const alice = (await s.admin.post('/enrollees/', { employee: 'A-1', areas: ['hq'] })).body as { id: string; device_pin: string };
    await s.admin.post(`/enrollees/${alice.id}/consent/`, { version: 'v1', method: 'paper' });
    await drain(hq);
    expect(await drain(outFp)).toEqual([]);
    expect((await hq.enrollFinger(alice.device_pin, 1)).body).toBe('OK:1');

    // Her PIN at terminals outside her areas (not enrollment stations): refused, and left there.
    await menuUser(outFp, alice.device_pin, '4711');
    expect((await outFp.enrollFinger(alice.device_pin, 2)).body).toBe('OK:1');
    expect((await outVf.enrollKind(alice.device_pin, 'visible_face')).body).toBe('OK:1');
    for (const sn of ['OUTFP', 'OUTVF']) {
      const [rejected] = await deviceLog(s.fpa, sn, 'template_rejected');
      expect(rejected?.details).toMatchObject({ pin: alice.device_pin, reason: 'not_in_scope', delete_queued: false });
    }
    expect(await userOn('OUTFP', alice.device_pin)).toMatchObject({ enrollee: null, card: '4711', biometrics: { fingerprint: 1 } });
    expect(await userOn('OUTVF', alice.device_pin)).toMatchObject({ enrollee: null, biometrics: { visible_face: 1 } });
    expect(await drain(outFp)).toEqual([]);
    expect(await drain(outVf)).toEqual([]);

    expect((await s.admin.delete(`/enrollees/${alice.id}/consent/`)).status).toBe(200);
    const proof = async () =>
      (await s.admin.get(`/enrollees/${alice.id}/deletion-proof/`)).body as { complete: boolean; terminals: { serial_number: string; status: string }[] };
    expect((await proof()).terminals.map((t) => t.serial_number).sort()).toEqual(['HQFP', 'OUTFP', 'OUTVF']);
    expect(await proof()).toMatchObject({ complete: false });
    // Not her terminals: the parts refused as hers go, one by one; the user there stays, with its card.
    expect(await drain(outFp)).toEqual([`DATA DELETE FINGERTMP PIN=${alice.device_pin}\tFID=2`]);
    expect(outFp.users.get(alice.device_pin)?.fields.Card).toBe('4711');
    expect(outFp.templates.has(`${alice.device_pin}:2`)).toBe(false);
    expect(await drain(outVf)).toEqual([`DATA DELETE BIODATA Pin=${alice.device_pin}\tType=9\tNo=0`]);
    expect(outVf.users.has(alice.device_pin)).toBe(true);
    expect([...outVf.biodata.values()].some((b) => b.pin === alice.device_pin)).toBe(false);
    expect(await userOn('OUTFP', alice.device_pin)).toMatchObject({ enrollee: null, card: '4711', biometrics: {} });
    expect(await proof()).toMatchObject({ complete: false });
    expect((await drain(hq)).some((c) => c.startsWith(`DATA DELETE FINGERTMP PIN=${alice.device_pin}`))).toBe(true);
    expect(await proof()).toMatchObject({ complete: true });
  });

  test('is deleted there, part by part, when the person is deleted, and the proof waits for it', async () => {
    const outFp = await online('OUTFP2', ['other']);
    await s.admin.post('/employees/', { id: 'B-1', name: 'Bob' });
    const bob = (await s.admin.post('/enrollees/', { employee: 'B-1', areas: ['hq'] })).body as { id: string; device_pin: string };
    await s.admin.post(`/enrollees/${bob.id}/consent/`, { version: 'v1', method: 'paper' });
    expect((await outFp.enrollFinger(bob.device_pin, 4)).body).toBe('OK:1');
    expect(await userOn('OUTFP2', bob.device_pin)).toMatchObject({ enrollee: null, biometrics: { fingerprint: 1 } });

    expect((await s.admin.delete(`/enrollees/${bob.id}/`)).status).toBe(204);
    const proof = async () => (await s.admin.get(`/enrollees/${bob.id}/deletion-proof/`)).body as { complete: boolean; terminals: { serial_number: string }[] };
    expect((await proof()).terminals.map((t) => t.serial_number)).toContain('OUTFP2');
    expect(await drain(outFp)).toEqual([`DATA DELETE FINGERTMP PIN=${bob.device_pin}\tFID=4`]);
    expect(outFp.templates.has(`${bob.device_pin}:4`)).toBe(false);
    expect(outFp.users.has(bob.device_pin)).toBe(true);
    for (const sn of ['HQFP', 'OUTFP', 'OUTVF']) await drain(new SimulatedTerminal({ url: s.url, sn }));
    expect(await proof()).toMatchObject({ complete: true });
  });

  test('is deleted there, part by part, when the person is deactivated; once gone, their deletion sends nothing more there', async () => {
    const outFp = await online('OUTFP3', ['other']);
    await s.admin.post('/employees/', { id: 'E-1', name: 'Erin' });
    const erin = (await s.admin.post('/enrollees/', { employee: 'E-1', areas: ['hq'] })).body as { id: string; device_pin: string };
    await s.admin.post(`/enrollees/${erin.id}/consent/`, { version: 'v1', method: 'paper' });
    await menuUser(outFp, erin.device_pin, '5150');
    expect((await outFp.enrollFinger(erin.device_pin, 3)).body).toBe('OK:1');

    expect((await s.admin.patch(`/enrollees/${erin.id}/`, { active: false })).status).toBe(200);
    expect(await drain(outFp)).toEqual([`DATA DELETE FINGERTMP PIN=${erin.device_pin}\tFID=3`]);
    expect(outFp.users.get(erin.device_pin)?.fields.Card).toBe('5150');
    expect(await userOn('OUTFP3', erin.device_pin)).toMatchObject({ enrollee: null, card: '5150', biometrics: {} });
    expect((await s.admin.delete(`/enrollees/${erin.id}/`)).status).toBe(204);
    expect(await drain(outFp)).toEqual([]);
  });
});

describe('a template refused for want of consent at an enrollment station outside the person’s areas', () => {
  test('is deleted there, part by part, when the consent given since is withdrawn; the proof waits for it', async () => {
    const station = await online('STATION', ['other']);
    expect((await s.admin.patch('/devices/STATION/', { enrollment_station: true })).status).toBe(200);
    await s.admin.post('/employees/', { id: 'F-1', name: 'Fay' });
    const fay = (await s.admin.post('/enrollees/', { employee: 'F-1', areas: ['hq'] })).body as { id: string; device_pin: string };
    expect((await station.enrollFinger(fay.device_pin, 5)).body).toBe('OK:1');
    const [rejected] = await deviceLog(s.fpa, 'STATION', 'template_rejected');
    expect(rejected?.details).toMatchObject({ pin: fay.device_pin, reason: 'consent_required', delete_queued: false });
    expect(await userOn('STATION', fay.device_pin)).toMatchObject({ enrollee: null, biometrics: { fingerprint: 1 } });
    await s.admin.post(`/enrollees/${fay.id}/consent/`, { version: 'v1', method: 'paper' });
    expect(await drain(station)).toEqual([]);

    expect((await s.admin.delete(`/enrollees/${fay.id}/consent/`)).status).toBe(200);
    expect((await proofOf(fay.id)).terminals.find((t) => t.serial_number === 'STATION')).toMatchObject({ status: 'pending' });
    expect(await drain(station)).toEqual([`DATA DELETE FINGERTMP PIN=${fay.device_pin}\tFID=5`]);
    expect(station.templates.has(`${fay.device_pin}:5`)).toBe(false);
    expect(station.users.has(fay.device_pin)).toBe(true);
    expect((await proofOf(fay.id)).terminals.find((t) => t.serial_number === 'STATION')).toMatchObject({ status: 'confirmed' });
  });
});

describe('a part of a person whose consent was withdrawn, uploaded again after the withdrawal', () => {
  test('is deleted at once whatever DELETE_REJECTED_DEVICE_TEMPLATES, and the proof waits for it', async () => {
    const hq2 = await online('HQFP2', ['hq']);
    const out4 = await online('OUTFP4', ['other']);
    await s.admin.post('/employees/', { id: 'G-1', name: 'Gil' });
    const gil = (await s.admin.post('/enrollees/', { employee: 'G-1', areas: ['hq'] })).body as { id: string; device_pin: string };
    await s.admin.post(`/enrollees/${gil.id}/consent/`, { version: 'v1', method: 'paper' });
    await drain(hq2);
    expect((await hq2.enrollFinger(gil.device_pin, 1)).body).toBe('OK:1');
    expect((await s.admin.delete(`/enrollees/${gil.id}/consent/`)).status).toBe(200);
    for (const sn of ['HQFP', 'HQFP2']) await drain(sn === 'HQFP2' ? hq2 : new SimulatedTerminal({ url: s.url, sn }));
    expect(await proofOf(gil.id)).toMatchObject({ complete: true });

    // Enrolled again at his own terminal (no consent), and at one outside his areas: both deleted, though the setting is off.
    expect((await hq2.enrollFinger(gil.device_pin, 1)).body).toBe('OK:1');
    expect((await out4.enrollFinger(gil.device_pin, 2)).body).toBe('OK:1');
    const [atHq] = await deviceLog(s.fpa, 'HQFP2', 'template_rejected');
    expect(atHq?.details).toMatchObject({ pin: gil.device_pin, reason: 'consent_required', delete_queued: true });
    const [outside] = await deviceLog(s.fpa, 'OUTFP4', 'template_rejected');
    expect(outside?.details).toMatchObject({ pin: gil.device_pin, reason: 'not_in_scope', delete_queued: true });
    const proof = await proofOf(gil.id);
    expect(proof.complete).toBe(false);
    expect(proof.terminals.find((t) => t.serial_number === 'HQFP2')).toMatchObject({ status: 'pending' });
    expect(proof.terminals.find((t) => t.serial_number === 'OUTFP4')).toMatchObject({ status: 'pending' });

    expect(await drain(hq2)).toEqual([`DATA DELETE FINGERTMP PIN=${gil.device_pin}\tFID=1`]);
    expect(await drain(out4)).toEqual([`DATA DELETE FINGERTMP PIN=${gil.device_pin}\tFID=2`]);
    expect(hq2.templates.has(`${gil.device_pin}:1`)).toBe(false);
    expect(out4.templates.has(`${gil.device_pin}:2`)).toBe(false);
    expect(await proofOf(gil.id)).toMatchObject({ complete: true });
  });
});

describe('a terminal user outside the person’s areas that only has their PIN', () => {
  /** A person in hq with consent; their PIN is also a user of `out` (area other) that the walk-up never refused as theirs. */
  async function strangerCase(id: string, out: SimulatedTerminal) {
    await s.admin.post('/employees/', { id, name: id });
    const person = (await s.admin.post('/enrollees/', { employee: id, areas: ['hq'] })).body as { id: string; device_pin: string };
    await s.admin.post(`/enrollees/${person.id}/consent/`, { version: 'v1', method: 'paper' });
    expect(await drain(out)).toEqual([]);
    return person;
  }

  /** Withdrawal, deactivation and deletion of the person: not one command for `out`, nor a place in the proof. */
  async function nothingGoesTo(out: SimulatedTerminal, person: { id: string; device_pin: string }) {
    expect((await s.admin.delete(`/enrollees/${person.id}/consent/`)).status).toBe(200);
    expect(await drain(out)).toEqual([]);
    expect((await proofOf(person.id)).terminals.map((t) => t.serial_number)).not.toContain(out.sn);
    expect((await s.admin.patch(`/enrollees/${person.id}/`, { active: false })).status).toBe(200);
    expect(await drain(out)).toEqual([]);
    expect((await s.admin.delete(`/enrollees/${person.id}/`)).status).toBe(204);
    expect(await drain(out)).toEqual([]);
    expect((await proofOf(person.id)).terminals.map((t) => t.serial_number)).not.toContain(out.sn);
    expect(await userOn(out.sn, person.device_pin)).toMatchObject({ enrollee: null });
  }

  test('a user that punches there (unknown_pin) is never deleted', async () => {
    const out = await online('OUTPUNCH', ['other']);
    const carol = await strangerCase('C-1', out);
    expect((await out.punch([{ pin: carol.device_pin }])).body).toBe('OK:1');
    const [punch] = (await s.admin.get('/punches/?device=OUTPUNCH')).body.results as { enrollee: string | null; flags: string[] }[];
    expect(punch).toMatchObject({ enrollee: null, flags: ['unknown_pin'] });
    expect(await userOn('OUTPUNCH', carol.device_pin)).toMatchObject({ enrollee: null, biometrics: {} });
    await nothingGoesTo(out, carol);
  });

  test('a user made at the terminal’s menu, with a card, is never deleted', async () => {
    const out = await online('OUTMENU', ['other']);
    const dan = await strangerCase('D-1', out);
    await menuUser(out, dan.device_pin, '4242');
    expect(await userOn('OUTMENU', dan.device_pin)).toMatchObject({ enrollee: null, card: '4242' });
    await nothingGoesTo(out, dan);
    expect(out.users.get(dan.device_pin)?.fields.Card).toBe('4242');
  });
});
