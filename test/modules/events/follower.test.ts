/**
 * A read's catch-up with the event log (src/modules/events/follower.ts `catchUp`): it applies the
 * events recorded when it was asked, and stops there. Under a steady stream of uploads it must
 * not chase the head for as long as the stream lasts, and it leaves the event loop a turn between
 * its steps, so the uploads go on meanwhile. A pay period's lock applies what came in after it;
 * a recompute of many people leaves a turn between its groups too.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { STEP_PERSON_DAYS } from '../../../src/modules/calendar/steps';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { createPeople, linesAt, type Person, terminal, upload } from '../../support/attendance';
import { startTestServer, type TestServer } from '../../support/harness';

const ZONE = 'UTC';
let server: TestServer;
let device: DeviceRow;
let person: Person;

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE });
  person = (await createPeople(server, ['F-1']))['F-1']!;
  device = await terminal(server, 'FOLLOW001');
});
afterAll(async () => {
  await server.close();
});

/** Counts the server's write transactions as each commits, until `stop`. */
function countWrites(): { readonly count: number; stop(): void } {
  const db = server.fpa.db;
  const write = db.write;
  let count = 0;
  db.write = (work, options) =>
    write(work, options).then((result) => {
      count++;
      return result;
    });
  return {
    get count() {
      return count;
    },
    stop: () => {
      db.write = write;
    },
  };
}

/** The position the attendance follower has reached, and the log's head. */
async function positions(): Promise<{ follower: number; head: number }> {
  const rs = await server.fpa.db.client.execute(
    "select (select position from fpa_log_followers where name = 'attendance') as follower, (select max(sequence) from fpa_events) as head",
  );
  return { follower: Number(rs.rows[0]!.follower ?? 0), head: Number(rs.rows[0]!.head ?? 0) };
}

describe('a read catching up with the log', () => {
  test('stops at the head as it was when asked, while a terminal keeps uploading', async () => {
    await upload(server, device, linesAt(ZONE, person.pin, '2026-03-02 08:00:00'));
    const headWhenAsked = (await positions()).head;
    let caughtUp = false;
    const catchUp = server.fpa.service.attendance.follower.catchUp().then(() => {
      caughtUp = true;
    });
    // A terminal uploading one punch after another, a minute apart, until the read has caught
    // up (or 200 uploads: it chased the head of a stream that never ends).
    let uploads = 0;
    while (!caughtUp && uploads < 200) {
      uploads++;
      const minute = String(uploads % 60).padStart(2, '0');
      const hour = String(9 + Math.floor(uploads / 60)).padStart(2, '0');
      await upload(server, device, linesAt(ZONE, person.pin, `2026-03-02 ${hour}:${minute}:00`));
    }
    await catchUp;
    expect(caughtUp).toBe(true);
    expect(uploads).toBeLessThan(200);
    // It applied what was there when asked.
    expect((await positions()).follower).toBeGreaterThanOrEqual(headWhenAsked);
  });

  test('a pay period’s lock applies, in its own transaction, what came in after its catch-up', async () => {
    const attendance = server.fpa.service.attendance;
    const period = await server.admin.post('/pay-periods/', { from: '2026-04-06', to: '2026-04-06' });
    expect(period.status).toBe(201);
    await attendance.follower.catchUp();
    // Stored between the lock's catch-up and its transaction (uploads take turns with a
    // catch-up), and not applied by anyone before the lock.
    await upload(server, device, linesAt(ZONE, person.pin, '2026-04-06 08:00:00'));
    expect((await positions()).follower).toBeLessThan((await positions()).head);
    await attendance.periods.lock(period.body.id, 'admin@example.com', (w) => attendance.follower.applyAllIn(w));
    // The punch counts on the locked date, and the follower is past it.
    const day = await server.admin.get(`/attendance-days/?employee=${person.employee}&from=2026-04-06&to=2026-04-06`);
    expect(day.body.results).toEqual([expect.objectContaining({ date: '2026-04-06', punch_count: 1 })]);
  });
});

