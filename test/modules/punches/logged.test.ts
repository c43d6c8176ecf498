/**
 * How the event log keeps punches (src/modules/punches/logged.ts): `punch_received` and
 * `punch_voided` store the punch's sequence, not a copy of it. Readers of the log (`events/`,
 * which webhooks and streams share) get the punch as it is when read: a later void shows, and a
 * punch that retention purged leaves its event in place with `punch: null`. Migration 0005 turns
 * the copies an earlier version logged into references.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrate } from 'drizzle-orm/libsql/migrator';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { MIGRATIONS_FOLDER, migrateDatabase, openDatabase } from '../../../src/platform/db/client';
import { createPeople, linesAt, type Person, terminal, upload } from '../../support/attendance';
import { startTestServer, type TestServer, tempDir } from '../../support/harness';

const ZONE = 'UTC';
const DAY = 86_400_000;
let now = Date.parse('2026-03-20T06:00:00Z');
let server: TestServer;
let device: DeviceRow;
let people: Record<string, Person>;

interface EventBody {
  sequence: number;
  type: string;
  data: Record<string, unknown> & { punch: (Record<string, unknown> & { sequence: number }) | null };
}

/** What the log row itself holds, straight from the database file. */
async function storedData(eventSequence: number): Promise<unknown> {
  const rs = await server.fpa.db.client.execute({ sql: 'select data from fpa_events where sequence = ?', args: [eventSequence] });
  return JSON.parse(String(rs.rows[0]!.data));
}

async function events(type: string): Promise<EventBody[]> {
  const res = await server.admin.get(`/events/?type=${type}&limit=1000`);
  expect(res.status).toBe(200);
  return res.body.results;
}

async function receivedFor(punchSequence: number): Promise<EventBody> {
  const found = (await events('punch_received')).find((e) => e.data.punch?.sequence === punchSequence);
  if (!found) throw new Error(`no punch_received for punch ${punchSequence}`);
  return found;
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE, RETENTION_PUNCHES_DAYS: 30 }, { clock: { now: () => now } });
  people = await createPeople(server, ['L-1', 'L-2']);
  device = await terminal(server, 'LOGD0001');
});
afterAll(async () => {
  await server.close();
});

