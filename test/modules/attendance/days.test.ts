import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { createPeople, dayOf, linesAt, type Person, terminal, upload } from '../../support/attendance';
import { startTestServer, type TestServer } from '../../support/harness';

// Asia/Kolkata is UTC+05:30 all year: local midnight is 18:30Z of the day before.
const ZONE = 'Asia/Kolkata';
let server: TestServer;
let device: DeviceRow;
let people: Record<string, Person>;

beforeAll(async () => {
  server = await startTestServer({
    TIME_ZONE: ZONE,
    DEFAULT_SCHEDULE: '09:00-17:00/10m',
    HOLIDAYS: '2026-03-11',
  });
  people = await createPeople(server, ['E-1', 'E-2', 'E-3', 'E-4', 'E-5']);
  device = await terminal(server, 'KOL0001');
});
afterAll(async () => {
  await server.close();
});

const pin = (employee: string) => people[employee]!.pin;

describe('attendance days from punches (Asia/Kolkata, 09:00-17:00 with 10 minutes grace)', () => {
  test('a full day with a lunch break: worked time excludes the break', async () => {
    await upload(server, device, linesAt(ZONE, pin('E-1'), '2026-03-09 09:05:00', '2026-03-09 13:00:00', '2026-03-09 13:30:00', '2026-03-09 17:30:00'));
    const day = await dayOf(server, 'E-1', '2026-03-09');
    expect(day).toEqual({
      employee: 'E-1',
      enrollee: people['E-1']!.id,
      date: '2026-03-09',
      first_in: '2026-03-09T03:35:00.000Z',
      last_out: '2026-03-09T12:00:00.000Z',
      worked_seconds: 3 * 3600 + 55 * 60 + 4 * 3600,
      punch_count: 4,
      status: 'present',
      flags: [],
      schedule: 'default',
      expected_seconds: 8 * 3600,
      late_seconds: 0,
      early_leave_seconds: 0,
      overtime_seconds: 0,
    });
  });

  test('late and early_leave are judged in local time against start + grace and end − grace', async () => {
    await upload(server, device, linesAt(ZONE, pin('E-2'), '2026-03-09 09:10:01', '2026-03-09 16:49:59'));
    const late = await dayOf(server, 'E-2', '2026-03-09');
    expect(late.flags).toEqual(['late', 'early_leave']);
    // Late by the whole time since the start, early by the whole time until the end.
    expect(late).toMatchObject({ late_seconds: 10 * 60 + 1, early_leave_seconds: 10 * 60 + 1, overtime_seconds: 0 });
    expect(late.status).toBe('present');
    // Exactly on the grace limits is neither late nor early.
    await upload(server, device, linesAt(ZONE, pin('E-3'), '2026-03-09 09:10:00', '2026-03-09 16:50:00'));
    const onTime = await dayOf(server, 'E-3', '2026-03-09');
    expect(onTime.flags).toEqual([]);
    expect(onTime.worked_seconds).toBe(7 * 3600 + 40 * 60);
  });

  test('a single punch is incomplete with no last_out; a late upload of the out punch completes it', async () => {
    await upload(server, device, linesAt(ZONE, pin('E-4'), '2026-03-09 08:55:00'));
    const single = await dayOf(server, 'E-4', '2026-03-09');
    expect(single).toMatchObject({ status: 'incomplete', punch_count: 1, worked_seconds: 0, last_out: null, first_in: '2026-03-09T03:25:00.000Z' });
    // Days later another terminal uploads the out punch it had kept offline.
    await upload(server, device, linesAt(ZONE, pin('E-4'), '2026-03-12 09:00:00'));
    const other = await terminal(server, 'KOL0002');
    const result = await upload(server, other, linesAt(ZONE, pin('E-4'), '2026-03-09 17:05:00'));
    expect(result.inserted).toBe(1);
    const completed = await dayOf(server, 'E-4', '2026-03-09');
    expect(completed).toMatchObject({ status: 'present', punch_count: 2, worked_seconds: 8 * 3600 + 10 * 60, last_out: '2026-03-09T11:35:00.000Z', flags: [] });
    // A resend of the same batch is a duplicate and changes nothing.
    const again = await upload(server, other, linesAt(ZONE, pin('E-4'), '2026-03-09 17:05:00'));
    expect(again).toMatchObject({ inserted: 0, duplicates: 1 });
    expect(await dayOf(server, 'E-4', '2026-03-09')).toEqual(completed);
  });

  test('three punches (an out forgotten) leave the day incomplete; only the pair counts as worked, its out is the last out', async () => {
    await upload(server, device, linesAt(ZONE, pin('E-5'), '2026-03-09 09:00:00', '2026-03-09 13:00:00', '2026-03-09 14:00:00'));
    const day = await dayOf(server, 'E-5', '2026-03-09');
    // 13:00 in Kolkata: the 14:00 punch was an in (its out forgotten), not the last clock-out.
    expect(day).toMatchObject({ status: 'incomplete', punch_count: 3, worked_seconds: 4 * 3600, last_out: '2026-03-09T07:30:00.000Z' });
  });

  test('a repeated tap within a minute is counted as one punch for pairing', async () => {
    await upload(server, device, linesAt(ZONE, pin('E-3'), '2026-03-12 08:58:00', '2026-03-12 08:58:30', '2026-03-12 17:02:00'));
    const day = await dayOf(server, 'E-3', '2026-03-12');
    expect(day).toMatchObject({ status: 'present', punch_count: 3, worked_seconds: 8 * 3600 + 4 * 60, flags: [] });
  });

  test('the local date decides the day, not the UTC date', async () => {
    // 00:30 on 10 March in Kolkata is 19:00Z on 9 March.
    await upload(server, device, linesAt(ZONE, pin('E-5'), '2026-03-10 00:30:00', '2026-03-10 05:00:00'));
    const day = await dayOf(server, 'E-5', '2026-03-10');
    expect(day).toMatchObject({ date: '2026-03-10', first_in: '2026-03-09T19:00:00.000Z', punch_count: 2, worked_seconds: 4.5 * 3600 });
    expect((await dayOf(server, 'E-5', '2026-03-09')).punch_count).toBe(3);
  });

  test('weekends and holidays: punches still make a day, flagged worked_on_off_day / worked_on_holiday, all overtime, never late', async () => {
    // 14 March 2026 is a Saturday; 11 March is a configured holiday.
    await upload(server, device, linesAt(ZONE, pin('E-1'), '2026-03-14 11:00:00', '2026-03-14 12:00:00'));
    expect(await dayOf(server, 'E-1', '2026-03-14')).toMatchObject({
      status: 'present',
      worked_seconds: 3600,
      flags: ['worked_on_off_day', 'overtime'],
      schedule: null,
      expected_seconds: 0,
      overtime_seconds: 3600,
    });
    await upload(server, device, linesAt(ZONE, pin('E-2'), '2026-03-11 10:00:00'));
    expect(await dayOf(server, 'E-2', '2026-03-11')).toMatchObject({ status: 'incomplete', flags: ['worked_on_holiday'], expected_seconds: 0 });
  });

  test("punches of a terminal's own user make days once an administrator adopts them", async () => {
    const own = '42';
    await upload(server, device, linesAt(ZONE, own, '2026-03-09 09:30:00', '2026-03-09 18:00:00', '2026-03-10 09:00:00'));
    expect(await dayOf(server, 'E-6', '2026-03-09')).toBeNull();
    // A new enrollee never gets the PIN of a terminal's user, so the punches stay where they are.
    const [created] = Object.values(await createPeople(server, ['E-7']));
    expect(created!.pin).not.toBe(own);
    expect(await server.admin.post('/employees/', { id: 'E-6', name: 'Person E-6' })).toMatchObject({ status: 201 });
    const adopted = await server.admin.post(`/devices/${device.serialNumber}/users/${own}/adopt/`, { employee: 'E-6' });
    expect(adopted).toMatchObject({ status: 201, body: { employee: 'E-6', device_pin: own } });
    // Half an hour late and half an hour over the expected eight hours.
    expect(await dayOf(server, 'E-6', '2026-03-09')).toMatchObject({
      status: 'present',
      flags: ['late', 'overtime'],
      worked_seconds: 8.5 * 3600,
      late_seconds: 1800,
      overtime_seconds: 1800,
    });
    expect(await dayOf(server, 'E-6', '2026-03-10')).toMatchObject({ status: 'incomplete', punch_count: 1 });
    // The event names the span of the punches it gave her (their days are found by it).
    const events = await server.admin.get('/events/?type=punches_attributed');
    expect(events.body.results.map((e: { data: unknown }) => e.data)).toContainEqual({
      enrollee: adopted.body.id,
      employee: 'E-6',
      device_pin: own,
      count: 3,
      first_punched_at: '2026-03-09T04:00:00.000Z',
      last_punched_at: '2026-03-10T03:30:00.000Z',
    });
  });
});

