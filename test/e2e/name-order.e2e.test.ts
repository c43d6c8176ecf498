/**
 * One order by name everywhere, ignoring case and accents as the search does (platform/name-key.ts):
 * `enrollees/?sort=name` (the console's grid and pickers), an area's members, the roster of "who
 * works when" and the Today board list `Ångström` under A and `ada` with `Ada`, where the sort on
 * `display_name collate nocase` put `Ångström` and `Émile` after `Zoë`. Paged one by one, each list
 * gives the same order: its cursor holds the key it seeks on. A rename moves a person to their new
 * place.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
const NAMES = ['Zoë Zimmer', 'Ångström Anders', 'ada Lovelace', 'Bruno Keller', 'Émile Zola', 'Łukasz Łęcki', 'zeno Adler'];
/** By their folded names: ada lovelace, angstrom anders, bruno keller, emile zola, lukasz lecki, zeno adler, zoe zimmer. */
const BY_NAME = ['ada Lovelace', 'Ångström Anders', 'Bruno Keller', 'Émile Zola', 'Łukasz Łęcki', 'zeno Adler', 'Zoë Zimmer'];
const ids: Record<string, string> = {};

async function ok<T = Record<string, unknown>>(answer: Promise<{ status: number; body: unknown }>, status = 201): Promise<T> {
  const { status: got, body } = await answer;
  if (got !== status) throw new Error(`answered ${got}: ${JSON.stringify(body)}`);
  return body as T;
}

/** Every page of a list, `limit` at a time, following `next_cursor`: the names in the order given. */
async function paged(path: string, limit: number, name: (row: Record<string, string>) => string): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 20; pages++) {
    const join = path.includes('?') ? '&' : '?';
    const page: { results: Record<string, string>[]; next_cursor: string | null } = await ok(
      server.admin.get(`${path}${join}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
      200,
    );
    names.push(...page.results.map(name));
    cursor = page.next_cursor;
    if (!cursor) return names;
  }
  throw new Error('more than 20 pages');
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'Europe/Berlin' });
  for (const [i, name] of NAMES.entries()) {
    await ok(server.admin.post('/employees/', { id: `N${i}`, name }));
    ids[name] = (await ok<{ id: string }>(server.admin.post('/enrollees/', { employee: `N${i}`, areas: ['plant'] }))).id;
  }
});
afterAll(async () => {
  await server?.close();
});

describe('the order by name', () => {
  test('enrollees/?sort=name: case and accents ignored, whole or page by page', async () => {
    const whole = await ok<{ results: { display_name: string }[] }>(server.admin.get('/enrollees/?sort=name'), 200);
    expect(whole.results.map((p) => p.display_name)).toEqual(BY_NAME);
    for (const limit of [1, 2, 3]) expect(await paged('/enrollees/?sort=name', limit, (p) => p.display_name!)).toEqual(BY_NAME);
    // The search folds names the same way.
    const found = await ok<{ results: { display_name: string }[] }>(server.admin.get('/enrollees/?search=angstrom&sort=name'), 200);
    expect(found.results.map((p) => p.display_name)).toEqual(['Ångström Anders']);
    const lukasz = await ok<{ results: { display_name: string }[] }>(server.admin.get('/enrollees/?search=lukasz%20lecki'), 200);
    expect(lukasz.results.map((p) => p.display_name)).toEqual(['Łukasz Łęcki']);
  });

  test('an area’s members and the roster of who works when, page by page', async () => {
    expect(await paged('/areas/plant/members/', 2, (p) => p.display_name!)).toEqual(BY_NAME);
    expect(await paged('/calendar/roster/?area=plant&from=2031-03-03&to=2031-03-09', 2, (p) => p.display_name!)).toEqual(BY_NAME);
  });

  test('the Today board lists them in the same order', async () => {
    const board = await ok<{ people: { display_name: string }[] }>(server.admin.get('/attendance/today/'), 200);
    expect(board.people.map((p) => p.display_name)).toEqual(BY_NAME);
  });

  test('a rename moves a person to the new name’s place', async () => {
    await ok(server.admin.patch(`/enrollees/${ids['Zoë Zimmer']}/`, { display_name: 'Äbby Zimmer' }), 200);
    const expected = ['Äbby Zimmer', ...BY_NAME.filter((n) => n !== 'Zoë Zimmer')];
    expect(await paged('/enrollees/?sort=name', 2, (p) => p.display_name!)).toEqual(expected);
    const board = await ok<{ people: { display_name: string }[] }>(server.admin.get('/attendance/today/'), 200);
    expect(board.people.map((p) => p.display_name)).toEqual(expected);
  });
});
