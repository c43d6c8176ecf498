/**
 * "Who changed what" from the audit log, as HR asks it: everything done to a person's attendance
 * (a leave, a shift assignment, a manual punch and its void) is found by the person's id, and a
 * schedule change says what it changed from.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../support/harness';
import { queryPlan } from '../support/query-plan';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server.close();
});

interface Entry {
  action: string;
  target_type: string;
  target_id: string | null;
  details: Record<string, unknown>;
}

describe('the audit log by person and by change', () => {
  test("a person's id finds the leave, the assignment (asked by PIN), the manual punch and its void", async () => {
    for (const id of ['S-4', 'S-5']) expect((await server.admin.post('/employees/', { id, name: `Person ${id}` })).status).toBe(201);
    const person = (await server.admin.post('/enrollees/', { employee: 'S-4' })).body as { id: string; device_pin: string };
    const other = (await server.admin.post('/enrollees/', { employee: 'S-5' })).body as { id: string };
    expect((await server.admin.post('/work-schedules/', { name: 'Night', start: '22:00', end: '06:00' })).status).toBe(201);
    expect((await server.admin.post('/leaves/', { enrollee: person.id, from: '2026-11-17', to: '2026-11-17', kind: 'sick' })).status).toBe(201);
    const assigned = await server.admin.post('/shift-assignments/', { schedule: 'Night', enrollee: person.device_pin, from: '2026-11-01' });
    expect(assigned.status).toBe(201);
    const punch = (await server.admin.post('/punches/manual/', { enrollee: person.id, at: '2026-11-18T16:30:00Z', reason: 'forgot to clock out' })).body as {
      id: string;
    };
    expect((await server.admin.post(`/punches/${punch.id}/void`, { reason: 'entered twice' })).status).toBe(200);
    await server.admin.post('/leaves/', { enrollee: other.id, from: '2026-11-20', to: '2026-11-20', kind: 'annual' });

    const found = (await server.admin.get(`/audit-log/?target=${person.id}&limit=50`)).body.results as Entry[];
    expect(found.map((e) => e.action).sort()).toEqual(['assignment.created', 'enrollee.created', 'leave.created', 'punch.manual', 'punch.voided']);
    // The assignment names the person by id, however they were asked for, and the schedule by name.
    expect(found.find((e) => e.action === 'assignment.created')?.details).toMatchObject({ enrollee: person.id, schedule: 'Night' });
    expect(found.every((e) => e.target_id === person.id || e.details.enrollee === person.id)).toBe(true);
  });

  test('a schedule change records the schedule and each field from what it was to what it is', async () => {
    const created = (await server.admin.post('/work-schedules/', { name: 'Day', start: '08:00', end: '16:30', grace_in: '5m' })).body as { id: string };
    expect((await server.admin.patch(`/work-schedules/${created.id}/`, { end: '17:00', grace_in: '300s' })).status).toBe(200);
    const [entry] = (await server.admin.get(`/audit-log/?target=${created.id}&action=schedule.updated`)).body.results as Entry[];
    // 300s is the 5 minutes it already was: not a change.
    expect(entry?.details).toEqual({ name: 'Day', changes: { end: { from: '16:30', to: '17:00' } } });
  });

  test('finding by person reads an index, not the whole log', async () => {
    const steps = await queryPlan(
      server.fpa.db.filePath,
      `select id from fpa_audit_log where target_id = ? or json_extract(details, '$.enrollee') = ? order by id desc limit 10`,
      ['x', 'x'],
    );
    expect(steps.some((s) => s.includes('fpa_audit_person'))).toBe(true);
    expect(steps.some((s) => /^SCAN fpa_audit_log$/.test(s))).toBe(false);
  });
});
