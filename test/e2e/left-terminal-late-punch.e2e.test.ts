/**
 * A punch a terminal made while a person was its user there is theirs, whenever the terminal
 * uploads it: also after they left that terminal (the terminal's areas changed, the person was
 * moved to another area) and the terminal confirmed their delete. One dated after the delete
 * stays nobody's (`unknown_pin`: someone else may hold the PIN there now). Such a late punch
 * makes no stray terminal user of them there (no `conflict`, no user more in `sync_check`).
 * Through the real server and simulated terminals, as the tester found it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain, enrolledPerson, namedTerminal } from '../support/terminals';

const ZONE = 'Europe/Berlin';
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
let now = berlin('2026-11-29', '09:00');
let server: TestServer;

type Punch = { device_pin: string; enrollee: string | null; employee: string | null; local_time: string; flags: string[] };
type TerminalUser = { pin: string; enrollee: unknown; conflict: unknown };

const userDelete = (pin: string) => `DATA DELETE USERINFO PIN=${pin}`;

async function upload(t: SimulatedTerminal, lines: string[]): Promise<void> {
  const res = await t.post('cdata', { table: 'ATTLOG', Stamp: '9999' }, `${lines.join('\n')}\n`);
  expect([res.status, res.body]).toEqual([200, `OK:${lines.length}`]);
}

async function punchesOf(sn: string, pin: string): Promise<Punch[]> {
  const listed = await server.admin.get(`/punches/?device=${sn}`);
  expect(listed.status).toBe(200);
  return (listed.body.results as Punch[]).filter((p) => p.device_pin === pin).sort((a, b) => a.local_time.localeCompare(b.local_time));
}

async function usersOf(sn: string): Promise<TerminalUser[]> {
  const res = await server.admin.get(`/devices/${sn}/users/`);
  expect(res.status).toBe(200);
  return res.body.results as TerminalUser[];
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  for (const name of ['siteA', 'siteB']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

describe('a terminal moved to another area uploads a punch of a person it no longer holds', () => {
  test('the punch made while they were its user is theirs, and they are no stray user there', async () => {
    const a3 = await namedTerminal(server, 'A3', 'Gate A3', ['siteA'], { timeZone: ZONE, now: () => now });
    const person = await enrolledPerson(server, 'E-010', 'Erin Ten', ['siteA']);
    await drain(a3);
    expect(a3.users.has(person.device_pin)).toBe(true);

    // 11:20: they punch; the terminal records it but does not upload it.
    const before = a3.holdUnsent([{ pin: person.device_pin, localTime: '2026-11-29 11:20:00' }]);
    now = berlin('2026-11-29', '11:30');
    expect((await server.admin.patch('/devices/A3/', { areas: ['siteB'] })).status).toBe(200);
    expect(await drain(a3)).toContain(userDelete(person.device_pin));
    expect(a3.users.has(person.device_pin)).toBe(false);

    // 11:40: the terminal uploads its log line.
    now = berlin('2026-11-29', '11:40');
    await upload(a3, before);
    expect((await punchesOf('A3', person.device_pin)).map((p) => [p.local_time.slice(0, 16), p.enrollee, p.employee, p.flags.includes('unknown_pin')])).toEqual(
      [['2026-11-29 11:20', person.id, 'E-010', false]],
    );
    // Their punch made no user of it: nothing listed under their PIN, nothing more expected there.
    expect((await usersOf('A3')).filter((u) => u.pin === person.device_pin)).toEqual([]);
    // The fleet expects there what the terminal holds (the tester's 18 against 17).
    expect((await server.admin.get('/devices/A3/')).body.sync_check.users.expected).toBe(a3.users.size);
    // Payroll sees it among the employee's punches.
    const mine = await server.admin.get('/punches/?employee=E-010');
    expect((mine.body.results as Punch[]).map((p) => p.local_time.slice(0, 16))).toEqual(['2026-11-29 11:20']);

    // One dated after the delete, under the same PIN, is nobody's: the terminal's own user now.
    now = berlin('2026-11-29', '12:10');
    await upload(a3, a3.holdUnsent([{ pin: person.device_pin, localTime: '2026-11-29 12:00:00' }]));
    expect((await punchesOf('A3', person.device_pin)).map((p) => [p.local_time.slice(0, 16), p.enrollee, p.flags.includes('unknown_pin')])).toEqual([
      ['2026-11-29 11:20', person.id, false],
      ['2026-11-29 12:00', null, true],
    ]);
    expect((await usersOf('A3')).filter((u) => u.pin === person.device_pin)).toHaveLength(1);
  });

  test('a terminal that never held the person: their PIN there is its own user (unknown_pin), as before', async () => {
    now = berlin('2026-11-29', '13:00');
    const b1 = await namedTerminal(server, 'B1', 'Gate B1', ['siteB'], { timeZone: ZONE, now: () => now });
    const person = await enrolledPerson(server, 'E-011', 'Eli Eleven', ['siteA']);
    await drain(b1);
    expect(b1.users.has(person.device_pin)).toBe(false);
    await upload(b1, b1.holdUnsent([{ pin: person.device_pin, localTime: '2026-11-29 12:50:00' }]));
    expect((await punchesOf('B1', person.device_pin)).map((p) => [p.enrollee, p.flags.includes('unknown_pin')])).toEqual([[null, true]]);
  });
});

describe('a person moved to another area, taken off the old site’s terminal by follow-area-moves', () => {
  test('their punch there from before the delete, uploaded after it, is theirs; one after it is nobody’s', async () => {
    now = berlin('2026-12-01', '07:00');
    const a4 = await namedTerminal(server, 'A4', 'Gate A4', ['siteA'], { timeZone: ZONE, now: () => now });
    const person = await enrolledPerson(server, 'E-020', 'Edda Twenty', ['siteA']);
    await drain(a4);
    expect(a4.users.has(person.device_pin)).toBe(true);

    // Moved at 10:00 (from tomorrow); they punch out at A at 17:00, a line the terminal keeps.
    now = berlin('2026-12-01', '10:00');
    expect((await server.admin.patch(`/enrollees/${person.id}/`, { areas: ['siteB'] })).status).toBe(200);
    const before = a4.holdUnsent([{ pin: person.device_pin, localTime: '2026-12-01 17:00:00' }]);

    // Tuesday has begun: the job takes them off A's terminal, which confirms.
    now = berlin('2026-12-02', '00:05');
    const run = await server.admin.post('/jobs/follow-area-moves/run/');
    expect(run.body).toMatchObject({ status: 'succeeded', result: { people: 1 } });
    expect(await drain(a4)).toEqual([userDelete(person.device_pin)]);

    // 09:00: the terminal uploads the 17:00 line, and one made under the PIN at 08:00 (after the delete).
    now = berlin('2026-12-02', '09:00');
    await upload(a4, before);
    expect((await usersOf('A4')).filter((u) => u.pin === person.device_pin)).toEqual([]);
    await upload(a4, a4.holdUnsent([{ pin: person.device_pin, localTime: '2026-12-02 08:00:00' }]));
    expect((await punchesOf('A4', person.device_pin)).map((p) => [p.local_time.slice(0, 16), p.enrollee, p.flags.includes('unknown_pin')])).toEqual([
      ['2026-12-01 17:00', person.id, false],
      ['2026-12-02 08:00', null, true],
    ]);
    const day = await server.admin.get('/attendance-days/?employee=E-020&from=2026-12-01&to=2026-12-01');
    expect((day.body.results as { punch_count: number }[]).map((d) => d.punch_count)).toEqual([1]);
  });
});

describe('a removed terminal approved again into another area', () => {
  test('its punch of a person it held, uploaded after their delete, is theirs; the reconciliation finds no stray user', async () => {
    now = berlin('2026-12-03', '08:00');
    const a5 = await namedTerminal(server, 'A5', 'Gate A5', ['siteA'], { timeZone: ZONE, now: () => now });
    const person = await enrolledPerson(server, 'E-030', 'Ezra Thirty', ['siteA']);
    await drain(a5);
    expect(a5.users.has(person.device_pin)).toBe(true);
    const before = a5.holdUnsent([{ pin: person.device_pin, localTime: '2026-12-03 08:30:00' }]);

    now = berlin('2026-12-03', '09:00');
    expect((await server.admin.delete('/devices/A5/')).status).toBe(204);
    // It knocks again (pending under its old id) and is approved into site B: the person goes once it answered.
    now = berlin('2026-12-03', '10:00');
    await a5.handshake();
    expect((await server.admin.post('/devices/A5/approve/', { areas: ['siteB'] })).status).toBe(200);
    expect(await drain(a5)).toContain(userDelete(person.device_pin));
    expect(a5.users.has(person.device_pin)).toBe(false);

    now = berlin('2026-12-03', '10:30');
    await upload(a5, before);
    expect((await punchesOf('A5', person.device_pin)).map((p) => [p.enrollee, p.flags.includes('unknown_pin')])).toEqual([[person.id, false]]);
    expect((await server.admin.post('/jobs/reconcile-devices/run/')).status).toBe(200);
    await drain(a5);
    expect((await usersOf('A5')).filter((u) => u.pin === person.device_pin)).toEqual([]);
    expect((await punchesOf('A5', person.device_pin)).map((p) => p.enrollee)).toEqual([person.id]);
  });
});
