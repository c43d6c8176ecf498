/**
 * `while_on_leave` follows the leave, not only the punch (src/modules/anomalies/on-leave.ts):
 * through the real server, a terminal speaking ADMS. A leave recorded after the punch raises the
 * anomaly (flag and `anomaly_detected`); a leave removed takes it away (row and flag,
 * `anomaly_removed`); a leave on a date without punches changes nothing; the host's own leave
 * (a calendar provider and `calendarChanged`) is followed the same way, a changed kind too; a
 * locked pay period does not stop it (attendance stays as it was); and a change over many people
 * and dates is applied in steps of bounded size.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ON_LEAVE_STEP_PERSON_DAYS } from '../../src/modules/anomalies/on-leave';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { createPeople, linesAt, terminal, upload } from '../support/attendance';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let server: TestServer;
let front: SimulatedTerminal;
const people: Record<string, { id: string; device_pin: string }> = {};
/** The host's own leave, as its calendar provider answers it. */
const hostLeaves: { enrollee: string; from: string; to: string; kind: string }[] = [];

interface Anomaly {
  id: string;
  kind: string;
  employee: string;
  punch: string;
  at: string;
  date: string;
  details: Record<string, unknown>;
}
interface Logged {
  sequence: number;
  type: string;
  data: { anomaly: Anomaly };
}

/** After every date punched below: none is dated after it arrived (that punch would be flagged `clock_ahead`). */
const NOW = Date.parse('2026-12-01T12:00:00Z');

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC' }, { clock: { now: () => NOW } });
  server.fpa.service.addCalendarProvider(({ enrollees, from, to }) => ({
    leaves: hostLeaves.filter((l) => enrollees.includes(l.enrollee) && l.from <= to && from <= l.to),
  }));
  for (const key of ['bob', 'cy']) {
    expect((await server.admin.post('/employees/', { id: `E-${key}`, name: key })).status).toBe(201);
    const created = await server.admin.post('/enrollees/', { employee: `E-${key}`, areas: ['hq'] });
    expect(created.status).toBe(201);
    people[key] = created.body;
  }
  front = new SimulatedTerminal({ url: server.url, sn: 'FRONT001' });
  await front.handshake();
  await front.postOptions();
  expect((await server.admin.post(`/devices/${front.sn}/approve/`, { areas: ['hq'] })).status).toBe(200);
  await drain(front);
});
afterAll(async () => {
  await server.close();
});

const pin = (who: string) => people[who]!.device_pin;

async function anomalies(from: string, to: string, employee = 'E-bob'): Promise<Anomaly[]> {
  const res = await server.admin.get(`/anomalies/?from=${from}&to=${to}&employee=${employee}`);
  expect(res.status).toBe(200);
  return res.body.results;
}

async function punchesOf(employee: string): Promise<{ id: string; punched_at: string; flags: string[] }[]> {
  const res = await server.admin.get(`/punches/?employee=${employee}&limit=500`);
  expect(res.status).toBe(200);
  return res.body.results;
}

async function events(type: string): Promise<Logged[]> {
  const res = await server.admin.get(`/events/?type=${type}&limit=1000`);
  expect(res.status).toBe(200);
  return res.body.results;
}

async function punchAt(who: string, localTime: string): Promise<string> {
  expect((await front.punch([{ pin: pin(who), localTime, verifyType: 1 }])).body).toBe('OK:1');
  const stored = (await punchesOf(`E-${who}`)).find((p) => p.punched_at === `${localTime.replace(' ', 'T')}.000Z`);
  expect(stored).toBeDefined();
  return stored!.id;
}

async function leave(who: string, from: string, to: string, kind: string): Promise<string> {
  const created = await server.admin.post('/leaves/', { enrollee: people[who]!.id, from, to, kind });
  expect(created.status).toBe(201);
  return created.body.id;
}

