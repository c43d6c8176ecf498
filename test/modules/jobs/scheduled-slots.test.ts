/**
 * A scheduled occurrence (a job and the slot its schedule fires for) runs once across every
 * instance sharing the database (README "Scale"). Each instance's schedule fires for the same
 * slot; the lease alone only kept the two runs apart: once the first released it, the second
 * instance's tick for the same minute took it and ran the job again (`expire-commands @18:50
 * A:succeeded B:succeeded`). Two instances on one file and one test clock tick by hand, as their
 * schedules would: one run per slot, whichever instance ticks first; runs on request still run.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { jobLeases } from '../../../src/app/schema';
import type { JobDefinition } from '../../../src/modules/jobs/runner';
import { runningClock } from '../../support/clock';
import { startTestServer, type TestServer } from '../../support/harness';

// 18:50:00.300 (UTC) on a day far from now; the schedule below fires at second 0 of every minute.
const clock = runningClock(Date.UTC(2031, 4, 6, 18, 50, 0, 300));
let first: TestServer;
let second: TestServer;
const runs: { instance: string; at: number }[] = [];

function minutely(instance: string): JobDefinition {
  return {
    name: 'minutely',
    schedule: '0 * * * * *',
    description: 'test job',
    async run() {
      runs.push({ instance, at: clock.now() });
      return { instance };
    },
  };
}

const leaseOf = async () => (await first.fpa.db.orm.select().from(jobLeases).where(eq(jobLeases.name, 'minutely')))[0];

beforeAll(async () => {
  first = await startTestServer({ TASK_BACKEND: 'cron' }, { clock, startJobs: false });
  second = await startTestServer({ TASK_BACKEND: 'cron' }, { dir: first.dir, db: first.fpa.db, clock, startJobs: false });
  first.fpa.jobs.register(minutely('first'));
  second.fpa.jobs.register(minutely('second'));
});
afterAll(async () => {
  await second.close();
  await first.close();
});

describe('a scheduled slot runs once across instances', () => {
  test('the second instance’s tick for a slot the first already ran is skipped; the next slot runs once', async () => {
    expect((await first.fpa.jobs.runScheduled('minutely')).status).toBe('succeeded');
    // The same minute, once the first run has ended and released its lease.
    clock.advance(150);
    const late = await second.fpa.jobs.runScheduled('minutely');
    expect(late).toMatchObject({ status: 'skipped', result: { reason: 'already run for its slot (2031-05-06T18:50:00.000Z)' } });
    expect(runs.map((r) => r.instance)).toEqual(['first']);

    // 18:51: whichever ticks first runs it, the other skips it.
    clock.advance(60_000);
    expect((await second.fpa.jobs.runScheduled('minutely')).status).toBe('succeeded');
    expect((await first.fpa.jobs.runScheduled('minutely')).status).toBe('skipped');
    expect(runs.map((r) => r.instance)).toEqual(['first', 'second']);
    expect(await leaseOf()).toMatchObject({ holder: null, lastSlot: Date.UTC(2031, 4, 6, 18, 51, 0), lastHolder: second.fpa.service.runtime.instanceId });
  });

  test('both instances ticking a slot at once: one run', async () => {
    clock.advance(60_000);
    const outcomes = await Promise.all([first.fpa.jobs.runScheduled('minutely'), second.fpa.jobs.runScheduled('minutely')]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['skipped', 'succeeded']);
    expect(runs).toHaveLength(3);
  });

  test('a run on request still runs within a slot already run, and does not take the next slot', async () => {
    expect((await first.fpa.jobs.run('minutely', { wait: true })).status).toBe('succeeded');
    expect((await second.fpa.jobs.run('minutely', { wait: true })).status).toBe('succeeded');
    expect(runs).toHaveLength(5);
    clock.advance(60_000);
    expect((await first.fpa.jobs.runScheduled('minutely')).status).toBe('succeeded');
    expect(runs).toHaveLength(6);
  });

  test('a tick late by seconds runs for the slot it was scheduled for: taken already, it is skipped', async () => {
    clock.advance(4_000);
    expect((await second.fpa.jobs.runScheduled('minutely')).status).toBe('skipped');
    expect(runs).toHaveLength(6);
  });
});
