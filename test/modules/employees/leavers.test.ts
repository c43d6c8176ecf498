/**
 * A leaver taken out of the built-in employee directory. The owner imports `S07,Greta
 * Hoffmann-Bäcker,,`, Greta works a day, leaves and is deleted: her employee is deactivated
 * (`PATCH employees/{id}/`, audited), and an inactive employee is neither offered as "not enrolled
 * yet" (`?enrolled=false&active=true`) nor enrolled or imported again until reactivated; a person
 * of theirs cannot be made active again either. Deactivating is refused while a person of theirs
 * is active; erasing (`DELETE employees/{id}/`) while one is enrolled. Erased, her name leaves the
 * directory, and the timesheet of the day she worked still names her (from her person's record).
 * Past the retention horizon, an inactive employee nobody is enrolled for is erased by
 * purge-retention, and the audit entries about her lose her employee key. A host's own directory
 * is the host's to change: 409. Real server, real libSQL file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { EmployeeDirectory } from '../../../src/modules/employees';
import type { Clock } from '../../../src/platform/runtime';
import { clientAs, startTestServer, type TestServer } from '../../support/harness';

let now = Date.parse('2026-03-02T18:00:00Z');
const clock: Clock = { now: () => now };
let server: TestServer;

const GRETA = 'Greta Hoffmann-Bäcker';

async function postCsv(path: string, csv: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.admin.base}${path}`, { method: 'POST', headers: { ...server.admin.headers, 'content-type': 'text/csv' }, body: csv });
  return { status: res.status, body: await res.json() };
}

const ids = (res: { body: { results: { id: string }[] } }) => res.body.results.map((e) => e.id);

/** The enrollee enrolled for an employee now (not deleted). */
async function personOf(employee: string): Promise<{ id: string; status: string }> {
  const res = await server.admin.get(`/enrollees/?search=${encodeURIComponent(employee)}`);
  const found = (res.body.results as { id: string; employee: string; status: string }[]).find((e) => e.employee === employee);
  if (!found) throw new Error(`nobody enrolled for ${employee}`);
  return found;
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC', ATTENDANCE_TIME_ZONE: 'UTC', RETENTION_PUNCHES_DAYS: 30, AREAS_CREATED_ON_USE: true }, { clock });
});
afterAll(async () => {
  await server?.close();
});

