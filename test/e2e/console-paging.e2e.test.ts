/**
 * The console's one way of reading a list (src/modules/console/client/api.ts `pager`,
 * `everyRow`), against the real server: a list longer than the API's page of 1,000 is read whole,
 * or a page at a time with "more" said, never one page taken for all of it (the pages that read
 * `?limit=1000` once showed the first 1,000 and silently left the rest out).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { everyRow, type List, type ListReader, pager } from '../../src/modules/console/client/api';
import { startTestServer, type TestServer } from '../support/harness';
import { seedPeople } from '../support/people';

const PEOPLE = 2050;
let server: TestServer;
const asked: string[] = [];
/** Reads a page as the console does, over HTTP with the admin's token; each path asked for is kept. */
const read: ListReader = async <T>(path: string): Promise<List<T>> => {
  asked.push(path);
  const answer = await server.admin.get<List<T>>(`/${path}`);
  expect(answer.status).toBe(200);
  return answer.body;
};

beforeAll(async () => {
  server = await startTestServer();
  const number = (i: number) => String(i + 1).padStart(4, '0');
  await seedPeople(
    server,
    Array.from({ length: PEOPLE }, (_, i) => ({ employee: `P-${number(i)}`, name: `Paged ${number(i)}` })),
  );
}, 60_000);
afterAll(async () => {
  await server?.close();
});

describe('the console reads lists past one page', () => {
  test('everyRow follows next_cursor to the end: every row once, filters kept on every page', async () => {
    asked.length = 0;
    const rows = await everyRow<{ employee: string }>('enrollees/', { status: 'active' }, read);
    expect(rows).toHaveLength(PEOPLE);
    expect(new Set(rows.map((r) => r.employee)).size).toBe(PEOPLE);
    expect(asked).toHaveLength(3);
    for (const path of asked) expect(path).toMatch(/^enrollees\/\?status=active&limit=1000/);
    expect(asked.slice(1).every((path) => path.includes('cursor='))).toBe(true);
  });

  test('a pager reads a page at a time and says whether there is more', async () => {
    const people = pager<{ employee: string }>('enrollees/', {}, 1000, read);
    expect(people.more).toBe(true);
    expect(await people.next()).toHaveLength(1000);
    expect(people.more).toBe(true);
    await people.until(1500);
    expect(people.rows).toHaveLength(2000);
    expect(people.more).toBe(true);
    expect(await people.next()).toHaveLength(PEOPLE - 2000);
    expect(people.more).toBe(false);
    // Past the end: nothing more is asked for.
    const before = asked.length;
    expect(await people.next()).toEqual([]);
    expect(asked).toHaveLength(before);
    expect(new Set(people.rows.map((r) => r.employee)).size).toBe(PEOPLE);
  });

  test('a cursor answered again ends the list instead of reading the same page for ever', async () => {
    let calls = 0;
    const stuck: ListReader = async <T>() => {
      calls++;
      return { results: [{ n: calls }] as T[], next_cursor: 'same' };
    };
    expect(await everyRow('anything/', {}, stuck)).toEqual([{ n: 1 }, { n: 2 }]);
  });
});
