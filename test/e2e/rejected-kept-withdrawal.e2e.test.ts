/**
 * DELETE_REJECTED_DEVICE_TEMPLATES off: a finger or face refused as outside the person's areas is
 * left on the terminal and noted on its user there, which the service never linked to the person
 * (the terminal is not theirs). The PIN the service handed out is that person wherever it appears,
 * so withdrawing their consent deletes that user there too, and the deletion proof waits for it.
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
  const users = (await s.admin.get(`/devices/${sn}/users/`)).body.results as { pin: string; enrollee: string | null; biometrics: Record<string, number> }[];
  return users.find((u) => u.pin === pin) ?? null;
}

beforeAll(async () => {
  s = await startTestServer({ DELETE_REJECTED_DEVICE_TEMPLATES: false });
});
afterAll(async () => {
  await s.close();
});

describe('a template refused outside the person’s areas and left on the terminal', () => {
  test('is deleted with the user there when consent is withdrawn; the proof lists that terminal and waits for it', async () => {
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
    expect((await outFp.enrollFinger(alice.device_pin, 2)).body).toBe('OK:1');
    expect((await outVf.enrollKind(alice.device_pin, 'visible_face')).body).toBe('OK:1');
    for (const sn of ['OUTFP', 'OUTVF']) {
      const [rejected] = await deviceLog(s.fpa, sn, 'template_rejected');
      expect(rejected?.details).toMatchObject({ pin: alice.device_pin, reason: 'not_in_scope', delete_queued: false });
    }
    expect(await userOn('OUTFP', alice.device_pin)).toMatchObject({ enrollee: null, biometrics: { fingerprint: 1 } });
    expect(await userOn('OUTVF', alice.device_pin)).toMatchObject({ enrollee: null, biometrics: { visible_face: 1 } });
    expect(await drain(outFp)).toEqual([]);
    expect(await drain(outVf)).toEqual([]);

    expect((await s.admin.delete(`/enrollees/${alice.id}/consent/`)).status).toBe(200);
    const proof = async () =>
      (await s.admin.get(`/enrollees/${alice.id}/deletion-proof/`)).body as { complete: boolean; terminals: { serial_number: string; status: string }[] };
    expect((await proof()).terminals.map((t) => t.serial_number).sort()).toEqual(['HQFP', 'OUTFP', 'OUTVF']);
    expect(await proof()).toMatchObject({ complete: false });
    // Not her terminals: the user goes, and is not put back.
    expect(await drain(outFp)).toEqual([`DATA DELETE USERINFO PIN=${alice.device_pin}`]);
    expect(outFp.users.has(alice.device_pin)).toBe(false);
    expect(outFp.templates.has(`${alice.device_pin}:2`)).toBe(false);
    expect(await drain(outVf)).toEqual([`DATA DELETE USERINFO PIN=${alice.device_pin}`]);
    expect([...outVf.biodata.values()].some((b) => b.pin === alice.device_pin)).toBe(false);
    expect(await userOn('OUTFP', alice.device_pin)).toBeNull();
    expect(await proof()).toMatchObject({ complete: false });
    expect((await drain(hq)).some((c) => c.startsWith(`DATA DELETE FINGERTMP PIN=${alice.device_pin}`))).toBe(true);
    expect(await proof()).toMatchObject({ complete: true });
  });

  test('is deleted with the user there when the person is deleted, and the proof waits for it', async () => {
    const outFp = await online('OUTFP2', ['other']);
    await s.admin.post('/employees/', { id: 'B-1', name: 'Bob' });
    const bob = (await s.admin.post('/enrollees/', { employee: 'B-1', areas: ['hq'] })).body as { id: string; device_pin: string };
    await s.admin.post(`/enrollees/${bob.id}/consent/`, { version: 'v1', method: 'paper' });
    expect((await outFp.enrollFinger(bob.device_pin, 4)).body).toBe('OK:1');
    expect(await userOn('OUTFP2', bob.device_pin)).toMatchObject({ enrollee: null, biometrics: { fingerprint: 1 } });

    expect((await s.admin.delete(`/enrollees/${bob.id}/`)).status).toBe(204);
    const proof = async () => (await s.admin.get(`/enrollees/${bob.id}/deletion-proof/`)).body as { complete: boolean; terminals: { serial_number: string }[] };
    expect((await proof()).terminals.map((t) => t.serial_number)).toContain('OUTFP2');
    expect(await drain(outFp)).toEqual([`DATA DELETE USERINFO PIN=${bob.device_pin}`]);
    expect(outFp.templates.has(`${bob.device_pin}:4`)).toBe(false);
    for (const sn of ['HQFP', 'OUTFP', 'OUTVF']) await drain(new SimulatedTerminal({ url: s.url, sn }));
    expect(await proof()).toMatchObject({ complete: true });
  });
});
