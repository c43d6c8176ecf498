/**
 * `punches/?employee=` reads the enrollee index by the employee's enrollee ids and the day
 * buckets of the range (service.ts `pageOfEmployee`): pages must be exactly what filtering the
 * whole feed gives, newest first by sequence, with and without a range, across day buckets,
 * through a cursor, and for every enrollee the employee ever had (a deleted one too).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, punchLines } from '../../support/punch-feed';

interface Punch {
  sequence: number;
  employee: string | null;
  device: string;
  punched_at: string;
  source: string;
}

let server: TestServer;
const DAY = 86_400_000;
const START = Date.UTC(2025, 2, 1, 22, 30); // late in a UTC day: a person's day spans two buckets

beforeAll(async () => {
  server = await startTestServer();
  for (const [id, name] of [
    ['E-LIST-A', 'Ada List'],
    ['E-LIST-B', 'Ben List'],
  ]) {
    expect((await server.admin.post('/employees/', { id, name })).status).toBe(201);
  }
});
afterAll(async () => {
  await server.close();
});

async function everything(): Promise<Punch[]> {
  return (await server.admin.get('/punches/latest/?after=0&limit=1000')).body.results as Punch[];
}

async function allPages(query: string, limit: number): Promise<Punch[]> {
  const out: Punch[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const page: { status: number; body: { results: Punch[]; next_cursor: string | null } } = await server.admin.get(
      `/punches/?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(page.status).toBe(200);
    expect(page.body.results.length).toBeLessThanOrEqual(limit);
    out.push(...page.body.results);
    cursor = page.body.next_cursor;
    if (cursor === null) return out;
  }
  throw new Error('paging did not end');
}

const newestFirst = (punches: Punch[]) => [...punches].sort((a, b) => b.sequence - a.sequence).map((p) => p.sequence);

describe('punches/?employee= by the enrollee index', () => {
  test('every page, with and without a range, across buckets, through the cursor, deleted enrollees included', async () => {
    const a1 = (await server.admin.post('/enrollees/', { employee: 'E-LIST-A' })).body;
    const b = (await server.admin.post('/enrollees/', { employee: 'E-LIST-B' })).body;
    const one = await approvedDevice(server, 'LIST0001');
    const two = await approvedDevice(server, 'LIST0002');
    // Ten days, uploaded newest day first: sequence order is not time order.
    for (let day = 9; day >= 0; day--) {
      await ingest(server, one, punchLines(a1.device_pin, 3, START + day * DAY));
      await ingest(server, one, punchLines(b.device_pin, 2, START + day * DAY + 600_000));
      if (day % 3 === 0) await ingest(server, two, punchLines(a1.device_pin, 1, START + day * DAY + 3_600_000));
    }
    // The first enrollee leaves; the employee comes back as another one: both are theirs.
    expect((await server.admin.delete(`/enrollees/${a1.id}`)).status).toBeLessThan(300);
    const a2 = (await server.admin.post('/enrollees/', { employee: 'E-LIST-A' })).body;
    expect(a2.id).not.toBe(a1.id);
    await ingest(server, one, punchLines(a2.device_pin, 4, START + 12 * DAY));
    expect((await server.admin.post('/punches/manual', { enrollee: a2.id, at: '2025-03-05T10:00:00Z', state: 0, reason: 'forgot' })).status).toBe(201);

    const feed = await everything();
    const ofA = feed.filter((p) => p.employee === 'E-LIST-A');
    expect(ofA.length).toBe(3 * 10 + 4 + 4 + 1);

    for (const limit of [1, 4, 7, 100]) {
      const pages = await allPages('employee=E-LIST-A', limit);
      expect(pages.map((p) => p.sequence)).toEqual(newestFirst(ofA));
    }
    expect((await allPages('employee=E-LIST-B', 3)).map((p) => p.sequence)).toEqual(newestFirst(feed.filter((p) => p.employee === 'E-LIST-B')));

    // A range of instants (`to` inclusive), spanning buckets.
    const from = new Date(START + 2 * DAY + 60_000).toISOString();
    const to = new Date(START + 6 * DAY + 60_000).toISOString();
    const inRange = ofA.filter((p) => p.punched_at >= from && p.punched_at <= to);
    expect(inRange.length).toBeGreaterThan(5);
    expect((await allPages(`employee=E-LIST-A&from=${from}&to=${to}`, 4)).map((p) => p.sequence)).toEqual(newestFirst(inRange));
    // Open on one side.
    const since = ofA.filter((p) => p.punched_at >= from);
    expect((await allPages(`employee=E-LIST-A&from=${from}`, 5)).map((p) => p.sequence)).toEqual(newestFirst(since));
    const until = ofA.filter((p) => p.punched_at <= to);
    expect((await allPages(`employee=E-LIST-A&to=${to}`, 5)).map((p) => p.sequence)).toEqual(newestFirst(until));
    // Calendar dates, and the other filters with the employee.
    const dated = (await allPages('employee=E-LIST-A&from=2025-03-05&to=2025-03-05', 2)).map((p) => p.sequence);
    expect(dated.length).toBeGreaterThan(0);
    expect((await allPages('employee=E-LIST-A&device=LIST0002', 2)).map((p) => p.sequence)).toEqual(newestFirst(ofA.filter((p) => p.device === 'LIST0002')));
    expect((await allPages('employee=E-LIST-A&source=manual', 2)).map((p) => p.sequence)).toEqual(newestFirst(ofA.filter((p) => p.source === 'manual')));

    // Nobody, an empty range; a reversed one is refused, as on every route.
    expect((await server.admin.get('/punches/?employee=E-NOBODY')).body).toEqual({ results: [], next_cursor: null });
    expect((await server.admin.get('/punches/?employee=E-LIST-A&from=2030-01-01')).body.results).toEqual([]);
    const reversed = await server.admin.get(`/punches/?employee=E-LIST-A&from=${to}&to=${from}`);
    expect([reversed.status, reversed.body.error.code, reversed.body.error.details.fields]).toEqual([400, 'validation_error', ['from', 'to']]);
  });
});
