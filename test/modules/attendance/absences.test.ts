import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { createPeople, dayOf, linesAt, type Person, terminal, upload } from '../../support/attendance';
import { startTestServer, type TestServer } from '../../support/harness';

const ZONE = 'Asia/Kolkata';
let now = Date.parse('2026-03-01T00:00:00Z');
let server: TestServer;
let device: DeviceRow;
let people: Record<string, Person>;

const runAbsences = async (date?: string, range?: { from: string; to: string }) => {
  const res = await server.admin.post('/jobs/generate-absences/run/', date ? { params: { date } } : range ? { params: range } : {});
  expect(res.status).toBe(200);
  return res.body;
};

/** The days announced by `attendance_day_changed` after the event sequence `after`, and the newest sequence. */
const announcedAfter = async (after: number) => {
  const res = await server.admin.get(`/events/?type=attendance_day_changed&after=${after}&limit=1000`);
  expect(res.status).toBe(200);
  return { days: (res.body.results as { data: { day: { employee: string; date: string } } }[]).map((e) => e.data.day), last: res.body.last_sequence as number };
};

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE, HOLIDAYS: '2026-03-11' }, { clock: { now: () => now } });
  people = await createPeople(server, ['A', 'B', 'C', 'E']);
  const deactivated = await server.admin.patch(`/enrollees/${people.E!.id}/`, { active: false });
  expect(deactivated.body.status).toBe('deactivated');
  // D joins on 10 March: never absent before that.
  now = Date.parse('2026-03-10T12:00:00Z');
  Object.assign(people, await createPeople(server, ['D']));
  device = await terminal(server, 'ABS0001');
  await upload(server, device, linesAt(ZONE, people.A!.pin, '2026-03-09 09:00:00', '2026-03-09 17:00:00'));
});
afterAll(async () => {
  await server.close();
});

