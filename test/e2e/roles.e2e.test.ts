/**
 * Roles and areas through the real server (API.md, "People who sign in"): every role's allowed
 * and refused actions on every resource family (one request each: 403 `forbidden`, or anything
 * else), and that nothing outside a manager's areas leaks through a list, an id, a search, a
 * stream, a summary or an export. Callers are administrator JWTs with `fpa_role` and `fpa_areas`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DeviceRow } from '../../src/modules/devices/tables';
import { admsFetch } from '../support/adms';
import { linesAt, terminal, upload } from '../support/attendance';
import { type ApiClient, adminToken, clientAs, startTestServer, type TestServer } from '../support/harness';
import { openSocket } from '../support/sockets';

let server: TestServer;
let north: { id: string; pin: string };
let south: { id: string; pin: string };
let tn: DeviceRow;
let ts: DeviceRow;
let zone: string;
const DATE = '2025-01-06';

async function person(employee: string, areas: string[]) {
  expect((await server.admin.post('/employees/', { id: employee, name: `Person ${employee}` })).status).toBe(201);
  const r = await server.admin.post('/enrollees/', { employee, areas });
  expect(r.status).toBe(201);
  return { id: r.body.id as string, pin: r.body.device_pin as string };
}

beforeAll(async () => {
  server = await startTestServer();
  zone = server.fpa.settings.ATTENDANCE_TIME_ZONE;
  north = await person('E-NORTH', ['north']);
  south = await person('E-SOUTH', ['south']);
  tn = await terminal(server, 'TNORTH01', ['north']);
  ts = await terminal(server, 'TSOUTH01', ['south']);
  await upload(server, tn, linesAt(zone, north.pin, `${DATE} 09:00:00`, `${DATE} 17:00:00`));
  await upload(server, ts, linesAt(zone, south.pin, `${DATE} 09:00:00`, `${DATE} 17:00:00`));
  // A PIN nobody holds, at the south terminal: the terminal's own user, so south's.
  await upload(server, ts, linesAt(zone, '99999', `${DATE} 10:00:00`));
});
afterAll(async () => {
  await server.close();
});

const ROLES = ['owner', 'admin', 'hr', 'manager', 'installer', 'viewer'] as const;
type Letter = 'O' | 'A' | 'H' | 'M' | 'I' | 'V';
const LETTER: Record<(typeof ROLES)[number], Letter> = { owner: 'O', admin: 'A', hr: 'H', manager: 'M', installer: 'I', viewer: 'V' };

/**
 * One request per family, and who may make it, written from API.md's roles table (not read
 * from the policy file, so the two check each other). Destructive requests name ids that do
 * not exist: an allowed role gets 404, a refused one 403.
 */
