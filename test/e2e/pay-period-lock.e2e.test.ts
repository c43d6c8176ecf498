/**
 * When a pay period can be locked, through the real server (HTTP, ADMS uploads, a test clock):
 * HR at 19:50 Berlin on Saturday 28 November 2026, everyone on a 14:00–22:00 shift. A period
 * that has ended locks; one that holds today, or lies in the future, is refused (409, the error
 * body saying from which date it can be locked) and stays open, so today's punches still count
 * and the Today board follows them; once its last date is over it locks, its absences written
 * first.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
/** 19:50 in Berlin (CET, +01:00) on Saturday 28 November 2026. */
let now = Date.parse('2026-11-28T19:50:00+01:00');
let server: TestServer;
let terminal: SimulatedTerminal;
const pins: Record<string, string> = {};
const ids: Record<string, string> = {};

async function created(path: string, body: unknown) {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status }).toEqual({ path, status: 201 });
  return res.body;
}

async function statusOnBoard(employee: string): Promise<string> {
  const board = await server.admin.get('/attendance/today/');
  expect(board.status).toBe(200);
  return board.body.people.find((p: { employee: string }) => p.employee === employee).status;
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  for (const employee of ['E150', 'E158']) {
    await created('/employees/', { id: employee, name: `Person ${employee}` });
    const enrollee = await created('/enrollees/', { employee, areas: ['south'] });
    pins[employee] = enrollee.device_pin;
    ids[employee] = enrollee.id;
  }
  terminal = new SimulatedTerminal({ url: server.url, sn: 'TERMS001', timeZone: ZONE });
  await terminal.handshake();
  expect((await server.admin.post('/devices/TERMS001/approve/', { areas: ['south'] })).status).toBe(200);
  await created('/work-schedules/', { name: 'late', start: '14:00', end: '22:00', weekdays: [0, 1, 2, 3, 4, 5, 6] });
  await created('/shift-assignments/', { schedule: 'late', area: 'south', from: '2026-11-01' });
  // E150 came in at 14:00 and is in now; E158 has not come in yet.
  expect(await terminal.punch([{ pin: pins.E150!, localTime: '2026-11-28 14:00:00' }])).toEqual({ status: 200, body: 'OK:1' });
});
afterAll(async () => {
  await server.close();
});

describe('locking a pay period', () => {
  test('a period that ended yesterday locks', async () => {
    const period = await created('/pay-periods/', { from: '2026-11-01', to: '2026-11-27' });
    const locked = await server.admin.post(`/pay-periods/${period.id}/lock/`);
    expect(locked.status).toBe(200);
    expect(locked.body).toMatchObject({ locked: true, locked_by: 'admin@example.com' });
  });

  test('a period holding today is refused, says from when it can be locked, and stays open', async () => {
    const period = await created('/pay-periods/', { from: '2026-11-28', to: '2026-11-30' });
    const refused = await server.admin.post(`/pay-periods/${period.id}/lock/`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: {
        code: 'conflict',
        message: 'the pay period ends on 2026-11-30, which is not over yet: it can be locked from 2026-12-01 on',
        details: { pay_period: period.id, to: '2026-11-30', today: '2026-11-28', time_zone: expect.any(String), lockable_from: '2026-12-01' },
        request_id: expect.any(String),
      },
    });
    expect((await server.admin.get(`/pay-periods/${period.id}/`)).body).toMatchObject({ locked: false, locked_at: null });
    // Today's punches still count: the board follows them and none is after a lock.
    expect(await statusOnBoard('E158')).toBe('not_in_yet');
    expect(await statusOnBoard('E150')).toBe('present');
    const punched = await terminal.punch([
      { pin: pins.E158!, localTime: '2026-11-28 19:50:57' },
      { pin: pins.E150!, localTime: '2026-11-28 19:50:57' },
    ]);
    expect(punched).toEqual({ status: 200, body: 'OK:2' });
    expect(await statusOnBoard('E158')).toBe('late');
    const board = await server.admin.get('/attendance/today/');
    expect(board.body.counts).toMatchObject({ present: 2, late: 1, in_now: 1, out: 1, not_in_yet: 0 });
    const flags = await server.admin.get('/punches/?employee=E158&from=2026-11-28&to=2026-11-28');
    expect(flags.body.results.map((p: { flags: string[] }) => p.flags)).toEqual([[]]);
  });

  test('a future period can be added but not locked', async () => {
    const period = await created('/pay-periods/', { from: '2026-12-01', to: '2026-12-31' });
    const refused = await server.admin.post(`/pay-periods/${period.id}/lock/`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toMatchObject({ lockable_from: '2027-01-01' });
  });

  test('the last minute of its last date is still too early; from the next date on it locks', async () => {
    const [open] = (await server.admin.get('/pay-periods/?from=2026-11-28&to=2026-11-28')).body.results;
    now = Date.parse('2026-11-30T23:59:00+01:00');
    expect((await server.admin.post(`/pay-periods/${open.id}/lock/`)).status).toBe(409);
    now = Date.parse('2026-12-01T00:00:00+01:00');
    const locked = await server.admin.post(`/pay-periods/${open.id}/lock/`);
    expect(locked.status).toBe(200);
    expect(locked.body).toMatchObject({ from: '2026-11-28', to: '2026-11-30', locked: true });
    // What the lock froze is the day as its punches made it.
    const day = await server.admin.get('/attendance-days/?employee=E158&from=2026-11-28&to=2026-11-28');
    expect(day.body.results[0]).toMatchObject({ status: 'incomplete', punch_count: 1 });
  });

  // Locked at midnight, before the night's generate-absences (00:15) had written 30 November:
  // the dates nobody punched on had no day, and the lock froze them so (nobody absent).
  test('every date of the period has its day when it locks, before the night’s absences job ran', async () => {
    const days = await server.admin.get('/attendance-days/?from=2026-11-29&to=2026-11-30');
    const seen = days.body.results.map((d: { employee: string; date: string; status: string }) => `${d.employee} ${d.date} ${d.status}`).sort();
    expect(seen).toEqual(['E150 2026-11-29 absent', 'E150 2026-11-30 absent', 'E158 2026-11-29 absent', 'E158 2026-11-30 absent']);
  });

  // README "Pay periods": a locked day's figures and statuses never change; the export's `name` is
  // the person's name now, so a payroll keys on `employee`.
  test('a locked period exported again after its person is renamed: every figure byte for byte the same, only the name is the new one', async () => {
    const exported = async () => {
      const res = await server.admin.get('/attendance-days/export.csv?from=2026-11-01&to=2026-11-30&employee=E150');
      expect(res.status).toBe(200);
      return (res.body as string).trimEnd().split(/\r?\n/);
    };
    const before = await exported();
    // The header, then 28, 29 and 30 November.
    expect(before).toHaveLength(4);
    const renamed = await server.admin.patch(`/enrollees/${ids.E150}/`, { display_name: 'Renamed Person' });
    expect(renamed.status).toBe(200);
    const after = await exported();
    const NAME = before[0]!.split(',').indexOf('name');
    const withoutName = (rows: string[]) => rows.map((r) => r.split(',').toSpliced(NAME, 1).join(','));
    expect(withoutName(after)).toEqual(withoutName(before));
    expect(new Set(before.slice(1).map((r) => r.split(',')[NAME]))).toEqual(new Set(['Person E150']));
    expect(new Set(after.slice(1).map((r) => r.split(',')[NAME]))).toEqual(new Set(['Renamed Person']));
  });
});
