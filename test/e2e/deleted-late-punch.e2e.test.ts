/**
 * A person deleted while a terminal was offline: the punch they made before the deletion, which
 * the terminal uploads when it comes back, is still theirs (their last day is a payroll record,
 * README "Subject access"); one made after the deletion, by whoever the terminal still let in,
 * is nobody's. Through the real server and a simulated terminal, as the tester found it: the
 * person written onto the terminal, deleted, and a new enrollee made for the same employee.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Clock } from '../../src/platform/runtime';
import { formatUsbAttlogLine } from '../../src/protocol/adms';
import { type ApiClient, clientAs, startTestServer, type TestServer } from '../support/harness';
import { namedTerminal } from '../support/terminals';

let server: TestServer;
let now = Date.parse('2026-11-29T00:30:00Z');
const clock: Clock = { now: () => now };

type Punch = { device_pin: string; enrollee: string | null; employee: string | null; punched_at: string; flags: string[] };

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC' }, { clock });
});
afterAll(async () => {
  await server.close();
});

describe('a deleted person’s punches uploaded late', () => {
  test('one made before the deletion stays theirs; one made after it is nobody’s', async () => {
    expect((await server.admin.post('/employees/', { id: 'E-001', name: 'Ada Lovelace' })).status).toBe(201);
    const created = await server.admin.post('/enrollees/', { employee: 'E-001' });
    expect(created.status).toBe(201);
    const ada = created.body as { id: string; device_pin: string };
    // Written onto the terminal, which confirmed it: the terminal's user with her PIN is Ada.
    const t = await namedTerminal(server, 'LATE0001', 'Gate', ['default'], { now: clock.now });
    const users = await server.admin.get('/devices/LATE0001/users/');
    expect((users.body.results as { pin: string; enrollee: string | null }[]).find((u) => u.pin === ada.device_pin)?.enrollee).toBe(ada.id);

    // The terminal goes offline; Ada punches there at 01:00 and is deleted at 03:30.
    const before = t.holdUnsent([{ pin: ada.device_pin, at: new Date('2026-11-29T01:00:00Z') }]);
    now = Date.parse('2026-11-29T03:30:00Z');
    expect((await server.admin.delete(`/enrollees/${ada.id}/`)).status).toBe(204);
    // The same employee is enrolled again (a new person record, a new PIN).
    const again = await server.admin.post('/enrollees/', { employee: 'E-001' });
    expect(again.status).toBe(201);
    expect((again.body as { device_pin: string }).device_pin).not.toBe(ada.device_pin);

    // Back at 04:00: it uploads her 01:00 punch, and one made at 03:45 under her PIN (it still let her in).
    now = Date.parse('2026-11-29T04:00:00Z');
    const after = t.holdUnsent([{ pin: ada.device_pin, at: new Date('2026-11-29T03:45:00Z') }]);
    const res = await t.post('cdata', { table: 'ATTLOG', Stamp: '9999' }, `${[...before, ...after].join('\n')}\n`);
    expect([res.status, res.body]).toEqual([200, 'OK:2']);

    const listed = await server.admin.get('/punches/?device=LATE0001');
    expect(listed.status).toBe(200);
    const punches = (listed.body.results as Punch[]).sort((a, b) => a.punched_at.localeCompare(b.punched_at));
    expect(punches.map((p) => [p.punched_at, p.enrollee, p.employee, p.flags.includes('unknown_pin')])).toEqual([
      ['2026-11-29T01:00:00.000Z', ada.id, 'E-001', false],
      ['2026-11-29T03:45:00.000Z', null, null, true],
    ]);
    // Her punch is among the employee's: payroll sees her last day.
    const mine = await server.admin.get('/punches/?employee=E-001');
    expect((mine.body.results as Punch[]).map((p) => p.punched_at)).toEqual(['2026-11-29T01:00:00.000Z']);
    const days = await server.admin.get(`/attendance-days/?enrollee=${ada.id}&from=2026-11-29&to=2026-11-29`);
    expect(days.status).toBe(200);
    expect((days.body.results as { punch_count: number }[]).map((d) => d.punch_count)).toEqual([1]);
    // Her PIN is hers for good: a terminal's own user under it cannot be adopted, and is told what to do.
    const other = await namedTerminal(server, 'LATE0002', 'Yard', ['yard'], { now: clock.now, existingUsers: [{ pin: ada.device_pin, name: 'Own' }] });
    await other.punch([{ pin: ada.device_pin }]);
    // Listed as a conflict (the PIN is held), not as a user to adopt.
    const yardUsers = (await server.admin.get('/devices/LATE0002/users/')).body.results as { pin: string; conflict: unknown }[];
    expect(yardUsers.find((u) => u.pin === ada.device_pin)?.conflict).not.toBeNull();
    expect((await server.admin.post('/employees/', { id: 'E-002', name: 'Grace Hopper' })).status).toBe(201);
    const adopt = await server.admin.post(`/devices/LATE0002/users/${ada.device_pin}/adopt/`, { employee: 'E-002' });
    expect(adopt.status).toBe(409);
    expect(adopt.body.error).toMatchObject({
      code: 'conflict',
      message: 'a deleted person held this PIN, and it is never given to anyone else: give this user another PIN at the terminal, then adopt them under it',
    });
  });
});

describe('a deleted person’s punches from a terminal’s USB file', () => {
  const line = (pin: string, localTime: string) => formatUsbAttlogLine({ pin, localTime, state: 0, verifyType: 1, workCode: '0', extra: [] });
  const importFile = async (client: ApiClient, sn: string, text: string, dryRun: boolean) => {
    const res = await fetch(`${client.base}/devices/${sn}/punches/import/${dryRun ? '?dry_run=true' : ''}`, {
      method: 'POST',
      headers: { ...client.headers, 'content-type': 'application/octet-stream' },
      body: text,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  test('are read as an upload reads them: the one before the deletion is theirs (and in their areas only), the one after nobody’s', async () => {
    now = Date.parse('2026-11-30T00:30:00Z');
    for (const [id, name] of [
      ['S-1', 'Sam South'],
      ['S-2', 'Sue South'],
    ]) {
      expect((await server.admin.post('/employees/', { id, name })).status).toBe(201);
    }
    const sam = (await server.admin.post('/enrollees/', { employee: 'S-1', areas: ['south'] })).body as { id: string; device_pin: string };
    const sue = (await server.admin.post('/enrollees/', { employee: 'S-2', areas: ['south'] })).body as { id: string; device_pin: string };
    await namedTerminal(server, 'USBDEL01', 'Both sites', ['north', 'south'], { now: clock.now });
    now = Date.parse('2026-11-30T03:30:00Z');
    expect((await server.admin.delete(`/enrollees/${sam.id}/`)).status).toBe(204);
    now = Date.parse('2026-11-30T08:00:00Z');
    const file = `${[line(sam.device_pin, '2026-11-30 01:00:00'), line(sue.device_pin, '2026-11-30 01:05:00'), line(sam.device_pin, '2026-11-30 04:00:00')].join('\r\n')}\r\n`;

    // A north HR officer may store neither south person's punches, the deleted one's included.
    const north = await clientAs(server, 'hr', ['north']);
    const refused = await importFile(north, 'USBDEL01', file, true);
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ imported: 0, outside_areas: 3 });

    // The administrator's dry run and import agree with what is stored: Sam's 01:00 is his, his PIN at 04:00 nobody's.
    const planned = await importFile(server.admin, 'USBDEL01', file, true);
    expect(planned.body).toMatchObject({ imported: 3, outside_areas: 0, unknown_pins: [sam.device_pin], unknown_pin_count: 1 });
    const done = await importFile(server.admin, 'USBDEL01', file, false);
    expect(done.body).toMatchObject({ imported: 3, unknown_pins: [sam.device_pin] });
    const stored = ((await server.admin.get('/punches/?device=USBDEL01')).body.results as Punch[]).sort((a, b) => a.punched_at.localeCompare(b.punched_at));
    expect(stored.map((p) => [p.punched_at, p.enrollee])).toEqual([
      ['2026-11-30T01:00:00.000Z', sam.id],
      ['2026-11-30T01:05:00.000Z', sue.id],
      ['2026-11-30T04:00:00.000Z', null],
    ]);
  });
});
