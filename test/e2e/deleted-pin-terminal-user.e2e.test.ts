/**
 * A deleted person's PIN on a terminal names nobody from the moment of the deletion: punches still
 * arriving under it (a terminal that has not run the delete yet, a USB file) leave the terminal's
 * user under that PIN without their name and without a link to them in `devices/{sn}/users/`,
 * a held PIN (a conflict that names no one), not adoptable. Through the real server and a
 * simulated terminal.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { formatUsbAttlogLine } from '../../src/protocol/adms';
import { startTestServer, type TestServer } from '../support/harness';
import { drain, namedTerminal } from '../support/terminals';

let server: TestServer;

interface TerminalUser {
  pin: string;
  name: string | null;
  enrollee: string | null;
  conflict: { enrollee: string | null; employee: string | null } | null;
}

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

async function userOf(sn: string, pin: string): Promise<TerminalUser | undefined> {
  const res = await server.admin.get(`/devices/${sn}/users/`);
  expect(res.status).toBe(200);
  return (res.body.results as TerminalUser[]).find((u) => u.pin === pin);
}

describe('a deleted person’s PIN on a terminal', () => {
  test('a punch under it before the terminal ran the delete: the user there names nobody', async () => {
    expect((await server.admin.post('/employees/', { id: 'DP-1', name: 'Dora Deleted' })).status).toBe(201);
    const dora = (await server.admin.post('/enrollees/', { employee: 'DP-1' })).body as { id: string; device_pin: string };
    const t = await namedTerminal(server, 'DELPIN01', 'Gate', ['default']);
    expect(await userOf('DELPIN01', dora.device_pin)).toMatchObject({ name: 'Dora Deleted', enrollee: dora.id });

    expect((await server.admin.delete(`/enrollees/${dora.id}/`)).status).toBe(204);
    // At once, before the terminal ran the delete: her PIN names no one there.
    expect(await userOf('DELPIN01', dora.device_pin)).toMatchObject({ name: null, enrollee: null, conflict: { enrollee: null, employee: null } });
    // It still lets someone in under her PIN and uploads the punch.
    expect((await t.punch([{ pin: dora.device_pin }])).body).toStartWith('OK');
    expect(await userOf('DELPIN01', dora.device_pin)).toMatchObject({ name: null, enrollee: null, conflict: { enrollee: null, employee: null } });
    // Not adoptable, and the refusal does not name her either.
    expect((await server.admin.post('/employees/', { id: 'DP-9', name: 'Someone Else' })).status).toBe(201);
    const adopt = await server.admin.post(`/devices/DELPIN01/users/${dora.device_pin}/adopt/`, { employee: 'DP-9' });
    expect(adopt.status).toBe(409);
    expect(adopt.body.error.message).toStartWith('a deleted person held this PIN');
    expect(JSON.stringify(adopt.body.error.details)).not.toContain(dora.id);
    // The delete goes out and is confirmed: the user leaves the list.
    expect(await drain(t)).toContain(`DATA DELETE USERINFO PIN=${dora.device_pin}`);
    expect(await userOf('DELPIN01', dora.device_pin)).toBeUndefined();
  });

  test('a USB file with her PIN on a terminal that never held her: listed as a held PIN naming no one', async () => {
    expect((await server.admin.post('/employees/', { id: 'DP-2', name: 'Dan Deleted' })).status).toBe(201);
    const dan = (await server.admin.post('/enrollees/', { employee: 'DP-2', areas: ['yard'] })).body as { id: string; device_pin: string };
    await namedTerminal(server, 'DELPIN02', 'Other', ['default']);
    expect((await server.admin.delete(`/enrollees/${dan.id}/`)).status).toBe(204);
    const line = formatUsbAttlogLine({ pin: dan.device_pin, localTime: '2026-01-05 08:00:00', state: 0, verifyType: 1, workCode: '0', extra: [] });
    const res = await fetch(`${server.admin.base}/devices/DELPIN02/punches/import/`, {
      method: 'POST',
      headers: { ...server.admin.headers, 'content-type': 'application/octet-stream' },
      body: `${line}\r\n`,
    });
    expect(res.status).toBe(200);
    expect(await userOf('DELPIN02', dan.device_pin)).toMatchObject({ name: null, enrollee: null, conflict: { enrollee: null, employee: null } });
  });
});
