/**
 * A punch dated by a terminal clock that started over (a flat clock battery: 2000-01-01 at power
 * up) is years past RETENTION_PUNCHES_DAYS the moment it arrives. Retention keeps it, and the day
 * it makes for HR to review, as long as a punch received at the same moment, through the real
 * ADMS endpoint and the real purge job; ordinary old punches go as before.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { attendanceDays, punches } from '../../../src/app/schema';
import { createPeople, type Person } from '../../support/attendance';
import { startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, postAttlog, punchLines } from '../../support/punch-feed';
import { deviceLog } from '../../support/terminals';

const DAY = 86_400_000;
let now = Date.parse('2026-05-10T09:00:00Z');
let server: TestServer;
let person: Person;

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC', RETENTION_PUNCHES_DAYS: 30 }, { clock: { now: () => now } });
  person = (await createPeople(server, ['R1']))['R1']!;
  await approvedDevice(server, 'RESET001');
});
afterAll(async () => {
  await server.close();
});

const punchesOf = async () =>
  (await server.fpa.db.orm.select({ local: punches.localTime, flags: punches.flags }).from(punches).where(eq(punches.enrolleeId, person.id))).map((p) =>
    `${p.local} ${p.flags.join(',')}`.trim(),
  );
const datesOf = async () =>
  (await server.fpa.db.orm.select({ date: attendanceDays.date }).from(attendanceDays).where(eq(attendanceDays.enrolleeId, person.id)))
    .map((d) => d.date)
    .sort();
const purge = async () => {
  const run = await server.admin.post('/jobs/purge-retention/run/');
  expect(run.status).toBe(200);
};

describe('punches of a clock that started over, and retention', () => {
  test('kept, with their day, while a punch received with them would be; then gone like it', async () => {
    // The battery went flat: the terminal dates a morning's punch 2000-01-01, next to a real one.
    const [reset] = punchLines(person.pin, 1, Date.UTC(2000, 0, 1, 0, 3, 12));
    const [real] = punchLines(person.pin, 1, Date.UTC(2026, 4, 10, 8, 0, 0));
    expect((await postAttlog(server, 'RESET001', [reset!, real!])).status).toBe(200);
    await server.admin.get(`/attendance-days/?employee=${person.employee}`);
    expect(await punchesOf()).toEqual(['2000-01-01 00:03:12 clock_reset', '2026-05-10 08:00:00']);
    expect(await datesOf()).toEqual(['2000-01-01', '2026-05-10']);

    // Twenty days later: both are within thirty days of their arrival. Before, the reset one
    // (26 years old by its date) and its day were gone at the first purge, before HR saw them.
    now += 20 * DAY;
    await purge();
    expect(await punchesOf()).toEqual(['2000-01-01 00:03:12 clock_reset', '2026-05-10 08:00:00']);
    expect(await datesOf()).toEqual(['2000-01-01', '2026-05-10']);
    const day = (await server.admin.get(`/attendance-days/?employee=${person.employee}&from=2000-01-01&to=2000-01-01`)).body.results[0];
    expect(day.flags).toContain('clock_reset');

    // Past thirty days since they came: both go, the reset day with its punch.
    now += 11 * DAY;
    await purge();
    expect(await punchesOf()).toEqual([]);
    expect(await datesOf()).toEqual([]);
  });

  test('an upload’s punch older than the horizon is acknowledged, not stored, and said in the terminal’s log; the lines beside it are stored', async () => {
    // A terminal back after two months away: one punch of its backlog past the thirty days, one within.
    const [old] = punchLines(person.pin, 1, now - 45 * DAY);
    const [recent] = punchLines(person.pin, 1, now - 2 * DAY);
    const answer = await postAttlog(server, 'RESET001', [old!, recent!]);
    expect(answer).toEqual({ status: 200, text: 'OK:2' });
    expect(await punchesOf()).toEqual([recent!.localTime]);
    expect((await deviceLog(server.fpa, 'RESET001', 'punches_past_retention')).map((e) => ({ message: e.message, details: e.details }))).toEqual([
      {
        message: 'ATTLOG: 1 punch older than RETENTION_PUNCHES_DAYS (30 days) acknowledged and not stored: the retention purge keeps nothing older',
        details: {
          table: 'ATTLOG',
          count: 1,
          oldest: new Date(old!.punchedAt).toISOString(),
          newest: new Date(old!.punchedAt).toISOString(),
          retention_days: 30,
        },
      },
    ]);
  });
});