describe('a leaver in the built-in directory', () => {
  let greta = '';

  test('imported, she works a day; deleted and deactivated, she is no longer offered as not enrolled yet', async () => {
    const imported = await postCsv('/employees/import/', 'id,name,areas,card\r\nS07,Greta Hoffmann-Bäcker,,\r\n');
    expect(imported).toMatchObject({ status: 200, body: { created: 1, errors: [] } });
    greta = (await personOf('S07')).id;
    const punches = await postCsv('/punches/import/', 'employee,at,state\r\nS07,2026-03-02T08:00:00Z,0\r\nS07,2026-03-02T16:00:00Z,1\r\n');
    expect(punches.body.imported).toBe(2);

    expect((await server.admin.delete(`/enrollees/${greta}/`)).status).toBe(204);
    // Deleted, not deactivated: she is offered again, as before (the API's delete leaves the directory alone).
    expect(ids(await server.admin.get('/employees/?enrolled=false&active=true'))).toEqual(['S07']);

    now += 60_000;
    const off = await server.admin.patch('/employees/S07/', { active: false });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ id: 'S07', name: GRETA, active: false, created_at: expect.any(String), deactivated_at: new Date(now).toISOString() });
    expect((await server.admin.get('/employees/S07/')).body).toMatchObject({ active: false, deactivated_at: new Date(now).toISOString() });
    // The People page's "not enrolled yet" leaves her out; the inactive list has her.
    expect(ids(await server.admin.get('/employees/?enrolled=false&active=true'))).toEqual([]);
    expect(ids(await server.admin.get('/employees/?active=false'))).toEqual(['S07']);
    // Audited, with who did it.
    const audit = await server.admin.get('/audit-log/?target=S07');
    expect(audit.body.results.map((e: { action: string; actor: string }) => [e.action, e.actor])).toEqual([['employee.deactivated', 'admin@example.com']]);
    // Deactivating again changes nothing, and records nothing.
    expect((await server.admin.patch('/employees/S07/', { active: false })).body.deactivated_at).toBe(new Date(now).toISOString());
    expect((await server.admin.get('/audit-log/?target=S07')).body.results).toHaveLength(1);
  });

  test('inactive, she is enrolled or imported again only once reactivated', async () => {
    const enrol = await server.admin.post('/enrollees/', { employee: 'S07' });
    expect(enrol).toMatchObject({ status: 422, body: { error: { code: 'employee_inactive' } } });
    const again = await postCsv('/employees/import/', 'id,name\r\nS07,Greta Hoffmann-Bäcker\r\n');
    expect(again.body).toMatchObject({ created: 0, errors: [{ line: 2, message: 'the employee S07 is inactive in the directory' }] });
    // Adding her anew says why it cannot.
    const add = await server.admin.post('/employees/', { id: 'S07', name: GRETA });
    expect(add.status).toBe(409);
    expect(add.body.error.message).toContain('inactive: reactivate them with PATCH employees/{id}/');

    const on = await server.admin.patch('/employees/S07/', { active: true });
    expect(on.body).toMatchObject({ active: true, deactivated_at: null });
    expect(ids(await server.admin.get('/employees/?enrolled=false&active=true'))).toEqual(['S07']);
    const back = await server.admin.post('/enrollees/', { employee: 'S07' });
    expect(back.status).toBe(201);
    const actions = (await server.admin.get('/audit-log/?target=S07')).body.results.map((e: { action: string }) => e.action);
    expect(actions).toEqual(['employee.reactivated', 'employee.deactivated']);
  });

  test('added by hand (POST employees/), the entry is audited with who added it, as every later change of it is', async () => {
    const added = await server.admin.post('/employees/', { id: 'S08', name: 'Hanna Teig' });
    expect(added.status).toBe(201);
    const entries = (await server.admin.get('/audit-log/?target=S08')).body.results as { action: string; actor: string; details: unknown }[];
    expect(entries.map((e) => [e.action, e.actor, e.details])).toEqual([['employee.created', 'admin@example.com', { employee: 'S08' }]]);
    // Refused (the id is taken), nothing more is recorded.
    expect((await server.admin.post('/employees/', { id: 'S08', name: 'Hanna Teig' })).status).toBe(409);
    expect((await server.admin.get('/audit-log/?target=S08')).body.results).toHaveLength(1);
    expect((await server.admin.delete('/employees/S08/')).status).toBe(204);
  });

  test('deactivating is refused while a person of theirs is active; a deactivated person is not made active before the employee', async () => {
    const person = await personOf('S07');
    const refused = await server.admin.patch('/employees/S07/', { active: false });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', details: { employee: 'S07', reason: 'person_active' } });
    expect(refused.body.error.message).toBe('S07 is enrolled and active: deactivate or delete the person first (People), then the employee');

    expect((await server.admin.patch(`/enrollees/${person.id}/`, { active: false })).status).toBe(200);
    expect((await server.admin.patch('/employees/S07/', { active: false })).status).toBe(200);
    const reactivate = await server.admin.patch(`/enrollees/${person.id}/`, { active: true });
    expect(reactivate.status).toBe(422);
    expect(reactivate.body.error).toMatchObject({ code: 'employee_inactive', details: { employee: 'S07' } });
    expect((await server.admin.get(`/enrollees/${person.id}/`)).body.status).toBe('deactivated');
    expect((await server.admin.patch('/employees/S07/', { active: true })).status).toBe(200);
    expect((await server.admin.patch(`/enrollees/${person.id}/`, { active: true })).body.status).toBe('active');
  });

  test('erased, her name leaves the directory; the timesheet of the day she worked still names her', async () => {
    const person = await personOf('S07');
    const refused = await server.admin.delete('/employees/S07/');
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', details: { employee: 'S07', reason: 'person_enrolled' } });

    expect((await server.admin.delete(`/enrollees/${person.id}/`)).status).toBe(204);
    expect((await server.admin.delete('/employees/S07/')).status).toBe(204);
    expect((await server.admin.get('/employees/S07/')).status).toBe(404);
    expect((await server.admin.delete('/employees/S07/')).status).toBe(404);
    expect((await server.admin.get('/audit-log/?target=S07')).body.results[0]).toMatchObject({
      action: 'employee.erased',
      details: { employee: 'S07' },
    });
    const names = await server.fpa.db.client.execute({ sql: 'select count(*) as n from fpa_employees where name = ?', args: [GRETA] });
    expect(Number(names.rows[0]!.n)).toBe(0);

    // The day she worked: its days follow the punches (the log follower), then the report names her.
    let csv = '';
    const worked = `S07,${GRETA},2026-03-02,Mon,present,`;
    for (let i = 0; i < 100 && !csv.includes(worked); i++) {
      const res = await fetch(`${server.admin.base}/reports/timesheet.csv?employee=S07&from=2026-03-01&to=2026-03-03`, { headers: server.admin.headers });
      expect(res.status).toBe(200);
      csv = await res.text();
      if (!csv.includes(worked)) await Bun.sleep(50);
    }
    expect(csv).toContain(worked);
    const pdf = await fetch(`${server.admin.base}/reports/timesheet.pdf?employee=S07&from=2026-03-01&to=2026-03-03`, { headers: server.admin.headers });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-disposition')).toContain('S07');
    // Her deletion proofs still answer (the first person's and the second's).
    for (const id of [greta, person.id]) expect((await server.admin.get(`/enrollees/${id}/deletion-proof/`)).status).toBe(200);
    // Added again, she is someone new to the directory.
    expect((await server.admin.post('/employees/', { id: 'S07', name: GRETA })).status).toBe(201);
    expect((await server.admin.patch('/employees/S07/', { active: false })).status).toBe(200);
  });

  test('a caller limited to areas changes only the employees whose person is or was in them', async () => {
    expect((await server.admin.post('/employees/', { id: 'N1', name: 'Nora North' })).status).toBe(201);
    const nora = await server.admin.post('/enrollees/', { employee: 'N1', areas: ['north'] });
    const north = await clientAs(server, 'hr', ['north']);
    const south = await clientAs(server, 'hr', ['south']);
    expect((await north.delete(`/enrollees/${nora.body.id}/`)).status).toBe(204);
    // The console's next step after the deletion, by the same branch HR.
    expect((await south.patch('/employees/N1/', { active: false })).status).toBe(404);
    expect((await north.patch('/employees/N1/', { active: false })).body).toMatchObject({ id: 'N1', active: false });
    // The branch finds the entry it deactivated (its Inactive employees), the other does not.
    expect((await north.get('/employees/N1/')).body).toMatchObject({ id: 'N1', active: false });
    expect((await north.get('/employees/?active=false')).body.results.map((e: { id: string }) => e.id)).toContain('N1');
    expect((await south.get('/employees/N1/')).status).toBe(404);
    expect((await south.get('/employees/?active=false')).body.results.map((e: { id: string }) => e.id)).not.toContain('N1');
    expect((await south.delete('/employees/N1/')).status).toBe(404);
    // A manager reads people, and changes none.
    expect((await (await clientAs(server, 'manager')).patch('/employees/N1/', { active: true })).status).toBe(403);
    expect((await server.admin.patch('/employees/N1/', { active: 'no' })).status).toBe(400);
    expect((await server.admin.patch('/employees/N1/', { active: true, name: 'x' })).status).toBe(400);
  });

  test('past the horizon, retention erases the inactive employees nobody is enrolled for, and the audit log forgets their key', async () => {
    // Kept: one active, one inactive whose person is only deactivated.
    for (const [id, name] of [
      ['K1', 'Kept Active'],
      ['K2', 'Kept Deactivated'],
    ]) {
      expect((await server.admin.post('/employees/', { id, name })).status).toBe(201);
    }
    const k2 = await server.admin.post('/enrollees/', { employee: 'K2' });
    expect((await server.admin.patch(`/enrollees/${k2.body.id}/`, { active: false })).status).toBe(200);
    expect((await server.admin.patch('/employees/K2/', { active: false })).status).toBe(200);

    // Within the horizon: nothing is erased.
    now += 29 * 86_400_000;
    const early = await server.admin.post('/jobs/purge-retention/run/');
    expect(early.body.result.employees_erased).toBe(0);

    now += 2 * 86_400_000;
    const run = await server.admin.post('/jobs/purge-retention/run/');
    expect(run.body.status).toBe('succeeded');
    expect(run.body.result.employees_erased).toBe(2);
    const left = await server.admin.get('/employees/?limit=1000');
    expect(ids(left)).toEqual(['K1', 'K2']);
    const rows = await server.fpa.db.client.execute({ sql: 'select count(*) as n from fpa_employees where name in (?, ?)', args: [GRETA, 'Nora North'] });
    expect(Number(rows.rows[0]!.n)).toBe(0);
    // The audit entries about S07 and N1 keep what was done and when, not to whom.
    expect((await server.admin.get('/audit-log/?target=S07')).body.results).toEqual([]);
    const redacted = await server.fpa.db.client.execute("select target_type, target_id, details from fpa_audit_log where action like 'employee.%'");
    expect(redacted.rows.length).toBeGreaterThan(0);
    for (const row of redacted.rows)
      expect([row.target_type, row.target_id, JSON.parse(String(row.details))]).toEqual(['employee', null, { enrollee: null, redacted: true }]);
    expect((await server.admin.post('/jobs/purge-retention/run/')).body.result.employees_erased).toBe(0);
  });
});

describe('a host’s own directory', () => {
  let host: TestServer;
  const directory: EmployeeDirectory = {
    model: 'host.Person',
    lookupFields: ['id'],
    find: async (key) => (key === 'H1' ? { key, displayName: 'Hana Host', active: false } : null),
  };
  beforeAll(async () => {
    host = await startTestServer({}, { employees: directory });
  });
  afterAll(async () => {
    await host?.close();
  });

  test('is the host’s to change: PATCH and DELETE answer 409 saying so', async () => {
    for (const res of [await host.admin.patch('/employees/H1/', { active: true }), await host.admin.delete('/employees/H1/')]) {
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'conflict', details: { reason: 'host_directory' } });
      expect(res.body.error.message).toContain('employees come from the host application here');
    }
    expect((await host.admin.get('/employees/')).status).toBe(404);
    expect((await host.admin.post('/jobs/purge-retention/run/')).body.result.employees_erased).toBe(0);
  });
});
