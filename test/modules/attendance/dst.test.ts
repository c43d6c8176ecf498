import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { createPeople, dayOf, linesAt, type Person, terminal, upload } from '../../support/attendance';
import { startTestServer, type TestServer } from '../../support/harness';

// The terminals keep UTC; attendance dates are counted in New York, which springs forward on
// 8 March 2026 (02:00 EST → 03:00 EDT, a 23-hour day) and falls back on 1 November 2026
// (02:00 EDT → 01:00 EST, a 25-hour day).
let server: TestServer;
let device: DeviceRow;
let people: Record<string, Person>;

beforeAll(async () => {
  server = await startTestServer({
    TIME_ZONE: 'UTC',
    ATTENDANCE_TIME_ZONE: 'America/New_York',
    DEFAULT_SCHEDULE: '09:00-17:00/10m',
    WEEKEND_DAYS: [],
  });
  people = await createPeople(server, ['NY-1', 'NY-2', 'NY-3']);
  device = await terminal(server, 'NYC0001');
});
afterAll(async () => {
  await server.close();
});

const utcLines = (employee: string, ...utc: string[]) => linesAt('UTC', people[employee]!.pin, ...utc);

describe('attendance days across daylight-saving changes (America/New_York)', () => {
  test('spring forward: 01:30 EST to 03:30 EDT is one hour of work', async () => {
    await upload(server, device, utcLines('NY-1', '2026-03-08 06:30:00', '2026-03-08 07:30:00'));
    expect(await dayOf(server, 'NY-1', '2026-03-08')).toMatchObject({
      first_in: '2026-03-08T06:30:00.000Z',
      last_out: '2026-03-08T07:30:00.000Z',
      worked_seconds: 3600,
      status: 'present',
    });
  });

  test('fall back: 00:30 EDT to 02:30 EST is three hours of work', async () => {
    await upload(server, device, utcLines('NY-1', '2026-11-01 04:30:00', '2026-11-01 07:30:00'));
    expect(await dayOf(server, 'NY-1', '2026-11-01')).toMatchObject({ worked_seconds: 3 * 3600, punch_count: 2 });
  });

  test('day bounds follow the local midnight on both sides of the change', async () => {
    await upload(
      server,
      device,
      utcLines(
        'NY-2',
        '2026-03-08 04:59:59', // 23:59:59 EST on 7 March
        '2026-03-08 05:00:00', // 00:00 EST on 8 March
        '2026-03-09 03:59:59', // 23:59:59 EDT on 8 March (the day was 23 hours long)
        '2026-03-09 04:00:00', // 00:00 EDT on 9 March
      ),
    );
    expect((await dayOf(server, 'NY-2', '2026-03-07')).punch_count).toBe(1);
    expect(await dayOf(server, 'NY-2', '2026-03-08')).toMatchObject({ punch_count: 2, worked_seconds: 23 * 3600 - 1 });
    expect((await dayOf(server, 'NY-2', '2026-03-09')).punch_count).toBe(1);
    await upload(server, device, utcLines('NY-2', '2026-11-01 04:00:00', '2026-11-02 04:59:59'));
    expect(await dayOf(server, 'NY-2', '2026-11-01')).toMatchObject({ punch_count: 2, worked_seconds: 25 * 3600 - 1 });
  });

  test('the schedule is local: 09:00 is 14:00Z in winter and 13:00Z in summer', async () => {
    // Friday 6 March (EST): 13:30Z is 08:30 local, on time; Monday 9 March (EDT): 13:15Z is 09:15, late.
    await upload(server, device, utcLines('NY-3', '2026-03-06 13:30:00', '2026-03-06 22:30:00', '2026-03-09 13:15:00', '2026-03-09 21:00:00'));
    // On time, and half an hour after the end (17:30 EST).
    expect((await dayOf(server, 'NY-3', '2026-03-06')).flags).toEqual(['overtime']);
    expect((await dayOf(server, 'NY-3', '2026-03-09')).flags).toEqual(['late']);
    // 21:45Z would have been 16:45 EST last week; on 10 March 20:45Z is 16:45 EDT: an early leave.
    await upload(server, device, utcLines('NY-3', '2026-03-10 13:00:00', '2026-03-10 20:45:00'));
    expect((await dayOf(server, 'NY-3', '2026-03-10')).flags).toEqual(['early_leave']);
  });
});