describe('a recompute of many people', () => {
  test('leaves the event loop a turn between its groups of 100', async () => {
    const many = await createPeople(
      server,
      Array.from({ length: 120 }, (_, i) => `R-${i}`),
    );
    await upload(
      server,
      device,
      Object.values(many).flatMap((p) => linesAt(ZONE, p.pin, '2026-05-04 08:00:00')),
    );
    await server.fpa.service.attendance.follower.catchUp();
    // The recompute's transactions, counted as each commits, at each turn of the loop while it runs.
    const writes = countWrites();
    const seen: number[] = [];
    let running = true;
    const sample = () => {
      seen.push(writes.count);
      if (running) setImmediate(sample);
    };
    try {
      setImmediate(sample);
      const { recomputed } = await server.fpa.service.attendance.recompute({ from: '2026-05-04', to: '2026-05-04' });
      expect(recomputed).toBeGreaterThanOrEqual(120);
    } finally {
      running = false;
      writes.stop();
    }
    // Two groups or more: some turn came after the first group's write and before the last.
    expect(writes.count).toBeGreaterThanOrEqual(2);
    expect(seen.some((n) => n > 0 && n < writes.count)).toBe(true);
  });
});

describe('a calendar change over many people and dates', () => {
  test('is applied in steps of bounded size, each its own transaction, and every day follows it', async () => {
    // 60 people of an area, each punching on the first and the last Wednesday of 15 weeks: the
    // change below touches 60 people × 101 dates, more than one step recomputes.
    expect((await server.admin.post('/areas/', { name: 'plant' })).status).toBe(201);
    const pins: string[] = [];
    for (let i = 0; i < 60; i++) {
      expect((await server.admin.post('/employees/', { id: `P-${i}`, name: `Plant ${i}` })).status).toBe(201);
      const r = await server.admin.post('/enrollees/', { employee: `P-${i}`, areas: ['plant'] });
      expect(r.status).toBe(201);
      pins.push(r.body.device_pin);
    }
    expect(60 * 101).toBeGreaterThan(STEP_PERSON_DAYS);
    const plant = await terminal(server, 'PLANT001', ['plant']);
    const [first, last] = ['2027-01-06', '2027-04-14'];
    await upload(
      server,
      plant,
      pins.flatMap((pin) => linesAt(ZONE, pin, `${first} 08:00:00`, `${first} 16:00:00`, `${last} 08:00:00`, `${last} 16:00:00`)),
    );
    const attendance = server.fpa.service.attendance;
    await attendance.follower.catchUp();
    const flagged = async () => {
      const days = await server.admin.get(`/attendance-days/?from=${first}&to=${last}&limit=500`);
      return (days.body.results as { enrollee: string; date: string; flags: string[] }[]).filter((d) => d.flags.includes('worked_on_off_day')).length;
    };
    expect(await flagged()).toBe(0);

    const db = server.fpa.db;
    const writes = countWrites();
    const stoppedIn: (string | null)[] = [];
    try {
      // Wednesdays are the plant's weekend from the first date on: every day above is a day off worked.
      expect((await server.admin.post('/weekends/', { area: 'plant', days: [0, 3, 6], from: first })).status).toBe(201);
      const before = writes.count;
      const done = attendance.follower.catchUp();
      // Between the steps, the follower's row says where the last one stopped.
      let running = true;
      void done.finally(() => {
        running = false;
      });
      while (running) {
        const row = await db.client.execute("select resume from fpa_log_followers where name = 'attendance'");
        stoppedIn.push((row.rows[0]?.resume as string | null) ?? null);
        await new Promise((resolve) => setImmediate(resolve));
      }
      await done;
      expect(writes.count - before).toBeGreaterThanOrEqual(2);
    } finally {
      writes.stop();
    }
    expect(stoppedIn.some((r) => r !== null && JSON.parse(r).state.after !== '')).toBe(true);
    // Once through, nothing is left to resume, and every day of the plant's people followed.
    const row = await db.client.execute("select resume from fpa_log_followers where name = 'attendance'");
    expect(row.rows[0]?.resume ?? null).toBeNull();
    expect(await flagged()).toBe(120);
  });
});