describe('generate-absences', () => {
  test('writes absent days for active enrollees without punches on a working day, and only those', async () => {
    // A's punches announced her day already (the follower, caught up here rather than by the run).
    await server.fpa.service.attendance.follower.catchUp();
    const { last } = await announcedAfter(0);
    const run = await runAbsences('2026-03-09');
    expect(run.status).toBe('succeeded');
    expect(run.result).toEqual({ from: '2026-03-09', to: '2026-03-09', absent: 2, non_working_day: 0, holiday: 0, on_leave: 0, unchanged: 1, locked: 0 });
    expect(run.summary).toBe('generate-absences succeeded: from=2026-03-09 to=2026-03-09 absent=2 non_working_day=0 holiday=0 on_leave=0 unchanged=1 locked=0');
    expect((await dayOf(server, 'A', '2026-03-09')).status).toBe('present');
    for (const who of ['B', 'C']) {
      expect(await dayOf(server, who, '2026-03-09')).toMatchObject({
        status: 'absent',
        first_in: null,
        last_out: null,
        worked_seconds: 0,
        punch_count: 0,
        flags: [],
        // Without DEFAULT_SCHEDULE nothing is expected of the day.
        schedule: null,
        expected_seconds: 0,
      });
    }
    expect(await dayOf(server, 'D', '2026-03-09')).toBeNull();
    expect(await dayOf(server, 'E', '2026-03-09')).toBeNull();
    // Each day written is announced as the API lists it; A's day (punched) was there already.
    const announced = await announcedAfter(last);
    expect(announced.days.map((d) => `${d.employee} ${d.date}`).sort()).toEqual(['B 2026-03-09', 'C 2026-03-09']);
    expect(announced.days.find((d) => d.employee === 'B')).toEqual(await dayOf(server, 'B', '2026-03-09'));
  });

  test('is idempotent: a second run changes nothing and announces nothing', async () => {
    const before = await server.admin.get('/attendance-days/?limit=1000');
    const { last } = await announcedAfter(0);
    const run = await runAbsences('2026-03-09');
    expect(run.result).toEqual({ from: '2026-03-09', to: '2026-03-09', absent: 0, non_working_day: 0, holiday: 0, on_leave: 0, unchanged: 3, locked: 0 });
    expect((await server.admin.get('/attendance-days/?limit=1000')).body).toEqual(before.body);
    expect((await announcedAfter(last)).days).toEqual([]);
  });

  test('punches uploaded late turn an absence into a worked day', async () => {
    await upload(server, device, linesAt(ZONE, people.B!.pin, '2026-03-09 10:00:00'));
    expect(await dayOf(server, 'B', '2026-03-09')).toMatchObject({ status: 'incomplete', punch_count: 1, flags: [] });
  });

  test('without a date it takes yesterday in the attendance zone', async () => {
    // 20:00Z on 10 March is already 01:30 on 11 March in Kolkata: yesterday is 10 March.
    now = Date.parse('2026-03-10T20:00:00Z');
    const run = await runAbsences();
    expect(run.result).toMatchObject({ from: '2026-03-10', to: '2026-03-10', absent: 4 });
    expect(await server.fpa.jobs.run('generate-absences')).toMatchObject({ status: 'succeeded', result: { from: '2026-03-10', absent: 0, unchanged: 4 } });
  });

  test('weekends get non_working_day and holidays holiday, never absent', async () => {
    now = Date.parse('2026-03-16T00:00:00Z');
    const saturday = await runAbsences('2026-03-14');
    expect(saturday.result).toMatchObject({ absent: 0, non_working_day: 4, holiday: 0 });
    const holiday = await runAbsences('2026-03-11');
    expect(holiday.result).toMatchObject({ absent: 0, non_working_day: 0, holiday: 4 });
    expect(await dayOf(server, 'D', '2026-03-11')).toMatchObject({ status: 'holiday', punch_count: 0 });
    const listed = await server.admin.get('/attendance-days/?status=absent&to=2026-03-09');
    expect(listed.body.results.map((d: { employee: string }) => d.employee)).toEqual(['C']);
  });

  test('someone enrolled late counts from their first punch, or from a schedule of their own, not from the enrolment', async () => {
    // Going live mid-month: enrolled on the 16th, one with a backlog from the 12th, one given a schedule from the 2nd.
    Object.assign(people, await createPeople(server, ['F', 'G', 'H']));
    await upload(server, device, linesAt(ZONE, people.F!.pin, '2026-03-12 09:00:00', '2026-03-12 17:00:00'));
    expect((await server.admin.post('/work-schedules/', { name: 'office', start: '09:00', end: '17:00' })).status).toBe(201);
    expect((await server.admin.post('/shift-assignments/', { schedule: 'office', enrollee: people.G!.id, from: '2026-03-02' })).status).toBe(201);
    const run = await runAbsences();
    expect(run.status).toBe('succeeded');
    const ranged = await server.admin.post('/jobs/generate-absences/run/', { params: { from: '2026-03-02', to: '2026-03-13' } });
    expect(ranged.body.status).toBe('succeeded');
    expect(await dayOf(server, 'F', '2026-03-11')).toBeNull();
    expect((await dayOf(server, 'F', '2026-03-12')).status).toBe('present');
    expect((await dayOf(server, 'F', '2026-03-13')).status).toBe('absent');
    expect(await dayOf(server, 'G', '2026-03-02')).toMatchObject({ status: 'absent', schedule: 'office' });
    expect((await dayOf(server, 'G', '2026-03-07')).status).toBe('non_working_day');
    // Enrolled on the 16th with nothing before: nothing before either.
    expect(await dayOf(server, 'H', '2026-03-13')).toBeNull();
  });

  test('a malformed or future date, a backward range or a parameter the job does not take is refused (400) and never recorded as a run', async () => {
    const last = async () =>
      ((await server.admin.get('/jobs/')).body.results as { name: string; last_finished_at: string | null }[]).find((j) => j.name === 'generate-absences');
    const before = await last();
    const refused = async (name: string, params: Record<string, string>) => {
      const res = await server.admin.post(`/jobs/${name}/run/`, { params });
      expect({ params, status: res.status, code: res.body.error?.code }).toEqual({ params, status: 400, code: 'validation_error' });
      return String(res.body.error.message);
    };
    expect(await refused('generate-absences', { date: '2026-02-30' })).toBe('date must be a date (YYYY-MM-DD)');
    expect(await refused('generate-absences', { date: '2026-03-17' })).toStartWith('absences cannot be generated for a date not over yet: 2026-03-17');
    // Today is not over either (05:30 in Kolkata): its shifts are still to be worked.
    expect(await refused('generate-absences', { date: '2026-03-16' })).toBe(
      'absences cannot be generated for a date not over yet: 2026-03-16 (today is 2026-03-16)',
    );
    expect(await refused('generate-absences', { from: '2026-03-12', to: '2026-03-16' })).toStartWith(
      'absences cannot be generated for a date not over yet: 2026-03-16',
    );
    expect(await refused('generate-absences', { from: '2026-03-10', to: '2026-03-02' })).toBe('to (2026-03-02) is before from (2026-03-10)');
    expect(await refused('generate-absences', { date: '2026-03-02', from: '2026-03-01' })).toStartWith('date and from/to exclude each other');
    expect(await refused('generate-absences', { day: '2026-03-02' })).toBe('generate-absences has no parameter day (it takes date, from, to)');
    expect(await refused('purge-retention', { date: '2026-03-02' })).toBe('purge-retention has no parameter date (it takes none)');
    expect(await last()).toEqual(before);
  });

  test('dates of a locked pay period are counted apart (`locked`), never as unchanged, and are left as they were locked', async () => {
    const period = await server.admin.post('/pay-periods/', { from: '2026-03-02', to: '2026-03-03' });
    expect(period.status).toBe(201);
    expect((await server.admin.post(`/pay-periods/${period.body.id}/lock/`)).status).toBe(200);
    const { last } = await announcedAfter(0);
    // A, B, C and G (her own schedule from the 2nd) count from the 2nd: two locked dates each,
    // and the 4th, open, had everyone's day already (the run over the 2nd to the 13th above).
    const run = await runAbsences(undefined, { from: '2026-03-02', to: '2026-03-04' });
    expect(run.result).toEqual({ from: '2026-03-02', to: '2026-03-04', absent: 0, non_working_day: 0, holiday: 0, on_leave: 0, unchanged: 4, locked: 8 });
    expect(run.summary).toEndWith('unchanged=4 locked=8');
    expect((await announcedAfter(last)).days).toEqual([]);
  });
});
