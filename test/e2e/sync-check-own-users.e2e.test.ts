/**
 * `sync_check` counts the same set on both sides: a terminal holding users of its own (made at
 * its menu before the rollout, with their fingers) and the service's people reads in sync, its
 * own users' fingers counted once the terminal reports them, and the users it never said the
 * fingers of told apart (`unknown_users`). A user adopted there as a person of another area is
 * counted on both sides too. Through the real server and a simulated terminal.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain, namedTerminal, personWithFingers } from '../support/terminals';

let server: TestServer;
let t: SimulatedTerminal;

beforeAll(async () => {
  server = await startTestServer();
  for (const name of ['north', 'south']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

const syncCheck = async () => (await server.admin.get('/devices/OWNSYNC1/')).body.sync_check;
/** A new handshake carries the terminal's counts (UserCount, FPCount). */
async function reportCounts(): Promise<void> {
  await t.handshake();
  await drain(t);
}

describe('a terminal holding its own users', () => {
  test('reads in sync: its own users’ fingers are reported, not expected, until it says them', async () => {
    const p = await personWithFingers(server, 'OS-1', 'north');
    t = await namedTerminal(server, 'OWNSYNC1', 'Gate', ['north'], {
      existingUsers: [
        { pin: '1', name: 'Menu One', fingers: [1, 2] },
        { pin: '2', name: 'Menu Two', fingers: [3] },
      ],
    });
    expect(t.templates.has(`${p.device_pin}:5`) && t.templates.has(`${p.device_pin}:6`)).toBe(true);
    await reportCounts();
    expect(await syncCheck()).toMatchObject({
      users: { expected: 3, reported: 3 },
      fingerprints: { expected: 2, reported: 5, unknown_users: 2 },
      in_sync: true,
    });

    // Its own user's finger, sent up by the terminal: known, and counted on both sides.
    expect((await t.uploadTemplate('1', 1)).body).toBe('OK:1');
    expect((await syncCheck()).fingerprints).toEqual({ expected: 3, reported: 5, unknown_users: 1 });
  });

  test('once every user’s fingers are known, a finger missing is out of sync', async () => {
    for (const [pin, finger] of [
      ['1', 2],
      ['2', 3],
    ] as const) {
      expect((await t.uploadTemplate(pin, finger)).body).toBe('OK:1');
    }
    const known = await syncCheck();
    expect(known.fingerprints).toMatchObject({ expected: 5, reported: 5, unknown_users: 0 });
    expect(known.in_sync).toBe(true);
    // A finger of the service's person lost at the terminal.
    t.templates.delete([...t.templates.keys()].find((k) => !k.startsWith('1:') && !k.startsWith('2:'))!);
    await reportCounts();
    expect(await syncCheck()).toMatchObject({ fingerprints: { expected: 5, reported: 4, unknown_users: 0 }, in_sync: false });
  });
  test('a user adopted there as a person of another area is counted on both sides', async () => {
    expect((await server.admin.post('/employees/', { id: 'OS-2', name: 'South Visitor' })).status).toBe(201);
    expect((await server.admin.post('/devices/OWNSYNC1/users/2/adopt/', { employee: 'OS-2', areas: ['south'] })).status).toBe(201);
    await reportCounts();
    // Before, only the people of its areas and its own users were expected: 2 users against 3.
    expect((await syncCheck()).users).toEqual({ expected: 3, reported: 3 });
  });
});
