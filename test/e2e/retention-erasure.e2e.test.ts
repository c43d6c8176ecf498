/**
 * Retention leaves nothing of a person behind. A person badges at a terminal, has punches
 * imported and entered by hand, attendance days, anomalies (a leave recorded and removed),
 * audit entries and events; they are deleted;
 * past the horizon the purge runs, and then every text value of every table of the database is
 * searched for their name, employee id, PIN, card and punch times: none is left. Events a
 * webhook endpoint has not handed off yet keep their data until it has (or is gone), and the
 * log keeps every event's place. Real server, real libSQL file, a simulated terminal.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { attendanceDays } from '../../src/app/schema';
import type { EmployeeDirectory } from '../../src/modules/employees';
import type { Clock } from '../../src/platform/runtime';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let now = Date.parse('2026-01-10T06:00:00Z');
const clock: Clock = { now: () => now };
let server: TestServer;

const NAME = 'Wilhelmina Oyelaran';
const EMPLOYEE = 'EMP-QX-7731';
const CARD = '3920571846';
const PIN = '739148265';
/** Badged at the terminal, imported from a file, entered by hand. */
const PUNCHES = ['2026-01-10T08:03:17Z', '2026-01-10T17:12:45Z', '2026-01-09T07:58:31Z', '2026-01-09T16:41:09Z'];

/** The host's employee directory (their name lives there, not in this service's tables). */
const directory: EmployeeDirectory = {
  model: 'host.Person',
  lookupFields: ['id'],
  find: async (key) => (key === EMPLOYEE ? { key, displayName: NAME, active: true } : null),
};

/** Every form the person's data could be written in. */
const NEEDLES = [
  'Wilhelmina',
  'Oyelaran',
  EMPLOYEE,
  PIN,
  CARD,
  ...PUNCHES.flatMap((at) => [at.slice(0, 19), at.slice(0, 19).replace('T', ' '), String(Date.parse(at))]),
];

/** Where each needle is found: every table of the database, every text value of every row. */
async function search(): Promise<{ table: string; needle: string; row: Record<string, unknown> }[]> {
  const client = server.fpa.db.client;
  const tables = await client.execute(`select name from sqlite_master where type = 'table'`);
  expect(tables.rows.length).toBeGreaterThan(30);
  const found: { table: string; needle: string; row: Record<string, unknown> }[] = [];
  for (const t of tables.rows) {
    const table = String(t.name);
    const rows = await client.execute(`select * from "${table.replaceAll('"', '""')}"`);
    for (const row of rows.rows) {
      for (const column of rows.columns) {
        const value = row[column];
        if (typeof value !== 'string') continue;
        for (const needle of NEEDLES) if (value.includes(needle)) found.push({ table, needle, row: { ...row } });
      }
    }
  }
  return found;
}

/** Which of the database's files hold these bytes (the WAL's older frames included). */
function filesHolding(text: string): string[] {
  return ['fpa.db', 'fpa.db-wal'].filter((name) => {
    const path = join(server.dir, name);
    return existsSync(path) && readFileSync(path).includes(Buffer.from(text));
  });
}

/** Waits until the log's followers (attendance days) have applied every event: the purge never rewrites one they have not. */
async function followersCaughtUp(): Promise<void> {
  const client = server.fpa.db.client;
  for (let i = 0; i < 200; i++) {
    const behind = await client.execute('select count(*) as n from fpa_log_followers where position < (select max(sequence) from fpa_events)');
    if (Number(behind.rows[0]!.n) === 0) return;
    await Bun.sleep(25);
  }
  throw new Error('the log followers never caught up');
}

beforeAll(async () => {
  server = await startTestServer(
    {
      TIME_ZONE: 'UTC',
      ATTENDANCE_TIME_ZONE: 'UTC',
      ENROLLEE_PIN_START: Number(PIN),
      RETENTION_PUNCHES_DAYS: 30,
      RETENTION_COMMANDS_DAYS: 30,
      RETENTION_DEVICE_EVENTS_DAYS: 30,
      RETENTION_DELIVERIES_DAYS: 30,
      // Nothing delivers: the endpoint below stays where it was created, its events unsent.
      WEBHOOK_WORKER: false,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: true,
    },
    { clock, employees: directory },
  );
});
afterAll(async () => {
  await server.close();
});

