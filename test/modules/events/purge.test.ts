/**
 * The event log is purged behind its slowest reader (events/pruning.ts `purgeBefore`, run by
 * purge-retention): events recorded before RETENTION_EVENTS_DAYS go, except those a log
 * follower (attendance days) has not applied or a webhook endpoint has not handed off; a reader
 * asking `events/?after=` a purged position is answered from the oldest event kept.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../../support/harness';

const DAY = 86_400_000;
let now = Date.parse('2026-01-01T08:00:00Z');
let server: TestServer;

interface EventBody {
  sequence: number;
  type: string;
  at: string;
}

async function log(after = 0): Promise<EventBody[]> {
  const res = await server.admin.get(`/events/?after=${after}&limit=1000`);
  expect(res.status).toBe(200);
  return res.body.results;
}

async function purge(): Promise<Record<string, number>> {
  const run = await server.admin.post('/jobs/purge-retention/run/');
  expect(run.status).toBe(200);
  expect(run.body.status).toBe('succeeded');
  return run.body.result;
}

/** Reads what each of the log's followers derives, which catches it up: attendance days, anomalies. */
async function catchUp(): Promise<void> {
  expect((await server.admin.get('/attendance-days/')).status).toBe(200);
  expect((await server.admin.get('/anomalies/')).status).toBe(200);
}

/** The position of the slowest follower. */
async function followerPosition(): Promise<number> {
  const rs = await server.fpa.db.client.execute('select min(position) as p from fpa_log_followers');
  return Number(rs.rows[0]?.p ?? 0);
}

beforeAll(async () => {
  server = await startTestServer(
    { TIME_ZONE: 'UTC', RETENTION_EVENTS_DAYS: 10, WEBHOOK_ALLOW_PRIVATE_NETWORKS: true },
    // No background work: the log's followers move only when read (attendance days, anomalies),
    // and no webhook is delivered (the endpoint stays where it was created).
    { clock: { now: () => now }, startJobs: false },
  );
});
afterAll(async () => {
  await server.close();
});

describe('events purged behind the slowest reader', () => {
  let hookId = '';
  let enrolleeId = '';
  let held = 0;

  test('nothing goes while the follower has not applied it; then all but what the endpoint owes', async () => {
    for (const id of ['EV-1', 'EV-2']) expect((await server.admin.post('/employees/', { id, name: `Person ${id}` })).status).toBe(201);
    enrolleeId = (await server.admin.post('/enrollees/', { employee: 'EV-1' })).body.id;
    const hook = await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/hook', events: ['enrollee_updated'] });
    expect(hook.status).toBe(201);
    hookId = hook.body.id;
    // After the endpoint's position and of its type: owed to it.
    expect((await server.admin.patch(`/enrollees/${enrolleeId}/`, { active: false })).status).toBe(200);
    now += 2 * DAY;
    await server.admin.post('/enrollees/', { employee: 'EV-2' });
    now = Date.parse('2026-01-15T08:00:00Z');
    // Recent: kept whatever happens.
    expect((await server.admin.patch(`/enrollees/${enrolleeId}/`, { active: true })).status).toBe(200);
    const before = await log();
    const recent = before.filter((e) => Date.parse(e.at) >= now - 10 * DAY);
    held = before.filter((e) => e.type === 'enrollee_updated' && Date.parse(e.at) < now - 10 * DAY).length;
    expect(held).toBe(1);
    expect(recent.length).toBeGreaterThan(0);
    expect(before.length - recent.length).toBeGreaterThan(held);

    // The followers have applied nothing yet: the log stays whole.
    expect(await followerPosition()).toBeLessThan(before[0]!.sequence);
    expect((await purge()).events_purged).toBe(0);
    expect(await log()).toEqual(before);

    // Reading days and anomalies catches the followers up; now only the endpoint's event stays of the old ones.
    await catchUp();
    expect(await followerPosition()).toBe(before[before.length - 1]!.sequence);
    expect((await purge()).events_purged).toBe(before.length - recent.length - held);
    const left = await log();
    expect(left.map((e) => e.sequence)).toEqual(
      before.filter((e) => Date.parse(e.at) >= now - 10 * DAY || e.type === 'enrollee_updated').map((e) => e.sequence),
    );
    // A reader at a purged position reads on from the oldest event kept.
    expect((await log(before[0]!.sequence)).map((e) => e.sequence)).toEqual(left.filter((e) => e.sequence > before[0]!.sequence).map((e) => e.sequence));
    expect((await log(1))[0]!.sequence).toBe(left[0]!.sequence);
    // Nothing more to do.
    expect((await purge()).events_purged).toBe(0);
  });

  test('once the endpoint is gone its events go too; sequences keep growing', async () => {
    const head = (await log()).at(-1)!.sequence;
    expect((await server.admin.delete(`/webhooks/${hookId}`)).status).toBe(204);
    expect((await purge()).events_purged).toBe(held);
    const left = await log();
    expect(left.every((e) => Date.parse(e.at) >= now - 10 * DAY)).toBe(true);
    // The log's newest event is never purged by age alone while recent; a new one follows it.
    await server.admin.patch(`/enrollees/${enrolleeId}/`, { active: false });
    const after = await log(head);
    expect(after.length).toBeGreaterThan(0);
    expect(after[0]!.sequence).toBeGreaterThan(head);
  });

  test('everything older than the horizon goes once every reader is past it, even the newest', async () => {
    now += 30 * DAY;
    await catchUp();
    const head = (await log()).at(-1)!.sequence;
    expect((await purge()).events_purged).toBeGreaterThan(0);
    // The purge's own audit is no event; the log is empty and `after=` anything reads nothing.
    expect(await log()).toEqual([]);
    await server.admin.patch(`/enrollees/${enrolleeId}/`, { active: true });
    const next = await log();
    expect(next.length).toBeGreaterThan(0);
    expect(next[0]!.sequence).toBeGreaterThan(head);
  });
});