describe('while_on_leave follows the leave', () => {
  test('an ordinary day: a leave on a date without punches, recorded and removed, changes nothing', async () => {
    await punchAt('bob', '2026-11-24 08:00:00');
    await punchAt('bob', '2026-11-24 17:00:00');
    const before = await punchesOf('E-bob');
    const id = await leave('bob', '2026-11-25', '2026-11-25', 'annual');
    expect(await anomalies('2026-11-01', '2026-11-30')).toEqual([]);
    expect((await server.admin.delete(`/leaves/${id}/`)).status).toBe(204);
    expect(await anomalies('2026-11-01', '2026-11-30')).toEqual([]);
    expect(await punchesOf('E-bob')).toEqual(before);
    expect(before.every((p) => p.flags.length === 0)).toBe(true);
    expect(await events('anomaly_detected,anomaly_removed')).toEqual([]);
  });

  test('a leave recorded after the punch raises the anomaly: kept, flagged, announced', async () => {
    const punch = await punchAt('bob', '2026-11-28 09:00:00');
    const other = await punchAt('bob', '2026-11-29 09:00:00');
    expect(await anomalies('2026-11-28', '2026-11-29')).toEqual([]);

    await leave('bob', '2026-11-28', '2026-11-28', 'sick');
    const found = await anomalies('2026-11-01', '2026-11-30');
    expect(found.map((a) => ({ kind: a.kind, punch: a.punch, date: a.date, details: a.details }))).toEqual([
      { kind: 'while_on_leave', punch, date: '2026-11-28', details: { leave: 'sick' } },
    ]);
    const flags = new Map((await punchesOf('E-bob')).map((p) => [p.id, p.flags]));
    expect(flags.get(punch)).toEqual(['while_on_leave']);
    expect(flags.get(other)).toEqual([]);
    expect((await events('anomaly_detected')).map((e) => e.data.anomaly)).toEqual(found);
  });

  test('a leave removed takes its anomaly away: row and flag, announced as anomaly_removed', async () => {
    const id = await leave('bob', '2026-11-27', '2026-11-27', 'vacation');
    const punch = await punchAt('bob', '2026-11-27 09:00:00');
    const [onLeave] = await anomalies('2026-11-27', '2026-11-27');
    expect(onLeave).toMatchObject({ kind: 'while_on_leave', punch, details: { leave: 'vacation' } });
    expect((await punchesOf('E-bob')).find((p) => p.id === punch)!.flags).toEqual(['while_on_leave']);

    expect((await server.admin.delete(`/leaves/${id}/`)).status).toBe(204);
    expect(await anomalies('2026-11-27', '2026-11-27')).toEqual([]);
    expect((await punchesOf('E-bob')).find((p) => p.id === punch)!.flags).toEqual([]);
    expect((await events('anomaly_removed')).map((e) => e.data.anomaly)).toEqual([onLeave!]);
    // The 28th's leave is still there, and so is its anomaly.
    expect((await anomalies('2026-11-01', '2026-11-30')).map((a) => a.date)).toEqual(['2026-11-28']);
  });

  test("the host's leave is followed when it says so (calendarChanged); a changed kind replaces the anomaly", async () => {
    const punch = await punchAt('cy', '2026-11-23 10:00:00');
    hostLeaves.push({ enrollee: people.cy!.id, from: '2026-11-23', to: '2026-11-23', kind: 'course' });
    await server.fpa.service.calendarChanged({ from: '2026-11-23', to: '2026-11-23' }, [people.cy!.id]);
    const [course] = await anomalies('2026-11-23', '2026-11-23', 'E-cy');
    expect(course).toMatchObject({ kind: 'while_on_leave', punch, details: { leave: 'course' } });

    hostLeaves[0]!.kind = 'sick';
    // Said of everyone: its people are those with punches on those dates.
    await server.fpa.service.calendarChanged({ from: '2026-11-20', to: null });
    const [sick] = await anomalies('2026-11-23', '2026-11-23', 'E-cy');
    expect(sick).toMatchObject({ kind: 'while_on_leave', punch, details: { leave: 'sick' } });
    expect(sick!.id).not.toBe(course!.id);
    expect((await events('anomaly_removed')).map((e) => e.data.anomaly.id)).toContain(course!.id);
    expect((await punchesOf('E-cy')).find((p) => p.id === punch)!.flags).toEqual(['while_on_leave']);
    // Bob's anomalies were looked at too and stay as they were.
    expect((await anomalies('2026-11-01', '2026-11-30')).map((a) => a.date)).toEqual(['2026-11-28']);

    hostLeaves.length = 0;
    await server.fpa.service.calendarChanged({ from: '2026-11-23', to: '2026-11-23' }, [people.cy!.id]);
    expect(await anomalies('2026-11-01', '2026-11-30', 'E-cy')).toEqual([]);
    expect((await punchesOf('E-cy')).find((p) => p.id === punch)!.flags).toEqual([]);
  });

  test('a locked pay period: the anomaly still follows the leave; the day does not change', async () => {
    const arrived = await punchAt('cy', '2026-10-05 09:00:00');
    const left = await punchAt('cy', '2026-10-05 17:00:00');
    const day = async () => (await server.admin.get('/attendance-days/?employee=E-cy&from=2026-10-05&to=2026-10-05')).body.results[0];
    const before = await day();
    expect(before).toMatchObject({ status: 'present', flags: [] });
    const period = await server.admin.post('/pay-periods/', { from: '2026-10-01', to: '2026-10-31' });
    expect((await server.admin.post(`/pay-periods/${period.body.id}/lock/`)).status).toBe(200);

    await leave('cy', '2026-10-05', '2026-10-05', 'sick');
    // Newest first: both punches of the day.
    expect((await anomalies('2026-10-01', '2026-10-31', 'E-cy')).map((a) => ({ punch: a.punch, details: a.details }))).toEqual([
      { punch: left, details: { leave: 'sick' } },
      { punch: arrived, details: { leave: 'sick' } },
    ]);
    expect(await day()).toEqual(before);
  });
});