describe('retention past the horizon', () => {
  let hookId = '';
  let eventsBefore = 0;

  test('a person leaves traces in punches, days, commands, the event log and the audit log', async () => {
    const t = new SimulatedTerminal({ url: server.url, sn: 'ERASE1' });
    await t.handshake();
    await t.postOptions();
    expect((await server.admin.post('/devices/ERASE1/approve/', {})).status).toBe(200);
    await drain(t);
    const hook = await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/hook', events: ['attendance_day_changed'] });
    expect(hook.status).toBe(201);
    hookId = hook.body.id;

    const e = await server.admin.post('/enrollees/', { employee: EMPLOYEE });
    expect(e.status).toBe(201);
    expect(e.body.device_pin).toBe(PIN);
    const id = e.body.id as string;
    expect((await server.admin.patch(`/enrollees/${id}/`, { card: CARD })).status).toBe(200);
    expect((await server.admin.post(`/enrollees/${id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    await server.fpa.service.storeTemplate(id, 4, new Uint8Array(Buffer.from(syntheticTemplate(160), 'base64')), { algorithmVersion: '10', by: 'test' });
    const sent = await drain(t);
    expect(sent.some((c) => c.includes(`PIN=${PIN}`) && c.includes(NAME))).toBe(true);

    now = Date.parse('2026-01-10T18:00:00Z');
    expect((await t.punch(PUNCHES.slice(0, 2).map((at) => ({ pin: PIN, at: new Date(at) })))).body).toBe('OK:2');
    const imported = await server.admin.post('/punches/import', [{ employee: EMPLOYEE, at: PUNCHES[2] }]);
    expect(imported.body.imported).toBe(1);
    expect((await server.admin.post('/punches/manual', { enrollee: id, at: PUNCHES[3], reason: 'forgot to badge out' })).status).toBe(201);
    for (let i = 0; i < 100; i++) {
      const [row] = await server.fpa.db.orm.select({ n: sql<number>`count(*)` }).from(attendanceDays);
      if (row!.n >= 2) break;
      await Bun.sleep(50);
    }

    // A leave recorded for the day badged, then removed: the punches' `while_on_leave`
    // anomalies are announced (employee id and punch times), then their removal too.
    const leave = await server.admin.post('/leaves/', { enrollee: id, from: '2026-01-10', to: '2026-01-10', kind: 'sick' });
    expect(leave.status).toBe(201);
    expect((await server.admin.get('/anomalies/?from=2026-01-10&to=2026-01-10')).body.results).toHaveLength(2);
    expect((await server.admin.delete(`/leaves/${leave.body.id}/`)).status).toBe(204);
    expect((await server.admin.get('/anomalies/?from=2026-01-10&to=2026-01-10')).body.results).toEqual([]);

    now = Date.parse('2026-01-11T09:00:00Z');
    expect((await server.admin.delete(`/enrollees/${id}/`)).status).toBe(204);
    expect(await drain(t)).toContain(`DATA DELETE USERINFO PIN=${PIN}`);

    // The search finds them: in the tombstone, punches, days, commands, both logs.
    const tables = new Set((await search()).map((f) => f.table));
    for (const table of ['fpa_enrollees', 'fpa_punches', 'fpa_attendance_days', 'fpa_device_commands', 'fpa_events', 'fpa_audit_log']) {
      expect(tables).toContain(table);
    }
    // The deletion itself is announced without the name, PIN or card.
    const deleted = (await server.admin.get('/events/?type=enrollee_deleted')).body.results;
    expect(deleted).toHaveLength(1);
    expect(deleted[0].data).toEqual({ enrollee: { id, employee: EMPLOYEE }, by: 'admin@example.com' });
    eventsBefore = (await server.admin.get('/events/?limit=1000')).body.results.length;
  });

  test('the purge leaves nothing but what a webhook endpoint has not handed off yet', async () => {
    now = Date.parse('2026-03-15T03:30:00Z');
    await followersCaughtUp();
    const run = await server.admin.post('/jobs/purge-retention/run/');
    expect(run.status).toBe(200);
    expect(run.body.status).toBe('succeeded');
    expect(run.body.result.enrollees_scrubbed).toBe(1);
    expect(run.body.result.events_redacted).toBeGreaterThan(0);
    expect(run.body.result.audit_redacted).toBeGreaterThan(0);
    const left = await search();
    // Only the attendance days the endpoint still owes its receiver, as recorded.
    expect(left.length).toBeGreaterThan(0);
    for (const f of left) {
      expect(f.table).toBe('fpa_events');
      expect(f.row.type).toBe('attendance_day_changed');
    }
  });

  test('once nothing follows them any more, those go too; every event keeps its place', async () => {
    expect((await server.admin.delete(`/webhooks/${hookId}`)).status).toBe(204);
    await followersCaughtUp();
    const run = await server.admin.post('/jobs/purge-retention/run/');
    expect(run.body.result.events_redacted).toBeGreaterThan(0);
    expect(await search()).toEqual([]);
    // Nor in the files: secure delete zeroed the freed pages, and the WAL's older frames are gone.
    for (const needle of ['Wilhelmina', 'Oyelaran', EMPLOYEE, CARD]) expect({ needle, at: filesHolding(needle) }).toEqual({ needle, at: [] });
    const events = (await server.admin.get('/events/?limit=1000')).body.results as { sequence: number; type: string; data: Record<string, unknown> }[];
    expect(events.length).toBe(eventsBefore);
    const days = events.filter((e) => e.type === 'attendance_day_changed');
    expect(days.length).toBeGreaterThan(0);
    for (const e of days) expect(e.data).toMatchObject({ redacted: true, day: { enrollee: expect.any(String) } });
    // A third run has nothing left to do.
    const again = await server.admin.post('/jobs/purge-retention/run/');
    expect(again.body.result).toMatchObject({ events_redacted: 0, audit_redacted: 0, enrollees_scrubbed: 0 });
  });
});
