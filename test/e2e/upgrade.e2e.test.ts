/**
 * Upgrading a first-release database: its schema (migrations 0000 and 0001) holding a terminal,
 * an area, an employee, an enrollee, a punch, and a webhook endpoint with an outbox row and a
 * delivery attempt. The current server migrates it on start and serves what was there: the punch
 * with its new columns at their defaults, the enrollee without a card, the endpoint at the start
 * of the (new) event log with its clear signing secret encrypted, and the old delivery attempt
 * under its message id.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InValue } from '@libsql/client';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { MIGRATIONS_FOLDER, openDatabase } from '../../src/platform/db/client';
import { startTestServer, type TestServer, tempDir } from '../support/harness';

const FIRST_RELEASE_MIGRATIONS = 2;
const tmp = tempDir('fpa-upgrade-');
let server: TestServer;

/** The migrations folder as the first release shipped it: the journal's first two entries. */
function firstReleaseMigrations(): string {
  const folder = join(tmp.dir, 'first-release-migrations');
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: unknown[] };
  journal.entries = journal.entries.slice(0, FIRST_RELEASE_MIGRATIONS);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

beforeAll(async () => {
  const db = await openDatabase({ url: `file:${join(tmp.dir, 'fpa.db')}` });
  await migrate(db.orm, { migrationsFolder: firstReleaseMigrations() });
  const now = Date.parse('2026-10-01T08:00:00Z');
  const rows: [string, Record<string, InValue>][] = [
    ['fpa_areas', { id: 'area-1', name: 'default', created_at: now }],
    [
      'fpa_devices',
      {
        id: 'dev-1',
        serial_number: 'OLD00001',
        name: 'Front door',
        status: 'approved',
        time_zone: 'Europe/Berlin',
        algorithm_version: '10',
        created_at: now,
        updated_at: now,
      },
    ],
    ['fpa_device_areas', { device_id: 'dev-1', area_id: 'area-1' }],
    ['fpa_employees', { id: 'E-OLD', name: 'Old Timer', active: 1, created_at: now }],
    [
      'fpa_enrollees',
      {
        id: '5b1f8e2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
        employee_key: 'E-OLD',
        device_pin: '1',
        display_name: 'Old Timer',
        status: 'active',
        created_at: now,
        updated_at: now,
      },
    ],
    ['fpa_enrollee_areas', { enrollee_id: '5b1f8e2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b', area_id: 'area-1' }],
    [
      'fpa_punches',
      {
        id: '0f9e8d7c-6b5a-4948-8776-655443322110',
        device_id: 'dev-1',
        device_serial: 'OLD00001',
        device_pin: '1',
        enrollee_id: '5b1f8e2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
        employee_key: 'E-OLD',
        punched_at: now,
        local_time: '2026-10-01 10:00:00',
        utc_offset_minutes: 120,
        state: 0,
        verify_type: 1,
        work_code: '0',
        raw: '1\t2026-10-01 10:00:00\t0\t1\t0',
        flags: '[]',
        received_at: now,
      },
    ],
    [
      'fpa_webhook_endpoints',
      {
        id: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d',
        url: 'https://payroll.example.com/hook',
        secret: 'whsec_old',
        events: '["punch_received"]',
        active: 0,
        disabled_reason: 'disabled before the upgrade',
        created_by: 'admin@example.com',
        created_at: now,
      },
    ],
    [
      'fpa_webhook_outbox',
      {
        id: 'msg_old',
        endpoint_id: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d',
        event_type: 'punch_received',
        payload: '{}',
        status: 'delivered',
        next_attempt_at: now,
        created_at: now,
      },
    ],
    [
      'fpa_webhook_deliveries',
      { outbox_id: 'msg_old', endpoint_id: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d', attempt: 1, status_code: 200, duration_ms: 12, created_at: now },
    ],
  ];
  for (const [table, values] of rows) {
    const columns = Object.keys(values);
    await db.client.execute({
      sql: `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      args: Object.values(values),
    });
  }
  await db.close();
  server = await startTestServer({}, { dir: tmp.dir });
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

describe('a first-release database', () => {
  test('is migrated on start and ready', async () => {
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    const applied = await server.fpa.db.client.execute('select count(*) as n from __drizzle_migrations');
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
    expect(Number(applied.rows[0]!.n)).toBe(journal.entries.length);
  });

  test('keeps its terminal, people and punches, with the new fields at their defaults', async () => {
    const device = await server.admin.get('/devices/OLD00001/');
    expect(device.status).toBe(200);
    expect(device.body).toMatchObject({ serial_number: 'OLD00001', name: 'Front door', status: 'approved', areas: ['default'] });
    const people = await server.admin.get('/enrollees/');
    expect(people.body.results).toEqual([expect.objectContaining({ employee: 'E-OLD', device_pin: '1', card: null })]);
    const punches = await server.admin.get('/punches/');
    expect(punches.body.results).toEqual([
      expect.objectContaining({ sequence: 1, employee: 'E-OLD', device: 'OLD00001', source: 'device', voided: false, punched_at: '2026-10-01T08:00:00.000Z' }),
    ]);
  });

  test('keeps its webhook endpoint (at the start of the event log) and its delivery attempts', async () => {
    const endpoint = await server.admin.get('/webhooks/7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d/');
    expect(endpoint.status).toBe(200);
    expect(endpoint.body).toMatchObject({ active: false, events: ['punch_received'], position: 0 });
    const deliveries = await server.admin.get('/webhooks/7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d/deliveries/');
    expect(deliveries.body.results).toEqual([expect.objectContaining({ message_id: 'msg_old', attempt: 1, status_code: 200, count: 1 })]);
  });

  test('its webhook secret, stored in clear by the first release, is encrypted at start-up and gone from the file and the WAL', async () => {
    const rs = await server.fpa.db.client.execute("select secret from fpa_webhook_endpoints where id = '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d'");
    expect(String(rs.rows[0]!.secret)).toMatch(/^sealed1:/);
    for (const name of ['fpa.db', 'fpa.db-wal']) {
      const path = join(tmp.dir, name);
      if (existsSync(path)) expect(readFileSync(path).includes('whsec_old')).toBe(false);
    }
  });
});