describe('GET attendance-days/', () => {
  test('filters by employee, date range and status, newest date first', async () => {
    const byEmployee = await server.admin.get('/attendance-days/?employee=E-1');
    expect(byEmployee.status).toBe(200);
    expect(byEmployee.body.results.map((d: { date: string }) => d.date)).toEqual(['2026-03-14', '2026-03-09']);
    expect(byEmployee.body.next_cursor).toBeNull();

    const incomplete = await server.admin.get('/attendance-days?status=incomplete&from=2026-03-09&to=2026-03-10');
    expect(incomplete.body.results.map((d: { employee: string; date: string }) => `${d.employee}@${d.date}`).sort()).toEqual([
      'E-5@2026-03-09',
      'E-6@2026-03-10',
    ]);
    const byEnrollee = await server.admin.get(`/attendance-days/?enrollee=${people['E-4']!.id}`);
    expect(byEnrollee.body.results.map((d: { date: string }) => d.date)).toEqual(['2026-03-12', '2026-03-09']);
  });

  test('pages with an opaque cursor without skipping or repeating', async () => {
    const all = await server.admin.get('/attendance-days/?limit=1000');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { results: Array<{ enrollee: string; date: string }>; next_cursor: string | null } } = await server.admin.get(
        `/attendance-days/?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.body.results.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.results.map((d) => `${d.enrollee}@${d.date}`));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.body.results.map((d: { enrollee: string; date: string }) => `${d.enrollee}@${d.date}`));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(12);
  });

  test('bad filters get the error body; anonymous callers are refused', async () => {
    const badStatus = await server.admin.get('/attendance-days/?status=sick');
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error.code).toBe('validation_error');
    const badDate = await server.admin.get('/attendance-days/?from=2026-02-30');
    expect(badDate.status).toBe(400);
    const badCursor = await server.admin.get('/attendance-days/?cursor=nope');
    expect(badCursor.body.error.code).toBe('invalid_cursor');
    const anonymous = await fetch(`${server.url}/api/fingerprint/v1/attendance-days/`);
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe('unauthorized');
  });
});
