/**
 * A machine switched off at night (a shop's PC) never ran the nightly jobs: absences, leave,
 * holidays and days off were never written, and the Today board of those dates said nobody was
 * absent. At start, a catch-up job's slot that no instance ran is run once (across instances, by
 * its claim), and a scheduled absences run covers the nights since the run before it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createPeople, dayOf } from '../support/attendance';
import { startTestServer, type TestServer } from '../support/harness';

let now = Date.parse('2026-03-01T10:00:00Z');
let server: TestServer;
let second: TestServer;

beforeAll(async () => {
  server = await startTestServer({ TASK_BACKEND: 'cron' }, { clock: { now: () => now }, startJobs: false });
  second = await startTestServer({ TASK_BACKEND: 'cron' }, { dir: server.dir, db: server.fpa.db, clock: { now: () => now }, startJobs: false });
  await createPeople(server, ['A', 'B']);
});
afterAll(async () => {
  await second.close();
  await server.close();
});

const statuses = async (date: string) => Promise.all(['A', 'B'].map(async (who) => (await dayOf(server, who, date))?.status ?? null));

describe('nights the machine was off', () => {
  test('the first start runs the night it missed: yesterday’s absences, and the retention purge', async () => {
    // Tuesday 10 March, 08:00: switched on after the night of the 9th.
    now = Date.parse('2026-03-10T08:00:00Z');
    const runs = await server.fpa.jobs.catchUp();
    expect(runs.map((r) => `${r.job} ${r.status}`).sort()).toEqual(['generate-absences succeeded', 'purge-retention succeeded']);
    expect(runs.find((r) => r.job === 'generate-absences')?.result).toMatchObject({ from: '2026-03-09', to: '2026-03-09', absent: 2 });
    expect(await statuses('2026-03-09')).toEqual(['absent', 'absent']);
  });

  test('three nights off: the start covers them all, once however many instances start', async () => {
    now = Date.parse('2026-03-13T07:00:00Z');
    expect(await statuses('2026-03-11')).toEqual([null, null]);
    // Started through the schedules, as `npm start` does: the catch-up runs after the start.
    server.fpa.jobs.start();
    const caughtUp = async () =>
      (await server.fpa.jobs.describe()).filter(
        (j) => ['generate-absences', 'purge-retention'].includes(j.name) && j.last_finished_at === new Date(now).toISOString(),
      ).length === 2;
    for (let i = 0; i < 200 && !(await caughtUp()); i++) await Bun.sleep(50);
    await server.fpa.jobs.stop();
    expect(await statuses('2026-03-10')).toEqual(['absent', 'absent']);
    expect(await statuses('2026-03-11')).toEqual(['absent', 'absent']);
    expect(await statuses('2026-03-12')).toEqual(['absent', 'absent']);
    // The slot of the 13th is claimed: another instance starting runs nothing again.
    expect(await second.fpa.jobs.catchUp()).toEqual([]);
  });

  test('a stopped runner starts no catch-up job, nor a tick’s run', async () => {
    now = Date.parse('2026-03-13T09:00:00Z');
    server.fpa.jobs.start();
    await server.fpa.jobs.stop();
    const tick = await server.fpa.jobs.runScheduled('generate-absences');
    expect(tick).toMatchObject({ status: 'skipped', result: { reason: 'the service is stopping' } });
    expect(await server.fpa.jobs.catchUp()).toEqual([]);
  });

  test('a night the machine was on runs as before, covering the night before it again (a failed run is covered twice)', async () => {
    now = Date.parse('2026-03-14T00:15:00.200Z');
    const run = await second.fpa.jobs.runScheduled('generate-absences');
    expect(run.result).toMatchObject({ from: '2026-03-12', to: '2026-03-13', absent: 2, unchanged: 2 });
    // Run on request, the job still takes its one date.
    const asked = await server.admin.post('/jobs/generate-absences/run/', { params: { date: '2026-03-13' } });
    expect(asked.body.result).toMatchObject({ from: '2026-03-13', to: '2026-03-13', unchanged: 2 });
  });
});
