/**
 * The retention purge in small batches (punches/service.ts `purgeBefore`, batches sized by time, PurgePace, in a
 * transaction) and of days a few people at a time from a cursor (attendance/service.ts
 * `purgeBefore`): exactly the punches before the cutoff go (unattributed ones too, a cutoff
 * inside a day included) and exactly the days before the first kept date.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { attendanceDays, punches } from '../../../src/app/schema';
import { startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, punchLines } from '../../support/punch-feed';

const DAY = 86_400_000;
const START = Date.UTC(2025, 0, 1, 7, 0);
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC', ATTENDANCE_TIME_ZONE: 'UTC' });
});
afterAll(async () => {
  await server.close();
});

describe('retention purge by weeks and people', () => {
  test('exactly the punches before the cutoff and the days before the first kept date go', async () => {
    const device = await approvedDevice(server, 'PURGEB01');
    const pins: string[] = [];
    // More rows than a punch batch and more people than a batch of days.
    for (let i = 0; i < 130; i++) {
      const id = `PB-${i}`;
      expect((await server.admin.post('/employees/', { id, name: `Purge ${i}` })).status).toBe(201);
      pins.push((await server.admin.post('/enrollees/', { employee: id })).body.device_pin);
    }
    // 20 days (three purge steps of a week), two punches a day each, plus a PIN nobody has.
    for (let day = 0; day < 20; day++) {
      const lines = pins.flatMap((pin, i) => punchLines(pin, 2, START + day * DAY + (i % 50) * 120_000));
      lines.push(...punchLines('999999', 3, START + day * DAY + 3_000_000));
      await ingest(server, device, lines);
    }
    await server.fpa.service.attendance.follower.catchUp();
    const all = await server.fpa.db.orm.select({ at: punches.punchedAt }).from(punches);
    expect(all.length).toBe(20 * (130 * 2 + 3));

    // The cutoff inside day 16, between punches of that day.
    const cutoff = START + 16 * DAY + 40 * 120_000 + 30_000;
    const purged = await server.fpa.service.punches.purgeBefore(cutoff);
    const left = await server.fpa.db.orm.select({ at: punches.punchedAt }).from(punches);
    expect(purged).toBe(all.filter((p) => p.at < cutoff).length);
    expect(left.length).toBe(all.length - purged);
    expect(left.every((p) => p.at >= cutoff)).toBe(true);
    expect(await server.fpa.service.punches.purgeBefore(cutoff)).toBe(0);

    const days = async () =>
      (await server.fpa.db.orm.select({ date: attendanceDays.date, n: sql<number>`count(*)` }).from(attendanceDays).groupBy(attendanceDays.date)).map((r) => [
        r.date,
        r.n,
      ]);
    const before = await days();
    expect(before.length).toBe(20);
    const gone = await server.fpa.service.attendance.purgeBefore('2025-01-15');
    expect(gone).toBe(14 * 130);
    expect(await days()).toEqual(before.filter(([date]) => String(date) >= '2025-01-15'));
    expect(await server.fpa.service.attendance.purgeBefore('2025-01-15')).toBe(0);
  });
});
