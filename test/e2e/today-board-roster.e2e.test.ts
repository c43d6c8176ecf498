/**
 * The Today board keeps its roster (everyone, with their areas) between reads and reads it again
 * only when the database's roster version has moved (enrollees/roster.ts, migration 0013). Each
 * kind of change that the board shows must move it, through the API and through a write of
 * another instance (a raw connection to the same file, as a second process would hold it).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { type Client, createClient } from '@libsql/client';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let other: Client;
const ids: Record<string, string> = {};

interface Board {
  people: { employee: string; display_name: string; areas: string[] }[];
  areas: { area: string }[];
}

async function board(query = ''): Promise<Board> {
  const res = await server.admin.get<Board>(`/attendance/today/${query}`);
  expect(res.status).toBe(200);
  return res.body;
}

const row = (b: Board, employee: string) => b.people.find((p) => p.employee === employee);

async function version(): Promise<number> {
  return Number((await other.execute("select value from fpa_counters where name = 'roster_version'")).rows[0]?.value);
}

async function ok(res: Promise<{ status: number; body: unknown }>, status = 200) {
  const { status: got, body } = await res;
  expect({ got, body: got === status ? null : body }).toEqual({ got: status, body: null });
  return body as { id: string };
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC', AREAS_CREATED_ON_USE: false });
  for (const name of ['north', 'south']) await ok(server.admin.post('/areas/', { name }), 201);
  for (const [employee, name] of [
    ['R-1', 'Rosa Alba'],
    ['R-2', 'Rolf Berg'],
  ] as const) {
    await ok(server.admin.post('/employees/', { id: employee, name }), 201);
    ids[employee] = (await ok(server.admin.post('/enrollees/', { employee, areas: ['north'] }), 201)).id;
  }
  other = createClient({ url: `file:${join(server.dir, 'fpa.db')}`, intMode: 'number', timeout: 5000 });
});
afterAll(async () => {
  other.close();
  await server.close();
});

describe('the Today board’s roster follows every change it shows', () => {
  test('read twice without a change, it answers the same people', async () => {
    expect((await board()).people.map((p) => p.employee)).toEqual(['R-2', 'R-1']);
    expect((await board()).people.map((p) => p.employee)).toEqual(['R-2', 'R-1']);
  });

  test('a new enrollee, a renamed one, a changed area, a renamed area', async () => {
    await ok(server.admin.post('/employees/', { id: 'R-3', name: 'Rita Cruz' }), 201);
    ids['R-3'] = (await ok(server.admin.post('/enrollees/', { employee: 'R-3', areas: ['south'] }), 201)).id;
    expect(row(await board(), 'R-3')?.areas).toEqual(['south']);

    await ok(server.admin.patch(`/enrollees/${ids['R-1']}/`, { display_name: 'Rosa Alba-Lind' }));
    expect(row(await board(), 'R-1')?.display_name).toBe('Rosa Alba-Lind');

    await ok(server.admin.patch(`/enrollees/${ids['R-2']}/`, { areas: ['north', 'south'] }));
    expect(row(await board(), 'R-2')?.areas).toEqual(['north', 'south']);
    expect(row(await board('?area=south'), 'R-2')).toBeDefined();

    await ok(server.admin.patch('/areas/south/', { name: 'southside' }));
    const renamed = await board();
    expect(row(renamed, 'R-3')?.areas).toEqual(['southside']);
    expect(renamed.areas.map((a) => a.area)).toEqual(['north', 'southside']);
  });

  test('a deleted enrollee leaves the board', async () => {
    await ok(server.admin.delete(`/enrollees/${ids['R-3']}/`), 204);
    expect(row(await board(), 'R-3')).toBeUndefined();
  });

  test('deleted since, someone with a day stored on a past date stays on that date’s board, as in the reports', async () => {
    await ok(server.admin.post('/employees/', { id: 'R-9', name: 'Rhea Gone' }), 201);
    const gone = (await ok(server.admin.post('/enrollees/', { employee: 'R-9', areas: ['north'] }), 201)).id;
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    for (const time of ['09:00', '17:00'])
      await ok(server.admin.post('/punches/manual/', { enrollee: gone, at: `${yesterday} ${time}`, reason: 'paper sheet' }), 201);
    await ok(server.admin.delete(`/enrollees/${gone}/`), 204);
    const past = await board(`?date=${yesterday}`);
    expect(row(past, 'R-9')).toMatchObject({ display_name: 'Rhea Gone', status: 'present' });
    expect(row(await board(), 'R-9')).toBeUndefined();
    const daily = await server.admin.get<{ sheets: { rows: string[][] }[] }>(`/reports/daily/preview/?date=${yesterday}`);
    expect(daily.body.sheets[0]!.rows.some((r) => r.includes('R-9'))).toBe(true);
  });

  test('another instance’s writes to the same database: a name, an area’s members', async () => {
    expect(row(await board(), 'R-2')?.display_name).toBe('Rolf Berg');
    await other.execute({ sql: 'update fpa_enrollees set display_name = ? where id = ?', args: ['Rolf Berg-Moos', ids['R-2']!] });
    expect(row(await board(), 'R-2')?.display_name).toBe('Rolf Berg-Moos');
    await other.execute({ sql: 'delete from fpa_enrollee_areas where enrollee_id = ?', args: [ids['R-1']!] });
    expect(row(await board(), 'R-1')?.areas).toEqual([]);
  });

  test('a deactivated person leaves today’s board; one added by another instance without areas joins it', async () => {
    await ok(server.admin.patch(`/enrollees/${ids['R-2']}/`, { active: false }));
    expect(row(await board(), 'R-2')).toBeUndefined();
    const now = Date.now();
    await other.execute({
      sql: `insert into fpa_enrollees (id, employee_key, device_pin, display_name, status, created_at, updated_at) values (?, 'R-9', '99999', 'Rhea Zorn', 'active', ?, ?)`,
      args: ['00000000-0000-7000-8000-000000000009', now - 60_000, now - 60_000],
    });
    expect(row(await board(), 'R-9')).toMatchObject({ display_name: 'Rhea Zorn', areas: [] });
  });

  test('a write the board does not show leaves the version alone; each kind it shows moves it', async () => {
    const before = await version();
    expect(typeof before).toBe('number');
    await other.execute({ sql: 'update fpa_enrollees set updated_at = updated_at + 1, card = ? where id = ?', args: ['4711', ids['R-1']!] });
    expect(await version()).toBe(before);
    await other.execute({ sql: 'update fpa_enrollees set display_name = display_name where id = ?', args: [ids['R-1']!] });
    expect(await version()).toBe(before + 1);
    // An area's coming and going count too (one nobody is in may go).
    await ok(server.admin.post('/areas/', { name: 'east' }), 201);
    expect(await version()).toBe(before + 2);
    await ok(server.admin.delete('/areas/east/'), 204);
    expect(await version()).toBe(before + 3);
  });

  test('it is kept: a change whose count is taken back is not read, until the version moves', async () => {
    expect(row(await board(), 'R-1')?.display_name).toBe('Rosa Alba-Lind');
    await other.batch(
      [
        { sql: 'update fpa_enrollees set display_name = ? where id = ?', args: ['Rosa Kept', ids['R-1']!] },
        "update fpa_counters set value = value - 1 where name = 'roster_version'",
      ],
      'write',
    );
    expect(row(await board(), 'R-1')?.display_name).toBe('Rosa Alba-Lind');
    await other.execute("update fpa_counters set value = value + 1 where name = 'roster_version'");
    expect(row(await board(), 'R-1')?.display_name).toBe('Rosa Kept');
  });

  test('a read that misses does not share a read begun before its version: it would miss the change', async () => {
    const { roster } = server.fpa.service.enrollees;
    const client = server.fpa.db.client;
    const name = async (entries: Promise<readonly { id: string; displayName: string }[]>) => (await entries).find((e) => e.id === ids['R-1'])?.displayName;
    const rename = (to: string) => other.execute({ sql: 'update fpa_enrollees set display_name = ? where id = ?', args: [to, ids['R-1']!] });
    await roster.read();
    // Every roster read waits at a gate after taking its snapshot, so that two are under way at once.
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const batch = client.batch.bind(client);
    client.batch = async (...args: Parameters<typeof batch>) => {
      const results = await batch(...args);
      await gate;
      return results;
    };
    try {
      await rename('Rosa First');
      const first = roster.read();
      await Bun.sleep(10);
      await rename('Rosa Second');
      const second = roster.read();
      await Bun.sleep(10);
      open();
      expect(await name(first)).toBe('Rosa First');
      expect(await name(second)).toBe('Rosa Second');
    } finally {
      client.batch = batch;
      await rename('Rosa Kept');
    }
  });

  test('with one of its triggers gone (a table rebuilt by a later migration), nothing is kept', async () => {
    const triggers = await other.execute("select name from sqlite_master where type = 'trigger' and name like 'fpa_roster_%' order by name");
    expect(triggers.rows.length).toBe(9);
    expect(row(await board(), 'R-1')?.display_name).toBe('Rosa Kept');
    await other.execute('drop trigger fpa_roster_enrollee_changed');
    // Without that trigger this rename leaves the version where it was.
    const before = await version();
    await other.execute({ sql: 'update fpa_enrollees set display_name = ? where id = ?', args: ['Rosa Unkept', ids['R-1']!] });
    expect(await version()).toBe(before);
    expect(row(await board(), 'R-1')?.display_name).toBe('Rosa Unkept');
  });
});