describe('a leave over many people and dates', () => {
  test('is followed in steps of bounded size, each its own transaction', async () => {
    const own = await startTestServer({ TIME_ZONE: 'UTC' });
    try {
      // 60 people punching on two dates 101 days apart; the host puts everyone on leave for all of them.
      const ids = Array.from({ length: 60 }, (_, i) => `L-${String(i).padStart(2, '0')}`);
      const crowd = await createPeople(own, ids);
      const device = await terminal(own, 'CROWD001');
      const [first, last] = ['2027-01-06', '2027-04-16'];
      await upload(
        own,
        device,
        ids.flatMap((e) => linesAt('UTC', crowd[e]!.pin, `${first} 08:00:00`, `${last} 08:00:00`)),
      );
      expect(60 * 101).toBeGreaterThan(ON_LEAVE_STEP_PERSON_DAYS);
      own.fpa.service.addCalendarProvider(({ enrollees, from, to }) => ({
        leaves: enrollees.map((enrollee) => ({ enrollee, from: later(from, first), to: earlier(to, last), kind: 'sabbatical' })),
      }));
      await own.fpa.service.calendarChanged({ from: first, to: last });

      // The list catches its follower up first; meanwhile its row says where the last step stopped.
      const stoppedIn: (string | null)[] = [];
      const listed = own.admin.get(`/anomalies/?from=${first}&to=${last}&limit=500`);
      let running = true;
      void listed.finally(() => {
        running = false;
      });
      while (running) {
        const row = await own.fpa.db.client.execute("select resume from fpa_log_followers where name = 'anomalies'");
        stoppedIn.push((row.rows[0]?.resume as string | null) ?? null);
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect((await listed).body.results.length).toBe(120);
      expect(stoppedIn.some((r) => r !== null && JSON.parse(r).state.after !== '')).toBe(true);
      const row = await own.fpa.db.client.execute("select resume from fpa_log_followers where name = 'anomalies'");
      expect(row.rows[0]?.resume ?? null).toBeNull();
    } finally {
      await own.close();
    }
  });
});

const later = (a: string, b: string) => (a > b ? a : b);
const earlier = (a: string, b: string) => (a < b ? a : b);
