/**
 * What a terminal uploads is kept, or refused so that the terminal keeps it: never acknowledged
 * and lost. Over real HTTP, speaking raw ADMS: a parameter value loses the NULs a firmware ends it
 * with.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { rawRequest } from '../support/adms';
import { startTestServer, type TestServer } from '../support/harness';
import { deviceRow } from '../support/terminals';

const MAX = 64 * 1024;
let server: TestServer;
let serial = 0;

beforeAll(async () => {
  // Auto-approval: each test's terminal is approved at its first request.
  server = await startTestServer({ ADMS_MAX_REQUEST_BYTES: MAX, ADMS_AUTO_APPROVE: true });
});
afterAll(async () => {
  await server.close();
});

const newSerial = () => `UPLOADS${++serial}`;

async function post(path: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
  return rawRequest(server.url, { method: 'POST', path, body, headers });
}

describe('parameter values', () => {
  test('lose the NULs and spaces a firmware ends them with', async () => {
    const sn = newSerial();
    expect((await post(`/iclock/cdata?SN=${sn}&table=options`, 'DeviceName=Gate \u0000,UserCount=7\u0000')).status).toBe(200);
    const device = (await deviceRow(server.fpa, sn))!;
    expect(device.userCount).toBe(7);
    expect(device.parameters).toMatchObject({ DeviceName: 'Gate', UserCount: '7' });
    const core = server.fpa.service;
    const [id] = await core.runtime.db.write((w) => core.commands.enqueue(w, [{ deviceId: device.id, kind: 'info', payload: {} }]));
    expect((await rawRequest(server.url, { method: 'GET', path: `/iclock/getrequest?SN=${sn}` })).body).toContain(`C:${id}:INFO`);
    const answered = await post(`/iclock/devicecmd?SN=${sn}`, `ID=${id}&Return=0&CMD=INFO\nUserCount=9\u0000\nFWVersion=Ver 8.0.4\u0000\u0000\n`);
    expect(answered.status).toBe(200);
    const after = (await deviceRow(server.fpa, sn))!;
    expect([after.userCount, after.firmware]).toEqual([9, 'Ver 8.0.4']);
    expect(after.parameters).toMatchObject({ UserCount: '9', FWVersion: 'Ver 8.0.4' });
  });

  test('INFO= on a poll loses them too', async () => {
    const sn = newSerial();
    const info = encodeURIComponent('Ver 8.0.4\u0000,12\u0000,3,100,10.0.0.5,10,7,12,0,10000');
    expect((await rawRequest(server.url, { method: 'GET', path: `/iclock/getrequest?SN=${sn}&INFO=${info}` })).status).toBe(200);
    const device = (await deviceRow(server.fpa, sn))!;
    expect([device.firmware, device.userCount]).toEqual(['Ver 8.0.4', 12]);
  });
});
