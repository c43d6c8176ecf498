import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { jobLeases } from '../../../src/app/schema';
import type { JobDefinition } from '../../../src/modules/jobs/runner';
import { createPeople } from '../../support/attendance';
import { startTestServer, type TestServer } from '../../support/harness';

// Two service instances sharing one database (a `file:` database has one writer, so both live
// in this process and share its connection), each with its own job runner and schedules.
let first: TestServer;
let second: TestServer;

interface Span {
  instance: string;
  start: number;
  end: number;
}

/** A job that takes `ms` and records when it ran, so overlaps can be seen. */
function recordingJob(name: string, spans: Span[], instance: string, ms: number, schedule: string | null = null): JobDefinition {
  return {
    name,
    schedule,
    description: 'test job',
    async run() {
      const start = performance.now();
      await Bun.sleep(ms);
      spans.push({ instance, start, end: performance.now() });
      return { instance };
    },
  };
}

function expectNoOverlap(spans: Span[]): void {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.start).toBeGreaterThanOrEqual(sorted[i - 1]!.end);
}

const leaseOf = async (name: string) => (await first.fpa.db.orm.select().from(jobLeases).where(eq(jobLeases.name, name)))[0];
const instanceOf = (server: TestServer) => server.fpa.service.runtime.instanceId;

beforeAll(async () => {
  first = await startTestServer({ TASK_BACKEND: 'cron' }, { startJobs: false });
  second = await startTestServer({ TASK_BACKEND: 'cron' }, { dir: first.dir, db: first.fpa.db, startJobs: false });
  expect(instanceOf(first)).not.toBe(instanceOf(second));
});
afterAll(async () => {
  await second.close();
  await first.close();
});

describe('jobs across two instances sharing one database', () => {
  test('concurrent runs: exactly one instance runs, the other skips', async () => {
    const spans: Span[] = [];
    first.fpa.jobs.register(recordingJob('slow', spans, 'first', 300));
    second.fpa.jobs.register(recordingJob('slow', spans, 'second', 300));
    const [a, b] = await Promise.all([first.fpa.jobs.run('slow'), second.fpa.jobs.run('slow')]);
    expect([a.status, b.status].sort()).toEqual(['skipped', 'succeeded']);
    expect(spans).toHaveLength(1);
    const winner = a.status === 'succeeded' ? first : second;
    const lease = await leaseOf('slow');
    expect(lease).toMatchObject({ holder: null, leaseUntil: null, lastStatus: 'succeeded', lastHolder: instanceOf(winner) });
    expect(lease!.lastResult).toEqual({ instance: spans[0]!.instance });
  });

  test('manual runs that wait run one after the other, never together', async () => {
    const spans: Span[] = [];
    first.fpa.jobs.register(recordingJob('serial', spans, 'first', 300));
    second.fpa.jobs.register(recordingJob('serial', spans, 'second', 300));
    const outcomes = await Promise.all([first.fpa.jobs.run('serial', { wait: true }), second.fpa.jobs.run('serial', { wait: true })]);
    expect(outcomes.map((o) => o.status)).toEqual(['succeeded', 'succeeded']);
    expect(spans.map((s) => s.instance).sort()).toEqual(['first', 'second']);
    expectNoOverlap(spans);
  });

  test('generate-absences asked of both instances at once runs once', async () => {
    const people = await createPeople(first, ['J-1', 'J-2']);
    // Yesterday (UTC here; today is not over): the people just enrolled count from it by a schedule of their own.
    const date = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await first.admin.post('/work-schedules/', { name: 'instances', start: '08:00', end: '16:00' })).status).toBe(201);
    for (const p of Object.values(people)) {
      expect((await first.admin.post('/shift-assignments/', { schedule: 'instances', enrollee: p.id, from: date })).status).toBe(201);
    }
    const [a, b] = await Promise.all([
      first.fpa.jobs.run('generate-absences', { params: { date } }),
      second.fpa.jobs.run('generate-absences', { params: { date } }),
    ]);
    const ran = [a, b].filter((o) => o.status === 'succeeded');
    expect(ran).toHaveLength(1);
    const { absent, non_working_day } = ran[0]!.result as { absent: number; non_working_day: number };
    expect(absent + non_working_day).toBe(2);
    expect([a, b].filter((o) => o.status === 'skipped')).toHaveLength(1);
    expect((await leaseOf('generate-absences'))!.holder).toBeNull();
  });

  test('a lease held by a vanished instance blocks until it expires, then is taken over', async () => {
    const spans: Span[] = [];
    first.fpa.jobs.register(recordingJob('orphan', spans, 'first', 10));
    const now = Date.now();
    await first.fpa.db.write(({ tx }) => tx.insert(jobLeases).values({ name: 'orphan', holder: 'crashed-instance', leaseUntil: now + 60_000 }));
    expect((await first.fpa.jobs.run('orphan')).status).toBe('skipped');
    await first.fpa.db.write(({ tx }) =>
      tx
        .update(jobLeases)
        .set({ leaseUntil: now - 1 })
        .where(eq(jobLeases.name, 'orphan')),
    );
    expect((await first.fpa.jobs.run('orphan')).status).toBe('succeeded');
    expect(await leaseOf('orphan')).toMatchObject({ holder: null, lastHolder: instanceOf(first) });
  });

  test('TASK_BACKEND=cron: an every-second schedule on both instances runs once per tick, never overlapping', async () => {
    const spans: Span[] = [];
    // Each run outlasts a tick, so both instances' schedules keep firing while it runs.
    first.fpa.jobs.register(recordingJob('tick', spans, 'first', 1300, '* * * * * *'));
    second.fpa.jobs.register(recordingJob('tick', spans, 'second', 1300, '* * * * * *'));
    first.fpa.jobs.start();
    second.fpa.jobs.start();
    const described = (await first.fpa.jobs.describe()).find((j) => j.name === 'tick');
    expect(described).toMatchObject({ scheduled: true });
    expect(described!.next_run_at).not.toBeNull();
    await Bun.sleep(4500);
    await Promise.all([first.fpa.jobs.stop(), second.fpa.jobs.stop()]);
    expect(spans.length).toBeGreaterThanOrEqual(2);
    expect(spans.length).toBeLessThanOrEqual(4);
    expectNoOverlap(spans);
    // Stopped: the lease is free and nothing runs any more.
    expect((await leaseOf('tick'))!.holder).toBeNull();
    const after = spans.length;
    await Bun.sleep(1200);
    expect(spans.length).toBe(after);
  }, 15_000);
});

describe('TASK_BACKEND=external', () => {
  let external: TestServer;
  beforeAll(async () => {
    external = await startTestServer({ TASK_BACKEND: 'external' });
  });
  afterAll(async () => {
    await external.close();
  });

  test('nothing is scheduled, while the jobs still run on demand', async () => {
    const spans: Span[] = [];
    external.fpa.jobs.register(recordingJob('tick', spans, 'external', 10, '* * * * * *'));
    external.fpa.jobs.start();
    await Bun.sleep(1200);
    expect(spans).toHaveLength(0);
    const listed = await external.admin.get('/jobs/');
    const names = listed.body.results.map((j: { name: string }) => j.name);
    expect(names).toEqual(expect.arrayContaining(['check-devices', 'expire-commands', 'retry-commands', 'generate-absences', 'purge-retention']));
    expect(listed.body.results.every((j: { scheduled: boolean; next_run_at: string | null }) => !j.scheduled && j.next_run_at === null)).toBe(true);
    const run = await external.admin.post('/jobs/tick/run/');
    expect(run.body.status).toBe('succeeded');
    expect(spans).toHaveLength(1);
  });
});
