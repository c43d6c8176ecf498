/**
 * `shift-assignments/` of a large site pages in the database: each page is one statement past its
 * cursor on the (from_date, id) index, the caller's areas in its condition, never every
 * assignment of the company read and built (as it was for each page). A caller limited to an
 * area whose few assignments sit far down the list still gets full pages, each row once.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { InStatement, InValue } from '@libsql/client';
import { ApiClient, adminToken, startTestServer, type TestServer } from '../support/harness';
import { seedPeople } from '../support/people';
import { queryPlan } from '../support/query-plan';

const PEOPLE = 450;
let server: TestServer;

interface Assignment {
  id: string;
  from: string;
  enrollee: string | null;
  area: string | null;
}

async function every(client: ApiClient, params: string, limit: number): Promise<{ rows: Assignment[]; pages: number[] }> {
  const rows: Assignment[] = [];
  const pages: number[] = [];
  let cursor: string | null = null;
  do {
    const got: { status: number; body: { results: Assignment[]; next_cursor: string | null } } = await client.get(
      `/shift-assignments/?limit=${limit}${params}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(got.status).toBe(200);
    rows.push(...got.body.results);
    pages.push(got.body.results.length);
    cursor = got.body.next_cursor;
  } while (cursor);
  return { rows, pages };
}

beforeAll(async () => {
  server = await startTestServer();
  await seedPeople(
    server,
    Array.from({ length: PEOPLE }, (_, i) => ({ employee: `AP-${i}`, name: `Person ${i}` })),
  );
  expect((await server.admin.post('/work-schedules/', { name: 'Day', start: '09:00', end: '17:00' })).status).toBe(201);
  const ids = (await server.admin.get('/enrollees/?limit=1000')).body.results.map((p: { id: string }) => p.id);
  expect((await server.admin.post('/shift-assignments/batch/', { schedule: 'Day', enrollees: ids, from: '2031-01-05' })).status).toBe(201);
  // North's three people, assigned later: after every one of the others in the list's order.
  expect((await server.admin.post('/areas/', { name: 'north' })).status).toBe(201);
  for (const n of [1, 2, 3]) {
    expect((await server.admin.post('/employees/', { id: `N-${n}`, name: `North ${n}` })).status).toBe(201);
    const e = await server.admin.post('/enrollees/', { employee: `N-${n}`, areas: ['north'] });
    expect((await server.admin.post('/shift-assignments/', { schedule: 'Day', enrollee: e.body.id, from: `2031-02-0${n}` })).status).toBe(201);
  }
  expect((await server.admin.post('/shift-assignments/', { schedule: 'Day', area: 'north', from: '2031-02-09' })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

describe('shift assignments, a page at a time', () => {
  test('every assignment once, in order, in full pages', async () => {
    const { rows, pages } = await every(server.admin, '', 100);
    expect(rows).toHaveLength(PEOPLE + 4);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    expect(pages).toEqual([100, 100, 100, 100, 54]);
    const keys = rows.map((r) => `${r.from} ${r.id}`);
    expect(keys).toEqual([...keys].sort());
  });

  test('a caller limited to north gets full pages of its few, found past batches of others', async () => {
    const hr = new ApiClient(server.admin.base, { authorization: `Bearer ${await adminToken({ sub: 'hr-north', role: 'hr', areas: ['north'] })}` });
    const { rows, pages } = await every(hr, '', 2);
    expect(pages).toEqual([2, 2]);
    expect(rows.map((r) => r.from)).toEqual(['2031-02-01', '2031-02-02', '2031-02-03', '2031-02-09']);
    // The area filter, by its name, in the database too.
    const ofArea = await every(server.admin, '&area=north', 10);
    expect(ofArea.rows.map((r) => r.area)).toEqual(['north']);
    expect((await every(server.admin, '&area=nowhere', 10)).rows).toEqual([]);
  });

  test('the statements the pages run read by index: everyone’s on (from_date, id) in its order, a branch’s through its own people and areas', async () => {
    // The statements the list really runs (captured on their way to the database), with a cursor.
    const client = server.fpa.db.client;
    const execute = client.execute.bind(client);
    const seen: InStatement[] = [];
    client.execute = ((stmt: InStatement) => {
      const text = typeof stmt === 'string' ? stmt : stmt.sql;
      if (text.includes('from "fpa_shift_assignments"') && text.includes('order by')) seen.push(stmt);
      return execute(stmt);
    }) as typeof client.execute;
    try {
      const hr = new ApiClient(server.admin.base, { authorization: `Bearer ${await adminToken({ sub: 'hr-north', role: 'hr', areas: ['north'] })}` });
      for (const caller of [server.admin, hr]) {
        const first = await caller.get('/shift-assignments/?limit=1');
        expect((await caller.get(`/shift-assignments/?limit=1&cursor=${first.body.next_cursor}`)).status).toBe(200);
      }
    } finally {
      client.execute = execute;
    }
    expect(seen.length).toBe(4);
    const planOf = async (stmt: InStatement) =>
      typeof stmt === 'string' ? await queryPlan(server.fpa.db.filePath, stmt) : await queryPlan(server.fpa.db.filePath, stmt.sql, stmt.args as InValue[]);
    // Everyone's: the index gives the order, nothing sorted.
    const everyone = await planOf(seen[1]!);
    // Seeking to the cursor, not walking the index from its first row: a later page costs what the first does.
    expect(everyone.some((d) => /^SEARCH fpa_shift_assignments USING (COVERING )?INDEX fpa_shift_assignments_from \(\(from_date,id\)>/.test(d))).toBe(true);
    expect(everyone.some((d) => d.includes('TEMP B-TREE'))).toBe(false);
    // A branch's: only its own rows are read (its people's and its areas'), never the whole table.
    const branch = await planOf(seen[3]!);
    expect(branch.some((d) => /^SCAN fpa_shift_assignments\b/.test(d))).toBe(false);
  });
});

describe('holidays and leaves, a page at a time (the same two-key keyset)', () => {
  async function pages(path: string): Promise<{ keys: string[]; sizes: number[] }> {
    const keys: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const got: { status: number; body: { results: { id: string; date?: string; from?: string }[]; next_cursor: string | null } } = await server.admin.get(
        `${path}?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(got.status).toBe(200);
      keys.push(...got.body.results.map((r) => `${r.date ?? r.from} ${r.id}`));
      sizes.push(got.body.results.length);
      cursor = got.body.next_cursor;
    } while (cursor);
    return { keys, sizes };
  }

  test('each once, by date then id, ties on a date included; a made-up cursor is invalid_cursor', async () => {
    for (const [name, date] of [
      ['A', '2031-05-01'],
      ['B', '2031-05-01'],
      ['C', '2031-05-01'],
      ['D', '2031-06-01'],
      ['E', '2031-04-01'],
    ]) {
      expect((await server.admin.post('/holidays/', { name, date })).status).toBe(201);
    }
    const ids = (await server.admin.get('/enrollees/?limit=5')).body.results.map((p: { id: string }) => p.id);
    for (const [i, from] of ['2031-07-01', '2031-07-01', '2031-07-01', '2031-03-01', '2031-09-01'].entries()) {
      expect((await server.admin.post('/leaves/', { enrollee: ids[i], from, to: from, kind: 'vacation' })).status).toBe(201);
    }
    for (const path of ['/holidays/', '/leaves/']) {
      const { keys, sizes } = await pages(path);
      expect(sizes).toEqual([2, 2, 1]);
      expect(new Set(keys).size).toBe(5);
      expect(keys).toEqual([...keys].sort());
      const bad = await server.admin.get(`${path}?cursor=not-a-cursor`);
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('invalid_cursor');
    }
  });
});