describe('punch_received in the log', () => {
  test("a terminal's punch is stored as its sequence and shown whole: the punch and the terminal, as in-process listeners got it", async () => {
    const heard: unknown[] = [];
    const off = server.fpa.events.on('punch_received', ({ punch, sender }) => {
      heard.push({ punch, sender });
    });
    const result = await upload(server, device, linesAt(ZONE, people['L-1']!.pin, '2026-03-16 09:00:00'));
    const feed = await server.admin.get(`/punches/latest/?after=${result.lastSequence! - 1}`);
    const stored = feed.body.results[0] as Record<string, unknown> & { sequence: number };
    off();
    const event = await receivedFor(stored.sequence);
    expect(await storedData(event.sequence)).toEqual({ punch_sequence: stored.sequence });
    expect(event.data).toEqual({ punch: stored, sender: { id: device.id, serial_number: 'LOGD0001' } });
    expect(heard).toEqual([event.data]);
  });

  test('a manual punch keeps who entered it; once voided, its punch_received shows it voided, and punch_voided keeps why', async () => {
    const manual = await server.admin.post('/punches/manual/', { enrollee: people['L-2']!.id, at: '2026-03-17 17:30', state: 1, reason: 'reader was down' });
    expect(manual.status).toBe(201);
    const received = await receivedFor(manual.body.sequence);
    expect(await storedData(received.sequence)).toEqual({ punch_sequence: manual.body.sequence, by: 'admin@example.com' });
    expect(received.data).toEqual({ punch: manual.body, sender: null, by: 'admin@example.com' });

    const voided = await server.admin.post(`/punches/${manual.body.id}/void/`, { reason: 'entered twice' });
    expect(voided.status).toBe(200);
    expect((await receivedFor(manual.body.sequence)).data.punch).toEqual(voided.body);
    const [voidEvent] = (await events('punch_voided')).filter((e) => e.data.punch?.sequence === manual.body.sequence);
    expect(await storedData(voidEvent!.sequence)).toEqual({ punch_sequence: manual.body.sequence, reason: 'entered twice', by: 'admin@example.com' });
    expect(voidEvent!.data).toEqual({ punch: voided.body, reason: 'entered twice', by: 'admin@example.com' });
  });

  test('a punch purged by retention leaves its event in the log, its punch null; attendance still follows the log', async () => {
    const old = await upload(server, device, linesAt(ZONE, people['L-1']!.pin, '2026-03-10 08:00:00'));
    const event = await receivedFor(old.lastSequence!);
    now += 25 * DAY; // 2026-03-10 is now 35 days old: past RETENTION_PUNCHES_DAYS (30)
    const run = await server.admin.post('/jobs/purge-retention/run/');
    expect(run.status).toBe(200);
    const after = (await events('punch_received')).find((e) => e.sequence === event.sequence);
    expect(after?.data).toEqual({ punch: null, sender: null });
    expect(await storedData(event.sequence)).toEqual({ punch_sequence: old.lastSequence });
    // Newer punches are still shown whole, and the attendance follower reads past the purged one.
    const fresh = await upload(server, device, linesAt(ZONE, people['L-1']!.pin, '2026-04-13 09:00:00'));
    expect((await receivedFor(fresh.lastSequence!)).data.punch).toMatchObject({ sequence: fresh.lastSequence, local_time: '2026-04-13 09:00:00' });
    const day = await server.admin.get('/attendance-days/?employee=L-1&from=2026-04-13&to=2026-04-13');
    expect(day.status).toBe(200);
    expect(day.body.results[0]).toMatchObject({ date: '2026-04-13', first_in: expect.any(String) });
  });
});

describe('migration 0005', () => {
  test('turns the copies an earlier version logged into references, keeping `by` and `reason`, and leaves other events alone', async () => {
    const tmp = tempDir('fpa-logged-');
    const folder = join(tmp.dir, 'migrations-0004');
    cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
    const journalPath = join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
    journal.entries = journal.entries.filter((e) => e.tag < '0005');
    writeFileSync(journalPath, JSON.stringify(journal));

    const db = await openDatabase({ url: `file:${join(tmp.dir, 'fpa.db')}`, backgroundCheckpoint: false });
    try {
      await migrate(db.orm, { migrationsFolder: folder });
      const punch = { sequence: 7, id: 'p-7', employee: 'E-1', device: 'OLD00001', voided: false };
      const logged: [string, object][] = [
        ['punch_received', { punch, sender: { id: 'dev-1', serial_number: 'OLD00001' } }],
        ['punch_received', { punch: { ...punch, sequence: 8 }, sender: null, by: 'hr@example.com' }],
        ['punch_voided', { punch: { ...punch, voided: true }, reason: 'twice', by: 'hr@example.com' }],
        ['device_approved', { device: { id: 'dev-1', serial_number: 'OLD00001' } }],
      ];
      for (const [i, [type, data]] of logged.entries()) {
        await db.client.execute({
          sql: 'insert into fpa_events (id, type, at, data) values (?, ?, ?, ?)',
          args: [`evt_${i}`, type, now, JSON.stringify(data)],
        });
      }
      await migrateDatabase(db);
      const rs = await db.client.execute('select type, data from fpa_events order by sequence');
      expect(rs.rows.map((r) => [r.type, JSON.parse(String(r.data))])).toEqual([
        ['punch_received', { punch_sequence: 7 }],
        ['punch_received', { by: 'hr@example.com', punch_sequence: 8 }],
        ['punch_voided', { reason: 'twice', by: 'hr@example.com', punch_sequence: 7 }],
        ['device_approved', { device: { id: 'dev-1', serial_number: 'OLD00001' } }],
      ]);
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