const FAMILIES: { family: string; method: string; path: () => string; body?: unknown; may: string }[] = [
  { family: 'read people', method: 'GET', path: () => '/enrollees/', may: 'OAHMIV' },
  { family: 'read one person', method: 'GET', path: () => `/enrollees/${north.id}/`, may: 'OAHMIV' },
  { family: 'read employees', method: 'GET', path: () => '/employees/', may: 'OAHMIV' },
  { family: 'add people', method: 'POST', path: () => '/enrollees/', body: {}, may: 'OAH' },
  { family: 'change people', method: 'PATCH', path: () => '/enrollees/no-such-person/', body: {}, may: 'OAH' },
  { family: 'delete people', method: 'DELETE', path: () => '/enrollees/no-such-person/', may: 'OAH' },
  { family: 'add employees', method: 'POST', path: () => '/employees/', body: {}, may: 'OAH' },
  { family: 'consent', method: 'POST', path: () => '/enrollees/no-such-person/consent/', body: { version: 'v1', method: 'paper' }, may: 'OAH' },
  { family: 'templates', method: 'GET', path: () => `/enrollees/${north.id}/templates/`, may: 'OAHMIV' },
  { family: 'enrollment agents', method: 'GET', path: () => '/enrollment-agents/', may: 'OAH' },
  { family: 'enrollment sessions', method: 'GET', path: () => '/enrollment-sessions/', may: 'OAH' },
  { family: 'read terminals', method: 'GET', path: () => '/devices/', may: 'OAHIV' },
  { family: 'read one terminal', method: 'GET', path: () => `/devices/${tn.serialNumber}/`, may: 'OAHIV' },
  { family: 'approve terminals', method: 'POST', path: () => '/devices/NO-SUCH-SN/approve/', body: {}, may: 'OAI' },
  { family: 'terminal settings', method: 'PATCH', path: () => '/devices/NO-SUCH-SN/', body: {}, may: 'OAI' },
  { family: 'terminal commands', method: 'POST', path: () => '/devices/NO-SUCH-SN/commands/', body: { kind: 'info' }, may: 'OAI' },
  { family: 'terminal command list', method: 'GET', path: () => `/devices/${tn.serialNumber}/commands/`, may: 'OAHIV' },
  { family: 'resync', method: 'POST', path: () => '/devices/NO-SUCH-SN/resync/', body: {}, may: 'OAI' },
  { family: 'users on the terminal', method: 'GET', path: () => `/devices/${tn.serialNumber}/users/`, may: 'OAHIV' },
  { family: 'remove users from a terminal', method: 'DELETE', path: () => '/devices/NO-SUCH-SN/users/1/', may: 'OAI' },
  { family: 'communication keys', method: 'GET', path: () => `/devices/${tn.serialNumber}/keys/`, may: 'OAI' },
  { family: 'remove terminals', method: 'DELETE', path: () => '/devices/NO-SUCH-SN/', may: 'OAI' },
  { family: 'read punches', method: 'GET', path: () => '/punches/', may: 'OAHMV' },
  { family: 'poll punches', method: 'GET', path: () => '/punches/latest/', may: 'OAHMV' },
  {
    family: 'manual punches',
    method: 'POST',
    path: () => '/punches/manual/',
    body: { enrollee: 'nobody', at: `${DATE}T12:00:00Z`, reason: 'forgot' },
    may: 'OAHM',
  },
  { family: 'corrections (void)', method: 'POST', path: () => '/punches/no-such-punch/void/', body: { reason: 'double' }, may: 'OAHM' },
  { family: 'import punches', method: 'POST', path: () => '/punches/import/', body: [], may: 'OAH' },
  { family: 'read attendance', method: 'GET', path: () => '/attendance-days/', may: 'OAHMV' },
  { family: 'export', method: 'GET', path: () => `/attendance-days/export.csv?from=${DATE}&to=${DATE}`, may: 'OAHMV' },
  { family: 'summary', method: 'GET', path: () => `/attendance-summary/?from=${DATE}&to=${DATE}`, may: 'OAHMV' },
  { family: 'recompute', method: 'POST', path: () => '/attendance-days/recompute/', body: { from: DATE, to: DATE, enrollee: 'nobody' }, may: 'OAH' },
  { family: 'read the calendar', method: 'GET', path: () => `/calendar/?enrollee=${north.id}&from=${DATE}&to=${DATE}`, may: 'OAHMV' },
  { family: 'read holidays', method: 'GET', path: () => '/holidays/', may: 'OAHMV' },
  { family: 'change holidays', method: 'POST', path: () => '/holidays/', body: {}, may: 'OAH' },
  { family: 'leaves', method: 'POST', path: () => '/leaves/', body: {}, may: 'OAH' },
  { family: 'schedules', method: 'POST', path: () => '/work-schedules/', body: {}, may: 'OAH' },
  { family: 'shift assignments', method: 'POST', path: () => '/shift-assignments/', body: {}, may: 'OAH' },
  { family: 'read pay periods', method: 'GET', path: () => '/pay-periods/', may: 'OAHMV' },
  { family: 'lock pay periods', method: 'POST', path: () => '/pay-periods/no-such-period/lock/', may: 'OAH' },
  { family: 'the event log', method: 'GET', path: () => '/events/', may: 'OAHV' },
  { family: 'webhooks', method: 'GET', path: () => '/webhooks/', may: 'OA' },
  { family: 'add webhooks', method: 'POST', path: () => '/webhooks/', body: {}, may: 'OA' },
  { family: 'jobs', method: 'GET', path: () => '/jobs/', may: 'OA' },
  { family: 'run jobs', method: 'POST', path: () => '/jobs/no-such-job/run/', may: 'OA' },
  { family: 'audit log', method: 'GET', path: () => '/audit-log/', may: 'OA' },
  { family: 'health', method: 'GET', path: () => '/health/', may: 'OAHIV' },
  { family: 'read areas', method: 'GET', path: () => '/areas/', may: 'OAHMIV' },
  { family: 'change areas', method: 'POST', path: () => '/areas/', body: {}, may: 'OA' },
  { family: 'console links (they sign in an owner)', method: 'POST', path: () => '/console-links/', body: {}, may: 'O' },
  { family: 'make pay periods', method: 'POST', path: () => '/pay-periods/', body: {}, may: 'OAH' },
  { family: 'the API document', method: 'GET', path: () => '/docs/json', may: 'OAHMIV' },
];

