/**
 * `employees/?enrolled=`: the employees of the built-in directory no person is enrolled for
 * (false), or those with one (true), a page at a time by id. The People page's "not enrolled yet"
 * asks for exactly these: worked out from the first 1,000 people and the first 1,000 employees,
 * an employee past them was left out (or one enrolled past them listed as not enrolled).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { clientAs, startTestServer, type TestServer } from '../../support/harness';
import { seedPeople } from '../../support/people';

let server: TestServer;
const enrollee: Record<string, string> = {};

async function created(path: string, body: unknown): Promise<{ id: string }> {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status }).toEqual({ path, status: 201 });
  return res.body;
}

beforeAll(async () => {
  server = await startTestServer();
  // 1,010 people enrolled, whose employee ids sort between the others'.
  await seedPeople(
    server,
    Array.from({ length: 1010 }, (_, i) => ({ employee: `M-${String(i).padStart(4, '0')}`, name: `Many ${i}` })),
  );
  for (const id of ['A-1', 'A-2', 'A-3', 'A-4', 'A-5', 'Z-1', 'Z-2']) await created('/employees/', { id, name: `Person ${id}` });
  for (const id of ['A-1', 'A-3', 'A-4', 'Z-2']) enrollee[id] = (await created('/enrollees/', { employee: id, areas: ['north'] })).id;
  // Deactivated: still enrolled. Deleted: not any more (they may be enrolled again).
  expect((await server.admin.patch(`/enrollees/${enrollee['A-3']}/`, { active: false })).status).toBe(200);
  expect((await server.admin.delete(`/enrollees/${enrollee['A-4']}/`)).status).toBeLessThan(300);
}, 60_000);
afterAll(async () => {
  await server?.close();
});

async function everyPage(client: typeof server.admin, query: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 2000; i++) {
    const res: { status: number; body: { results: { id: string }[]; next_cursor: string | null } } = await client.get(
      `/employees/?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeLessThanOrEqual(limit);
    ids.push(...res.body.results.map((e) => e.id));
    cursor = res.body.next_cursor;
    if (cursor === null) return ids;
  }
  throw new Error('paging did not end');
}

describe('employees/?enrolled=', () => {
  test('false: exactly the employees with no person (none yet, or deleted), past the first 1,000, in one page or many', async () => {
    const first = await server.admin.get('/employees/?enrolled=false&limit=1000');
    expect(first.status).toBe(200);
    expect(first.body.results.map((e: { id: string }) => e.id)).toEqual(['A-2', 'A-4', 'A-5', 'Z-1']);
    expect(first.body.next_cursor).toBeNull();
    expect(await everyPage(server.admin, 'enrolled=false', 1)).toEqual(['A-2', 'A-4', 'A-5', 'Z-1']);
  });

  test('true: those with a person, active or deactivated; without it, everyone', async () => {
    const enrolled = await everyPage(server.admin, 'enrolled=true', 300);
    expect(enrolled).toHaveLength(1013);
    expect(enrolled.filter((id) => !id.startsWith('M-'))).toEqual(['A-1', 'A-3', 'Z-2']);
    expect(await everyPage(server.admin, 'enrolled=false', 2)).toEqual(['A-2', 'A-4', 'A-5', 'Z-1']);
    expect(await everyPage(server.admin, '', 500)).toHaveLength(1017);
    expect((await server.admin.get('/employees/?enrolled=maybe')).status).toBe(400);
  });

  test('a caller limited to areas sees employees through their people: nobody not enrolled', async () => {
    const hr = await clientAs(server, 'hr', ['north']);
    expect(await everyPage(hr, 'enrolled=false', 100)).toEqual([]);
    expect(await everyPage(hr, 'enrolled=true', 100)).toEqual(['A-1', 'A-3', 'Z-2']);
  });
});
