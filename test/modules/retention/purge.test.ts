import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq, lt, type SQL, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import {
  auditLog,
  deviceCommands,
  deviceEvents,
  deviceUserDepartures,
  enrollmentSessions,
  punches,
  stagedTemplates,
  templates,
  webhookDeliveries,
  webhookMessages,
} from '../../../src/app/schema';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { createPeople, dayOf, linesAt, type Person, terminal, upload } from '../../support/attendance';
import { startTestServer, type TestServer } from '../../support/harness';

const DAY = 86_400_000;
const T = Date.parse('2026-06-01T00:00:00Z');
// Cutoffs at T for the limits below; a row exactly at its cutoff is just inside the limit.
const PUNCH_CUTOFF = T - 30 * DAY; // 2026-05-02T00:00Z
const COMMAND_CUTOFF = T - 10 * DAY;
const DELIVERY_CUTOFF = T - 7 * DAY;
const EVENT_CUTOFF = T - 5 * DAY;
const DEACTIVATED_CUTOFF = T - 20 * DAY;

let now = Date.parse('2026-05-01T00:00:00Z');
let server: TestServer;
let device: DeviceRow;
let people: Record<string, Person>;

const count = async (table: SQLiteTable, where?: SQL): Promise<number> => {
  const [row] = await server.fpa.db.orm.select({ n: sql<number>`count(*)` }).from(table).where(where);
  return row!.n;
};

beforeAll(async () => {
  server = await startTestServer(
    {
      TIME_ZONE: 'UTC',
      RETENTION_PUNCHES_DAYS: 30,
      RETENTION_COMMANDS_DAYS: 10,
      RETENTION_DELIVERIES_DAYS: 7,
      RETENTION_DEVICE_EVENTS_DAYS: 5,
      RETENTION_TEMPLATES_AFTER_DEACTIVATION: '20d',
    },
    { clock: { now: () => now } },
  );
  const svc = server.fpa.service;
  people = await createPeople(server, ['X', 'Y', 'Z']);
  device = await terminal(server, 'RET0001');
  await svc.approveDevice('RET0001', { by: 'admin' });
  for (const who of ['X', 'Y', 'Z']) {
    await svc.giveConsent(people[who]!.id, { version: 'v1', method: 'paper', by: 'admin' });
    await svc.storeTemplate(people[who]!.id, 1, crypto.getRandomValues(new Uint8Array(600)), { algorithmVersion: '10', by: 'admin' });
  }
  // X is deactivated 1 ms longer than the limit, Y exactly as long as the limit.
  now = DEACTIVATED_CUTOFF - 1;
  await server.admin.patch(`/enrollees/${people.X!.id}/`, { active: false });
  now = DEACTIVATED_CUTOFF;
  await server.admin.patch(`/enrollees/${people.Y!.id}/`, { active: false });
  now = T;

  // Uploaded when they were recent: at T the oldest is past retention and would not be stored again.
  now = Date.parse('2026-05-31T10:00:00Z');
  await upload(server, device, linesAt('UTC', people.Z!.pin, '2026-05-01 23:59:59', '2026-05-02 00:00:00', '2026-05-31 09:00:00'));
  now = T;

  await server.fpa.db.write(async ({ tx }) => {
    const command = (status: 'pending' | 'sent' | 'succeeded' | 'expired', createdAt: number, completedAt: number | null) => ({
      deviceId: device.id,
      kind: 'check' as const,
      payload: {},
      status,
      createdAt,
      completedAt,
      notBefore: createdAt,
      expiresAt: createdAt + 365 * DAY,
    });
    await tx.insert(deviceUserDepartures).values([
      { deviceId: device.id, enrolleeId: people.X!.id, leftAt: PUNCH_CUTOFF - 1 }, // purged: decides only punches before it
      { deviceId: device.id, enrolleeId: people.Y!.id, leftAt: PUNCH_CUTOFF }, // kept
    ]);
    await tx.insert(deviceCommands).values([
      command('succeeded', COMMAND_CUTOFF - DAY, COMMAND_CUTOFF - 1), // purged
      command('succeeded', COMMAND_CUTOFF - DAY, COMMAND_CUTOFF), // kept
      command('expired', COMMAND_CUTOFF - 1, null), // purged
      command('pending', Date.parse('2020-01-01'), null), // never purged
      command('sent', Date.parse('2020-01-01'), null), // never purged
    ]);
    await tx.insert(webhookDeliveries).values([
      { messageId: 'o1', endpointId: 'e1', attempt: 1, statusCode: 200, durationMs: 5, createdAt: DELIVERY_CUTOFF - 1 },
      { messageId: 'o2', endpointId: 'e1', attempt: 1, statusCode: 200, durationMs: 5, createdAt: DELIVERY_CUTOFF },
    ]);
    const message = (sequence: number, status: 'pending' | 'delivered' | 'dead', createdAt: number, deliveredAt: number | null) => ({
      endpointId: 'e1',
      eventSequence: sequence,
      eventId: `evt_${sequence}`,
      eventType: 'punch_received',
      eventAt: createdAt,
      status,
      nextAttemptAt: createdAt,
      createdAt,
      deliveredAt,
    });
    await tx
      .insert(webhookMessages)
      .values([
        message(1, 'delivered', DELIVERY_CUTOFF - DAY, DELIVERY_CUTOFF - 1),
        message(2, 'delivered', DELIVERY_CUTOFF - DAY, DELIVERY_CUTOFF),
        message(3, 'dead', Date.parse('2020-01-01'), null),
        message(4, 'pending', Date.parse('2020-01-01'), null),
      ]);
  });
  // More old device events than one purge batch holds.
  for (let i = 0; i < 12; i++) {
    await server.fpa.db.write(({ tx }) =>
      tx
        .insert(deviceEvents)
        .values(Array.from({ length: 1000 }, (_, j) => ({ deviceId: device.id, kind: 'test', message: `old ${i}:${j}`, createdAt: EVENT_CUTOFF - 1 - j }))),
    );
  }
  await server.fpa.db.write(({ tx }) =>
    tx.insert(deviceEvents).values({ deviceId: device.id, kind: 'test', message: 'at the cutoff', createdAt: EVENT_CUTOFF }),
  );
  // An agent session abandoned past its lifetime, still holding a staged upload.
  await server.fpa.db.write(async ({ tx }) => {
    await tx.insert(enrollmentSessions).values({
      id: 'abandoned',
      kind: 'agent',
      enrolleeId: people.Z!.id,
      agentId: 'agent-1',
      fingersRequested: [2],
      fingersCaptured: [],
      status: 'in_progress',
      createdBy: 'admin',
      createdAt: T - 2 * DAY,
      expiresAt: T - DAY,
      updatedAt: T - 2 * DAY,
    });
    await tx.insert(stagedTemplates).values({
      sessionId: 'abandoned',
      fingerIndex: 2,
      algorithmVersion: '10',
      ciphertext: Buffer.from(crypto.getRandomValues(new Uint8Array(64))),
      keyId: 'k',
      sizeBytes: 40,
      revision: 1,
      createdAt: T - 2 * DAY,
    });
  });
});
afterAll(async () => {
  await server.close();
});