describe('every role on every resource family', () => {
  const clients = new Map<string, ApiClient>();
  beforeAll(async () => {
    for (const role of ROLES) clients.set(role, await clientAs(server, role));
  });

  for (const role of ROLES) {
    test(`${role}: allowed families answer anything but 403, the others 403 forbidden`, async () => {
      const wrong: string[] = [];
      for (const f of FAMILIES) {
        const res = await clients.get(role)!.request(f.method, f.path(), f.body);
        const allowed = f.may.includes(LETTER[role]);
        const refused = res.status === 403 && res.body?.error?.code === 'forbidden';
        if (allowed === refused || res.status >= 500)
          wrong.push(`${f.family} (${f.method} ${f.path()}): ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
      }
      expect(wrong).toEqual([]);
    });
  }

  test('a refusal names the role and the action', async () => {
    const res = await clients.get('viewer')!.post('/enrollees/', {});
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', details: { role: 'viewer', action: 'POST enrollees/' } });
  });

  test('webhooks, jobs, the audit log and pay periods are not any one area’s: a caller limited to areas is refused them', async () => {
    const limited = await clientAs(server, 'admin', ['north']);
    for (const path of ['/webhooks/', '/jobs/', '/audit-log/']) {
      const res = await limited.get(path);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    const hr = await clientAs(server, 'hr', ['north']);
    expect((await hr.post('/pay-periods/', { from: '2025-01-01', to: '2025-01-31' })).status).toBe(403);
    expect((await hr.get('/pay-periods/')).status).toBe(200);
    expect((await limited.get('/enrollees/')).status).toBe(200);
  });

  test('a token whose fpa_role is not a role is refused', async () => {
    const token = await adminToken({ role: 'superuser' });
    const res = await fetch(`${server.url}/api/fingerprint/v1/enrollees/`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(403);
  });
});

describe('a manager of north sees nothing of south', () => {
  let manager: ApiClient;
  let hr: ApiClient;
  let installer: ApiClient;
  beforeAll(async () => {
    manager = await clientAs(server, 'manager', ['north']);
    hr = await clientAs(server, 'hr', ['north']);
    installer = await clientAs(server, 'installer', ['north']);
  });

  test('people: lists, ids, searches by employee and PIN, templates, consent', async () => {
    const list = await manager.get('/enrollees/?limit=1000');
    expect(list.status).toBe(200);
    expect(list.body.results.map((e: { id: string }) => e.id)).toEqual([north.id]);
    expect((await manager.get(`/enrollees/${south.id}/`)).status).toBe(404);
    expect((await manager.get(`/enrollees/${north.id}/`)).status).toBe(200);
    expect((await manager.get('/enrollees/?employee=E-SOUTH')).body.results).toEqual([]);
    expect((await manager.get(`/enrollees/?device_pin=${south.pin}`)).body.results).toEqual([]);
    expect((await manager.get(`/enrollees/${south.id}/templates/`)).status).toBe(404);
    expect((await manager.get('/employees/?limit=1000')).body.results.map((e: { id: string }) => e.id)).toEqual(['E-NORTH']);
    expect((await manager.get('/employees/E-SOUTH/')).status).toBe(404);
    expect((await hr.post(`/enrollees/${south.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(404);
    expect((await hr.patch(`/enrollees/${south.id}/`, { display_name: 'x' })).status).toBe(404);
    expect((await hr.delete(`/enrollees/${south.id}/`)).status).toBe(404);
    expect((await hr.get(`/enrollment-sessions/?enrollee=${south.id}`)).body.results).toEqual([]);
  });

  test('the calendar answers for a person of another area exactly as for one who does not exist', async () => {
    expect((await server.admin.post('/work-schedules/', { name: 'Roles day', start: '09:00', end: '17:00' })).status).toBe(201);
    // The answer with the value asked replaced: the same for a south person and a missing PIN.
    const asked = async (value: string) => {
      const answers = [
        await hr.get(`/calendar/?enrollee=${value}&from=2026-11-27&to=2026-11-27`),
        await hr.post('/leaves/', { enrollee: value, from: '2026-12-01', to: '2026-12-02', kind: 'vacation' }),
        await hr.get(`/leaves/?enrollee=${value}`),
        await hr.get(`/shift-assignments/?enrollee=${value}`),
        await hr.post('/shift-assignments/', { schedule: 'Roles day', enrollee: value, from: '2026-12-01' }),
      ];
      return answers.map((r) => [r.status, JSON.stringify(r.body.error ?? null, (k, v) => (k === 'request_id' ? undefined : v)).replaceAll(value, '…')]);
    };
    const south404 = await asked(south.pin);
    expect(south404.map(([status]) => status)).toEqual([404, 404, 404, 404, 404]);
    expect(south404).toEqual(await asked('99999'));
    expect(JSON.stringify(south404)).not.toContain(south.id);
  });

  test('a limited caller puts people and terminals only in its own areas (its own by default)', async () => {
    expect((await server.admin.post('/employees/', { id: 'E-NEW', name: 'New' })).status).toBe(201);
    const refused = await hr.post('/enrollees/', { employee: 'E-NEW', areas: ['south'] });
    expect(refused.status).toBe(403);
    const made = await hr.post('/enrollees/', { employee: 'E-NEW' });
    expect(made.status).toBe(201);
    expect(made.body.areas).toEqual(['north']);
    expect((await hr.patch(`/enrollees/${made.body.id}/`, { areas: ['north', 'south'] })).status).toBe(403);
    expect((await installer.post('/devices/', { serial_number: 'TSOUTH02', areas: ['south'] })).status).toBe(403);
    const terminalMade = await installer.post('/devices/', { serial_number: 'TNORTH02' });
    expect(terminalMade.status).toBe(201);
    expect(terminalMade.body.areas).toEqual(['north']);
  });

  test('a person or terminal also in another area keeps it when a limited caller sets its areas', async () => {
    expect((await server.admin.post('/employees/', { id: 'E-BOTH', name: 'Both Sides' })).status).toBe(201);
    const both = await server.admin.post('/enrollees/', { employee: 'E-BOTH', areas: ['north', 'south'] });
    expect(both.status).toBe(201);
    const person = await hr.patch(`/enrollees/${both.body.id}/`, { areas: ['north'] });
    expect(person.status).toBe(200);
    expect(person.body.areas).toEqual(['north', 'south']);
    expect((await server.admin.post('/devices/', { serial_number: 'TBOTH01', areas: ['north', 'south'] })).status).toBe(201);
    const terminal = await installer.patch('/devices/TBOTH01/', { areas: ['north'] });
    expect(terminal.status).toBe(200);
    expect(terminal.body.areas).toEqual(['north', 'south']);
    // An unlimited caller still sets them all.
    expect((await server.admin.patch('/devices/TBOTH01/', { areas: ['north'] })).body.areas).toEqual(['north']);
  });

  test('a limited caller deletes, disables or wipes only what is wholly its own; areas are made and renamed by callers of every area', async () => {
    expect((await server.admin.post('/employees/', { id: 'E-BOTH2', name: 'Both Again' })).status).toBe(201);
    const both = await server.admin.post('/enrollees/', { employee: 'E-BOTH2', areas: ['north', 'south'] });
    const deleted = await hr.delete(`/enrollees/${both.body.id}/`);
    expect(deleted.status).toBe(403);
    expect(deleted.body.error.details).toEqual({ outside: ['south'] });
    expect((await hr.patch(`/enrollees/${both.body.id}/`, { active: false })).status).toBe(403);
    expect((await server.admin.get(`/enrollees/${both.body.id}/`)).body.status).toBe('active');
    expect((await server.admin.post('/devices/', { serial_number: 'TBOTH02', areas: ['north', 'south'] })).status).toBe(201);
    expect((await installer.delete('/devices/TBOTH02/')).status).toBe(403);
    expect((await installer.post('/devices/TBOTH02/disable/')).status).toBe(403);
    expect((await installer.post('/devices/TBOTH02/commands/', { kind: 'clear_data', confirm: 'TBOTH02' })).status).toBe(403);
    expect((await server.admin.get('/devices/TBOTH02/')).body.status).toBe('approved');
    // Its own terminal: wiped and removed as before; other commands on a shared one as before.
    expect((await installer.post('/devices/TBOTH02/commands/', { kind: 'reboot' })).status).toBe(201);
    expect((await installer.post('/devices/TNORTH02/commands/', { kind: 'clear_data', confirm: 'TNORTH02' })).status).toBe(201);
    expect((await installer.delete('/devices/TNORTH02/')).status).toBe(204);
    // A north-only person: deleted by north's HR.
    expect((await server.admin.post('/employees/', { id: 'E-NORTH-GONE', name: 'Leaving North' })).status).toBe(201);
    const own = await hr.post('/enrollees/', { employee: 'E-NORTH-GONE' });
    expect((await hr.delete(`/enrollees/${own.body.id}/`)).status).toBe(204);
    // Areas: an admin of north neither makes, renames, describes nor removes one (its own neither).
    const northAdmin = await clientAs(server, 'admin', ['north'], 'north-admin@example.com');
    expect((await northAdmin.post('/areas/', { name: 'east' })).status).toBe(403);
    expect((await northAdmin.patch('/areas/south/', { description: 'x' })).status).toBe(403);
    expect((await northAdmin.patch('/areas/north/', { name: 'north-x' })).status).toBe(403);
    expect((await northAdmin.delete('/areas/south/')).status).toBe(403);
    expect((await server.admin.get('/areas/south/')).body.description ?? null).toBeNull();
  });

  test('a north terminal’s users: a conflict with a south person is told, not who; adopting reaches no south person, nor puts anyone in south', async () => {
    // The north terminal holds someone under the south person's PIN, and a user of its own.
    const users = `USER PIN=${south.pin}\tName=Same pin\tPri=0\tPasswd=\tCard=\tGrp=1\n` + 'USER PIN=77777\tName=Own user\tPri=0\tPasswd=\tCard=\tGrp=1\n';
    expect((await admsFetch(server.url, `/iclock/cdata?SN=${tn.serialNumber}&table=OPERLOG`, { body: users })).body).toStartWith('OK');
    const listed = (await hr.get(`/devices/${tn.serialNumber}/users/`)).body.results as { pin: string; conflict: unknown }[];
    expect(listed.find((u) => u.pin === south.pin)!.conflict).toEqual({ enrollee: null, employee: null });
    const ownerView = (await server.admin.get(`/devices/${tn.serialNumber}/users/`)).body.results as { pin: string; conflict: unknown }[];
    expect(ownerView.find((u) => u.pin === south.pin)!.conflict).toEqual({ enrollee: south.id, employee: 'E-SOUTH' });
    for (const caller of [hr, installer]) {
      // Not linked (nor their templates sent north), and not even their PIN told by a mismatch.
      const linked = await caller.post(`/devices/${tn.serialNumber}/users/${south.pin}/adopt/`, { enrollee: south.id });
      expect(linked.status).toBe(404);
      const mismatch = await caller.post(`/devices/${tn.serialNumber}/users/77777/adopt/`, { enrollee: south.id });
      expect(mismatch.status).toBe(404);
      expect(JSON.stringify(mismatch.body)).not.toContain(south.pin);
    }
    // Adopting the user under the south person's PIN as a north employee: refused (the PIN is
    // held), without naming who holds it.
    expect((await server.admin.post('/employees/', { id: 'E-NORTH-2', name: 'Second North' })).status).toBe(201);
    const held = await hr.post(`/devices/${tn.serialNumber}/users/${south.pin}/adopt/`, { employee: 'E-NORTH-2' });
    expect(held.status).toBe(409);
    expect(held.body.error.details).toEqual({ device_pin: south.pin });
    expect((await server.admin.post('/employees/', { id: 'E-OWN', name: 'Own User' })).status).toBe(201);
    const intoSouth = await installer.post(`/devices/${tn.serialNumber}/users/77777/adopt/`, { employee: 'E-OWN', areas: ['south'] });
    expect(intoSouth.status).toBe(403);
    const adopted = await installer.post(`/devices/${tn.serialNumber}/users/77777/adopt/`, { employee: 'E-OWN' });
    expect(adopted.status).toBe(201);
    expect(adopted.body.areas).toEqual(['north']);
    // Enrolling the south person's employee again: refused, without naming the south enrollee.
    const again = await hr.post('/enrollees/', { employee: 'E-SOUTH' });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toEqual({});
    expect((await server.admin.post('/enrollees/', { employee: 'E-SOUTH' })).body.error.details).toEqual({ enrollee: south.id });
  });

  test('a terminal of north and south: a north caller’s list of its users leaves out the south people on it', async () => {
    const shared = await terminal(server, 'TSHARED1', ['north', 'south']);
    // It answers the query of its users first (an empty terminal): what it reports later is the service's people.
    const asked = await admsFetch(server.url, `/iclock/getrequest?SN=${shared.serialNumber}`);
    const query = /C:(\d+):DATA QUERY USERINFO/.exec(asked.body)?.[1];
    expect(query).toBeDefined();
    expect((await admsFetch(server.url, `/iclock/devicecmd?SN=${shared.serialNumber}`, { body: `ID=${query}&Return=0&CMD=DATA\n` })).body).toStartWith('OK');
    const users = `USER PIN=${north.pin}\tName=Person E-NORTH\tPri=0\tPasswd=\tCard=\tGrp=1\nUSER PIN=${south.pin}\tName=Person E-SOUTH\tPri=0\tPasswd=\tCard=\tGrp=1\n`;
    expect((await admsFetch(server.url, `/iclock/cdata?SN=${shared.serialNumber}&table=OPERLOG`, { body: users })).body).toStartWith('OK');
    const all = (await server.admin.get(`/devices/${shared.serialNumber}/users/`)).body.results as { pin: string; enrollee: string | null }[];
    expect(all.map((u) => u.enrollee).sort()).toEqual([north.id, south.id].sort());
    const listed = await hr.get(`/devices/${shared.serialNumber}/users/`);
    expect(listed.body.results.map((u: { enrollee: string | null }) => u.enrollee)).toEqual([north.id]);
    expect(JSON.stringify(listed.body)).not.toContain('E-SOUTH');
    // Left out before the page is cut: a page of one is the north person, and the last page.
    const one = await hr.get(`/devices/${shared.serialNumber}/users/?limit=1`);
    expect(one.body).toEqual({ results: [expect.objectContaining({ enrollee: north.id })], next_cursor: null });
  });

  test('terminals: lists, ids, their commands, users and settings', async () => {
    const list = await hr.get('/devices/?limit=1000');
    expect(list.body.results.map((d: { serial_number: string }) => d.serial_number)).not.toContain(ts.serialNumber);
    expect(list.body.results.map((d: { serial_number: string }) => d.serial_number)).toContain(tn.serialNumber);
    for (const path of ['', 'commands/', 'users/']) expect((await hr.get(`/devices/${ts.serialNumber}/${path}`)).status).toBe(404);
    expect((await installer.get(`/devices/${ts.serialNumber}/keys/`)).status).toBe(404);
    expect((await installer.patch(`/devices/${ts.serialNumber}/`, { name: 'mine now' })).status).toBe(404);
    expect((await installer.post(`/devices/${ts.serialNumber}/commands/`, { kind: 'info' })).status).toBe(404);
    expect((await installer.post(`/devices/${ts.serialNumber}/resync/`, {})).status).toBe(404);
    expect((await installer.get(`/devices/${tn.serialNumber}/users/`)).status).toBe(200);
    // Health counts its own terminals only, and tells it nothing of webhooks or jobs.
    const health = (await hr.get('/health/')).body;
    const t = health.terminals;
    expect(t.online + t.offline + t.pending + t.disabled).toBe(list.body.results.length);
    const all = (await server.admin.get('/health/')).body.terminals;
    expect(all.online + all.offline + all.pending + all.disabled).toBeGreaterThan(list.body.results.length);
    expect(health.jobs).toEqual([]);
  });

  test('punches: list, by employee and terminal, polling, corrections', async () => {
    const all = await manager.get('/punches/?limit=1000');
    expect(all.status).toBe(200);
    const mine = all.body.results as { enrollee: string | null; device: string; id: string }[];
    expect(mine.length).toBe(2);
    expect(mine.every((p) => p.enrollee === north.id)).toBe(true);
    expect((await manager.get('/punches/?employee=E-SOUTH')).body.results).toEqual([]);
    expect((await manager.get(`/punches/?device=${ts.serialNumber}`)).body.results).toEqual([]);
    const latest = await manager.get('/punches/latest/?after=0&limit=1000');
    expect(latest.body.results.map((p: { enrollee: string | null }) => p.enrollee)).toEqual([north.id, north.id]);
    // The owner sees all five, the unknown PIN's too; a south punch by id is not there for the manager.
    const everything = (await server.admin.get('/punches/?limit=1000')).body.results as { id: string; enrollee: string | null; device_pin: string }[];
    expect(everything.length).toBe(5);
    const southPunch = everything.find((p) => p.enrollee === south.id)!;
    expect((await manager.post(`/punches/${southPunch.id}/void/`, { reason: 'no' })).status).toBe(404);
    expect((await manager.post('/punches/manual/', { enrollee: south.id, at: `${DATE}T12:00:00Z`, reason: 'forgot' })).status).toBe(404);
    const imported = await hr.post('/punches/import/', [{ employee: 'E-SOUTH', at: `${DATE}T12:30:00Z`, state: 0 }]);
    expect(imported.body).toMatchObject({ imported: 0, errors: [{ line: 1, message: 'no person of your areas has this employee ID' }] });
    // An hr of south sees the terminal's own user (a PIN nobody holds) through the terminal.
    const southHr = await clientAs(server, 'hr', ['south']);
    const seen = (await southHr.get('/punches/?limit=1000')).body.results as { device_pin: string }[];
    expect(seen.map((p) => p.device_pin).sort()).toEqual([south.pin, south.pin, '99999'].sort());
  });

  test('days: list, summary, export, recompute, calendar, leaves', async () => {
    const days = await manager.get(`/attendance-days/?from=${DATE}&to=${DATE}&limit=1000`);
    expect(days.status).toBe(200);
    expect(days.body.results.length).toBeGreaterThan(0);
    expect(days.body.results.every((d: { enrollee: string }) => d.enrollee === north.id)).toBe(true);
    expect((await manager.get(`/attendance-days/?employee=E-SOUTH&from=${DATE}&to=${DATE}`)).body.results).toEqual([]);
    const summary = await manager.get(`/attendance-summary/?from=${DATE}&to=${DATE}`);
    expect(summary.body.results.map((r: { employee: string }) => r.employee)).toEqual(['E-NORTH']);
    const csv = await fetch(`${manager.base}/attendance-days/export.csv?from=${DATE}&to=${DATE}`, { headers: manager.headers });
    const text = await csv.text();
    expect(csv.status).toBe(200);
    expect(text).toContain('E-NORTH');
    expect(text).not.toContain('E-SOUTH');
    // Asked by name, someone of another area is not found, as an employee who does not exist.
    const southCsv = await fetch(`${manager.base}/attendance-days/export.csv?from=${DATE}&to=${DATE}&employee=E-SOUTH`, { headers: manager.headers });
    expect(southCsv.status).toBe(404);
    expect((await manager.get(`/attendance-summary/?from=${DATE}&to=${DATE}&employee=E-SOUTH`)).status).toBe(404);
    expect((await manager.get(`/attendance-summary/?from=${DATE}&to=${DATE}&employee=E-NORTH`)).body.results).toHaveLength(1);
    expect((await hr.post('/attendance-days/recompute/', { from: DATE, to: DATE, enrollee: south.id })).status).toBe(404);
    expect((await manager.get(`/calendar/?enrollee=${south.id}&from=${DATE}&to=${DATE}`)).status).toBe(404);
    expect((await manager.get(`/calendar/?enrollee=${north.id}&from=${DATE}&to=${DATE}`)).status).toBe(200);
    expect((await server.admin.post('/leaves/', { enrollee: south.id, from: '2025-02-03', to: '2025-02-04', kind: 'vacation' })).status).toBe(201);
    expect((await manager.get('/leaves/')).body.results).toEqual([]);
    expect((await hr.post('/leaves/', { enrollee: south.id, from: '2025-02-05', to: '2025-02-05', kind: 'vacation' })).status).toBe(404);
  });

  test('events: the log leaves out south and what names nobody, and still moves on', async () => {
    const viewer = await clientAs(server, 'viewer', ['north']);
    const res = await viewer.get('/events/?after=0&limit=1000');
    expect(res.status).toBe(200);
    const everything = await server.admin.get('/events/?after=0&limit=1000');
    expect(res.body.last_sequence).toBe(everything.body.last_sequence);
    const text = JSON.stringify(res.body.results);
    expect(res.body.results.length).toBeGreaterThan(0);
    expect(text).not.toContain(south.id);
    expect(text).not.toContain(ts.serialNumber);
    expect(text).toContain(north.id);
  });

  test('areas: a limited caller sees its own', async () => {
    const areas = await manager.get('/areas/');
    expect(areas.body.results.map((a: { name: string }) => a.name)).toEqual(['north']);
    expect((await manager.get('/areas/south/')).status).toBe(404);
  });
});

/** A stream opened with a bearer token, collecting what it is sent. */
function subscribe(path: string, token: string) {
  return openSocket<Record<string, unknown>>(`${server.url.replace('http', 'ws')}/api/fingerprint/v1/${path}`, { authorization: `Bearer ${token}` });
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

describe('the streams filter by area', () => {
  test('punches/stream/ and events/stream/ carry a north caller only north', async () => {
    const managerToken = await adminToken({ sub: 'm@example.com', role: 'manager', areas: ['north'] });
    const viewerToken = await adminToken({ sub: 'v@example.com', role: 'viewer', areas: ['north'] });
    const ownerToken = await adminToken();
    const punches = await subscribe('punches/stream/', managerToken);
    const events = await subscribe('events/stream/?type=punch_received', viewerToken);
    const all = await subscribe('punches/stream/', ownerToken);
    await upload(server, ts, linesAt(zone, south.pin, '2025-01-07 09:00:00'));
    await upload(server, ts, linesAt(zone, '99999', '2025-01-07 09:05:00'));
    await upload(server, tn, linesAt(zone, north.pin, '2025-01-07 09:10:00'));
    await waitFor(() => all.received.length === 3 && punches.received.length >= 1 && events.received.length >= 1, 'the punches');
    await Bun.sleep(300);
    expect(punches.received.map((p) => p.enrollee)).toEqual([north.id]);
    expect(events.received.map((e) => (e.data as { punch: { enrollee: string } }).punch.enrollee)).toEqual([north.id]);
    for (const s of [punches, events, all]) s.ws.close();
  });

  test('an installer may not open the punch stream (no attendance)', async () => {
    const token = await adminToken({ sub: 'i@example.com', role: 'installer' });
    const res = await fetch(`${server.url}/api/fingerprint/v1/punches/stream/`, {
      headers: {
        upgrade: 'websocket',
        connection: 'Upgrade',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-version': '13',
        authorization: `Bearer ${token}`,
      },
    });
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('forbidden');
  });
});

describe('the calendar of a caller limited to areas', () => {
  test('holidays, weekends and shifts: it sees everyone’s and its own, changes only its own', async () => {
    const hr = await clientAs(server, 'hr', ['north']);
    const everyone = await server.admin.post('/holidays/', { date: '2025-05-01', name: 'Labour Day' });
    const southOnly = await server.admin.post('/holidays/', { date: '2025-06-01', name: 'South fair', areas: ['south'] });
    expect(everyone.status).toBe(201);
    expect(southOnly.status).toBe(201);
    const seen = (await hr.get('/holidays/')).body.results.map((x: { name: string }) => x.name);
    expect(seen).toContain('Labour Day');
    expect(seen).not.toContain('South fair');
    expect((await hr.get(`/holidays/${southOnly.body.id}/`)).status).toBe(404);
    expect((await hr.delete(`/holidays/${southOnly.body.id}/`)).status).toBe(404);
    // Everyone's holiday is seen but not its to change.
    expect((await hr.delete(`/holidays/${everyone.body.id}/`)).status).toBe(403);
    expect((await hr.post('/holidays/', { date: '2025-07-01', name: 'Far', areas: ['south'] })).status).toBe(403);
    const own = await hr.post('/holidays/', { date: '2025-07-02', name: 'North fair' });
    expect(own.status).toBe(201);
    expect(own.body.areas).toEqual(['north']);
    expect((await hr.patch(`/holidays/${own.body.id}/`, { areas: ['south'] })).status).toBe(403);
    expect((await hr.delete(`/holidays/${own.body.id}/`)).status).toBe(204);

    expect((await server.admin.post('/weekends/', { area: 'south', days: [5, 6] })).status).toBe(201);
    expect((await hr.get('/weekends/')).body.results).toEqual([]);
    expect((await hr.post('/weekends/', { area: 'south', days: [0] })).status).toBe(403);

    const schedule = await server.admin.post('/work-schedules/', { name: 'Day', start: '09:00', end: '17:00' });
    expect(schedule.status).toBe(201);
    const southShift = await server.admin.post('/shift-assignments/', { schedule: 'Day', area: 'south', from: '2025-01-01' });
    const southPerson = await server.admin.post('/shift-assignments/', { schedule: 'Day', enrollee: south.id, from: '2025-01-01' });
    expect(southShift.status).toBe(201);
    expect(southPerson.status).toBe(201);
    expect((await hr.get('/shift-assignments/')).body.results).toEqual([]);
    expect((await hr.delete(`/shift-assignments/${southShift.body.id}/`)).status).toBe(404);
    expect((await hr.post('/shift-assignments/', { schedule: 'Day', enrollee: south.id, from: '2025-01-01' })).status).toBe(404);
    expect((await hr.post('/shift-assignments/', { schedule: 'Day', area: 'south', from: '2025-01-01' })).status).toBe(403);
    const mine = await hr.post('/shift-assignments/', { schedule: 'Day', area: 'north', from: '2025-01-01' });
    expect(mine.status).toBe(201);
    expect((await hr.get('/shift-assignments/')).body.results.map((a: { id: string }) => a.id)).toEqual([mine.body.id]);
  });
});
