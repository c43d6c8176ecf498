/**
 * An operator's command to a terminal waiting for approval is refused, saying why (409
 * `device_not_approved`): such a terminal is sent only the deletes it owes, so a reboot, a clock,
 * an INFO or a resync queued for it would wait silently. Approved, the same command is queued and
 * goes out. Through the real server and a simulated terminal.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

const SN = 'WAITING01';
let server: TestServer;
let terminal: SimulatedTerminal;

beforeAll(async () => {
  server = await startTestServer();
  terminal = new SimulatedTerminal({ url: server.url, sn: SN });
  await terminal.handshake();
  await terminal.postOptions();
  expect((await server.admin.get(`/devices/${SN}/`)).body.status).toBe('pending_approval');
});
afterAll(async () => {
  await server.close();
});

describe('a terminal waiting for approval', () => {
  test('refuses operator commands and a resync with 409, saying approval sends its backfill; nothing is queued', async () => {
    for (const body of [{ kind: 'reboot' }, { kind: 'set_time' }, { kind: 'info' }, { kind: 'query_users' }, { kind: 'reupload_logs', from: '2026-01-01' }]) {
      const res = await server.admin.post(`/devices/${SN}/commands/`, body);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'device_not_approved', details: { serial_number: SN, status: 'pending_approval' } });
      expect(res.body.error.message).toContain('waiting for approval');
      expect(res.body.error.message).toContain('backfill');
    }
    const resync = await server.admin.post(`/devices/${SN}/resync/`, {});
    expect(resync.status).toBe(409);
    expect(resync.body.error.code).toBe('device_not_approved');
    expect((await server.admin.get(`/devices/${SN}/commands/`)).body.results).toEqual([]);
  });

  test('approved, the same command is queued and goes out', async () => {
    expect((await server.admin.post(`/devices/${SN}/approve/`, { areas: ['default'] })).status).toBe(200);
    await drain(terminal);
    const res = await server.admin.post(`/devices/${SN}/commands/`, { kind: 'info' });
    expect(res.status).toBe(201);
    expect(await drain(terminal)).toContain('INFO');
  });

  test('removed and back, waiting again: a failed command of before is not retried, it would wait', async () => {
    const sn = 'WAITING02';
    const t = new SimulatedTerminal({ url: server.url, sn, respond: (c) => (c.text === 'INFO' ? -1002 : undefined) });
    await t.handshake();
    await t.postOptions();
    expect((await server.admin.post(`/devices/${sn}/approve/`, { areas: ['default'] })).status).toBe(200);
    await drain(t);
    const info = await server.admin.post(`/devices/${sn}/commands/`, { kind: 'info' });
    expect(info.status).toBe(201);
    await drain(t);
    const queue = (await server.admin.get(`/devices/${sn}/commands/`)).body.results as { id: number; status: string }[];
    expect(queue.find((c) => c.id === info.body.id)?.status).toBe('failed');
    expect((await server.admin.delete(`/devices/${sn}/`)).status).toBe(204);
    await t.handshake();
    expect((await server.admin.get(`/devices/${sn}/`)).body.status).toBe('pending_approval');
    const retried = await server.admin.post(`/devices/${sn}/commands/${info.body.id}/retry/`);
    expect(retried.status).toBe(409);
    expect(retried.body.error.code).toBe('device_not_approved');
  });
});
