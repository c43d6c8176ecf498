/**
 * Counts of each biometric kind, through the real server and simulated terminals: a terminal's
 * `FPCount` counts fingers only, its `FaceCount` and `PvCount` faces and palms (a palm of five
 * templates is one), so `sync_check` compares each with its own kind and a face or palm terminal
 * in sync says so.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let server: TestServer;

async function person(id: string) {
  await server.admin.post('/employees/', { id, name: `Person ${id}` });
  const e = await server.admin.post('/enrollees/', { employee: id, areas: [id] });
  await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' });
  return e.body as { id: string; device_pin: string };
}

/** A SpeedFace-class terminal alone in its area (the area of the one person enrolled there). */
async function speedFace(sn: string, area: string) {
  const t = new SimulatedTerminal({ url: server.url, sn, biodata: true, kinds: { visible_face: '58.10', palm: '12.0' } });
  await t.handshake();
  await t.postOptions();
  await server.admin.post(`/devices/${sn}/approve/`, { areas: [area] });
  await drain(t);
  return t;
}

const syncCheck = async (sn: string) => (await server.admin.get(`/devices/${sn}/`)).body.sync_check;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe("sync_check counts each kind against the terminal's own count of it", () => {
  test('a face terminal holding one finger and one face for its one user is in agreement', async () => {
    const alice = await person('C-ALICE');
    const t = await speedFace('SFC1', 'C-ALICE');
    expect((await t.enrollFinger(alice.device_pin, 6)).body).toBe('OK:1');
    expect((await t.enrollKind(alice.device_pin, 'visible_face')).body).toBe('OK:1');
    await t.postOptions();
    expect(t.templates.size).toBe(1);
    expect((await server.admin.get(`/enrollees/${alice.id}/`)).body).toMatchObject({ fingers: [6], biometrics: { fingerprint: [6], visible_face: [0] } });
    expect(await syncCheck('SFC1')).toMatchObject({
      users: { expected: 1, reported: 1 },
      fingerprints: { expected: 1, reported: 1 },
      faces: { expected: 1, reported: 1 },
      in_sync: true,
    });
  });

  test('a palm (five templates) is one palm, and a face the terminal lacks makes it differ', async () => {
    const carol = await person('C-CAROL');
    const t = await speedFace('SFC2', 'C-CAROL');
    expect((await t.enrollKind(carol.device_pin, 'palm', 1)).body).toBe('OK:5');
    await t.postOptions();
    // The person's view says what they have besides fingers (additively: `fingers` stays).
    expect((await server.admin.get(`/enrollees/${carol.id}/`)).body).toMatchObject({ fingers: [], biometrics: { palm: [1] } });
    expect(await syncCheck('SFC2')).toMatchObject({
      fingerprints: { expected: 0, reported: 0 },
      palms: { expected: 1, reported: 1 },
      faces: { expected: 0, reported: 0 },
      in_sync: true,
    });
    // A face enrolled elsewhere is on its way: the terminal's FaceCount is one short until it arrives.
    const other = await speedFace('SFC3', 'C-CAROL');
    expect((await other.enrollKind(carol.device_pin, 'visible_face')).body).toBe('OK:1');
    expect(await syncCheck('SFC2')).toMatchObject({ faces: { expected: 1, reported: 0 }, in_sync: false });
    await drain(t);
    await t.postOptions();
    expect(await syncCheck('SFC2')).toMatchObject({ faces: { expected: 1, reported: 1 }, in_sync: true });
  });

  test('a terminal that reports no face or palm count is judged on users and fingers only', async () => {
    const dan = await person('C-DAN');
    const t = await speedFace('SFC4', 'C-DAN');
    expect((await t.enrollKind(dan.device_pin, 'visible_face')).body).toBe('OK:1');
    await t.post('cdata', { table: 'options' }, `UserCount=1,FPCount=0,FingerFunOn=1,FPVersion=10,MultiBioDataSupport=0:1:0:0:0:0:0:0:1:1`);
    expect(await syncCheck('SFC4')).toMatchObject({
      fingerprints: { expected: 0, reported: 0 },
      faces: { expected: 1, reported: null },
      in_sync: true,
    });
  });
});