describe('purge-retention', () => {
  test('removes exactly what is past each limit, in batches, and audits the counts', async () => {
    const oldEvents = await count(deviceEvents, lt(deviceEvents.createdAt, EVENT_CUTOFF));
    expect(oldEvents).toBeGreaterThan(12_000);
    expect(await dayOf(server, 'Z', '2026-05-01')).not.toBeNull();
    // Reading days and anomalies catches the log's followers up (the background steps wait for
    // a quiet moment): the purge never rewrites an event one of them has not applied.
    expect((await server.admin.get('/anomalies/')).status).toBe(200);

    const run = await server.admin.post('/jobs/purge-retention/run/');
    expect(run.status).toBe(200);
    expect(run.body.status).toBe('succeeded');
    // Commands: the two seeded ones, and the unsent template commands of X and Y, superseded
    // at their deactivation (before the cutoff).
    const counts = {
      punches: 1,
      attendance_days: 1,
      device_commands: 4,
      webhook_deliveries: 1,
      webhook_messages: 1,
      device_events: oldEvents,
      templates: 1,
      sessions_expired: 1,
      // Nobody was deleted.
      enrollees_scrubbed: 0,
      employees_erased: 0,
      // Recorded on 1 May, before the punch cutoff: the three enrollee_created events, and the
      // attendance_day_changed of Z's purged 1 May.
      events_redacted: 4,
      // Recorded on 1 May: per person, employee.created, enrollee.created, consent given and template stored.
      audit_redacted: 12,
      // Recorded 31 days ago at most: within RETENTION_EVENTS_DAYS (90).
      events_purged: 0,
      deletion_proofs: 0,
      anomalies: 0,
      replaced_databases: 0,
    };
    expect(run.body.result).toEqual(counts);
    // The abandoned session's staged upload is gone with it.
    expect(await count(stagedTemplates)).toBe(0);

    // Punches and days: the one a second before the cutoff (and its day) went; the rest stayed.
    const left = await server.fpa.db.orm.select({ at: punches.punchedAt }).from(punches).orderBy(punches.punchedAt);
    expect(left.map((p) => p.at)).toEqual([PUNCH_CUTOFF, Date.parse('2026-05-31T09:00:00Z')]);
    expect(await dayOf(server, 'Z', '2026-05-01')).toBeNull();
    expect(await dayOf(server, 'Z', '2026-05-02')).toMatchObject({ punch_count: 1 });

    // Commands: finished ones past the limit went; unfinished ones stay whatever their age.
    const kinds = await server.fpa.db.orm
      .select({ status: deviceCommands.status, completedAt: deviceCommands.completedAt })
      .from(deviceCommands)
      .where(eq(deviceCommands.kind, 'check'));
    expect(kinds.map((c) => c.status).sort()).toEqual(['pending', 'sent', 'succeeded']);
    expect(kinds.find((c) => c.status === 'succeeded')!.completedAt).toBe(COMMAND_CUTOFF);

    // Webhooks: old attempts and message rows delivered before the cutoff went; pending and
    // dead rows are never purged (a dead one is what `recover` sends again).
    expect(await count(webhookDeliveries)).toBe(1);
    const rows = await server.fpa.db.orm.select({ id: webhookMessages.eventId }).from(webhookMessages);
    expect(rows.map((o) => o.id).sort()).toEqual(['evt_2', 'evt_3', 'evt_4']);

    expect(await count(deviceEvents, lt(deviceEvents.createdAt, EVENT_CUTOFF))).toBe(0);
    expect(await count(deviceEvents, eq(deviceEvents.message, 'at the cutoff'))).toBe(1);

    // When users left terminals: a departure before the punch cutoff went, one at it stayed.
    const departures = await server.fpa.db.orm.select({ enrollee: deviceUserDepartures.enrolleeId }).from(deviceUserDepartures);
    expect(departures.map((d) => d.enrollee)).toEqual([people.Y!.id]);

    // Templates: X (deactivated 1 ms too long) lost its template; the terminal that was to hold
    // it never received anything of X (it has not answered the query of its users, so X's
    // commands there waited, and were closed at the deactivation): it owes no delete of X.
    // Y (exactly at the limit) and the active Z kept theirs.
    const owners = await server.fpa.db.orm.select({ enrollee: templates.enrolleeId }).from(templates);
    expect(owners.map((o) => o.enrollee).sort()).toEqual([people.Y!.id, people.Z!.id].sort());
    const deletes = await server.fpa.db.orm
      .select({ kind: deviceCommands.kind, payload: deviceCommands.payload })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.status, 'pending'), eq(deviceCommands.deviceId, device.id)));
    expect(deletes.filter((d) => (d.payload as { pin?: string }).pin === people.X!.pin).map((d) => d.kind)).toEqual([]);

    const audits = await server.fpa.db.orm.select().from(auditLog).where(eq(auditLog.action, 'retention.purged'));
    expect(audits).toHaveLength(1);
    expect(audits[0]!.details).toEqual(counts);
  });

  test('a second run finds nothing more to purge', async () => {
    const run = await server.admin.post('/jobs/purge-retention/run/');
    expect(run.body.result).toEqual({
      deletion_proofs: 0,
      anomalies: 0,
      punches: 0,
      attendance_days: 0,
      device_commands: 0,
      webhook_deliveries: 0,
      webhook_messages: 0,
      device_events: 0,
      templates: 0,
      sessions_expired: 0,
      enrollees_scrubbed: 0,
      employees_erased: 0,
      events_redacted: 0,
      audit_redacted: 0,
      events_purged: 0,
      replaced_databases: 0,
    });
    expect(run.body.summary).toBe(
      'purge-retention succeeded: punches=0 attendance_days=0 device_commands=0 webhook_deliveries=0 webhook_messages=0 device_events=0 templates=0 sessions_expired=0 enrollees_scrubbed=0 employees_erased=0 events_redacted=0 audit_redacted=0 events_purged=0 deletion_proofs=0 anomalies=0 replaced_databases=0',
    );
  });

  test('a purged punch that the terminal sends again is acknowledged and not stored again', async () => {
    const before = await count(punches);
    const again = await upload(server, device, linesAt('UTC', people.Z!.pin, '2026-05-01 23:59:59', '2026-05-31 09:00:00'));
    expect(again).toMatchObject({ inserted: 0, duplicates: 1, pastRetention: 1 });
    expect(await count(punches)).toBe(before);
    expect(await dayOf(server, 'Z', '2026-05-01')).toBeNull();
  });

  test('limits of 0 keep everything', async () => {
    const keep = await startTestServer(
      {
        RETENTION_PUNCHES_DAYS: 0,
        RETENTION_COMMANDS_DAYS: 0,
        RETENTION_DELIVERIES_DAYS: 0,
        RETENTION_DEVICE_EVENTS_DAYS: 0,
        RETENTION_TEMPLATES_AFTER_DEACTIVATION: 0,
      },
      { clock: { now: () => Date.parse('2040-01-01T00:00:00Z') } },
    );
    try {
      const [person] = Object.values(await createPeople(keep, ['K']));
      await upload(keep, await terminal(keep, 'KEEP001'), linesAt('UTC', person!.pin, '2001-01-01 09:00:00'));
      const run = await keep.fpa.jobs.run('purge-retention');
      expect(run.status).toBe('succeeded');
      expect(Object.values(run.result).every((n) => n === 0)).toBe(true);
      expect(await dayOf(keep, 'K', '2001-01-01')).toMatchObject({ punch_count: 1 });
    } finally {
      await keep.close();
    }
  });
});
