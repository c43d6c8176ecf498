/**
 * A caller limited to areas changes only what is wholly its own (README "Roles and areas"): API
 * keys of `north` against what `south` holds, through the real server.
 *
 * - A terminal's enrollment station takes anyone's fingerprints. An installer or admin of north
 *   turned NORTH001 into one (200), then a finger posted there for a south person's PIN replaced
 *   that person's template and went to SOUTH001: someone at north enrolled as a south employee.
 *   Turning it on or off is now for callers of every area only.
 * - A work schedule is everyone's to see, but changing it changes the days of everyone who works
 *   it. HR of north changed a schedule only south works (200, south's days changed), and its
 *   delete answered 409 naming south's assignment. Now 403 unless every assignment of it is
 *   north's own, naming nothing of south.
 * - A holiday for one person: a south person's PIN answered "holiday not found" where a PIN
 *   nobody holds answered "enrollee not found", telling north that the south person exists.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DeviceRow } from '../../src/modules/devices';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { linesAt, upload } from '../support/attendance';
import { ApiClient, startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

const DATE = '2025-01-06'; // a Monday
let server: TestServer;
let zone: string;
let northT: SimulatedTerminal;
let southT: SimulatedTerminal;
let northPerson: { id: string; device_pin: string };
let southPerson: { id: string; device_pin: string };
let bothPerson: { id: string; device_pin: string };
const callers: Record<'installer' | 'admin' | 'hr', ApiClient> = {} as Record<'installer' | 'admin' | 'hr', ApiClient>;

async function person(employee: string, areas: string[]) {
  expect((await server.admin.post('/employees/', { id: employee, name: `Person ${employee}` })).status).toBe(201);
  const made = await server.admin.post('/enrollees/', { employee, areas });
  expect(made.status).toBe(201);
  expect((await server.admin.post(`/enrollees/${made.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  return made.body as { id: string; device_pin: string };
}

/** An API key of this role limited to north, as a client. */
async function northKey(role: 'installer' | 'admin' | 'hr'): Promise<ApiClient> {
  const made = await server.admin.post('/api-keys/', { name: `${role} of north`, role, areas: ['north'] });
  expect(made.status).toBe(201);
  return new ApiClient(`${server.url}/api/fingerprint/v1`, { authorization: `Bearer ${made.body.key}` });
}

async function online(sn: string, areas: string[]): Promise<SimulatedTerminal> {
  const t = new SimulatedTerminal({ url: server.url, sn, biodata: true, fpVersion: '13.0' });
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${sn}/approve/`, { areas })).status).toBe(200);
  await drain(t);
  return t;
}

async function templatesOf(enrolleeId: string) {
  return (await server.admin.get(`/enrollees/${enrolleeId}/templates/`)).body.results as {
    finger_index: number;
    version: number;
    sync: { device: string; status: string }[];
  }[];
}

const deviceOf = (serial: string): Promise<DeviceRow> => server.fpa.service.devices.get(serial);

/** One person's attendance day on DATE, as payroll reads it. */
async function dayOf(enrolleeId: string) {
  const res = await server.admin.get(`/attendance-days/?enrollee=${enrolleeId}&from=${DATE}&to=${DATE}`);
  expect(res.status).toBe(200);
  return res.body.results[0] as { schedule: string | null; late_seconds: number; flags: string[] };
}

beforeAll(async () => {
  server = await startTestServer();
  zone = server.fpa.settings.ATTENDANCE_TIME_ZONE;
  northPerson = await person('E-NORTH', ['north']);
  southPerson = await person('E-SOUTH', ['south']);
  bothPerson = await person('E-BOTH', ['north', 'south']);
  northT = await online('NORTH001', ['north']);
  southT = await online('SOUTH001', ['south']);
  callers.installer = await northKey('installer');
  callers.admin = await northKey('admin');
  callers.hr = await northKey('hr');
});
afterAll(async () => {
  await server.close();
});

describe('a terminal’s enrollment station', () => {
  test('a north installer or admin may not turn NORTH001 into one (403, nothing of the request applied), so a finger posted there for a south PIN is refused', async () => {
    await drain(southT);
    expect((await southT.uploadTemplate(southPerson.device_pin, 1)).body).toBe('OK:1');
    const original = southT.templates.get(`${southPerson.device_pin}:1`)!.template;
    expect((await templatesOf(southPerson.id)).map((t) => t.version)).toEqual([1]);
    for (const caller of [callers.installer, callers.admin]) {
      const refused = await caller.patch('/devices/NORTH001/', { enrollment_station: true, name: 'Front gate' });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden', details: { field: 'enrollment_station' } });
    }
    expect((await server.admin.get('/devices/NORTH001/')).body).toMatchObject({ enrollment_station: false, name: null });
    // What the attack did next: someone's finger at NORTH001 under the south person's PIN.
    expect((await northT.uploadTemplate(southPerson.device_pin, 1, syntheticTemplate(140))).body).toBe('OK:1');
    const [kept] = await templatesOf(southPerson.id);
    expect(kept!.version).toBe(1);
    expect(kept!.sync.map((s) => s.device)).not.toContain('NORTH001');
    expect(await drain(southT)).toEqual([]);
    expect(southT.templates.get(`${southPerson.device_pin}:1`)!.template).toBe(original);
  });

  test('an administrator of every area makes it a station: a walk-up there of a south person is taken and reaches SOUTH001', async () => {
    const made = await server.admin.patch('/devices/NORTH001/', { enrollment_station: true });
    expect(made.status).toBe(200);
    expect(made.body.enrollment_station).toBe(true);
    await drain(northT);
    const template = syntheticTemplate(150);
    expect((await northT.uploadTemplate(southPerson.device_pin, 2, template)).body).toBe('OK:1');
    const second = (await templatesOf(southPerson.id)).find((t) => t.finger_index === 2);
    expect(second).toMatchObject({ version: 1 });
    expect(second!.sync).toEqual(expect.arrayContaining([expect.objectContaining({ device: 'SOUTH001', status: 'pending' })]));
    await drain(southT);
    expect(southT.templates.get(`${southPerson.device_pin}:2`)?.template).toBe(template);
  });

  test('north may not turn it off either; sending the value it has changes nothing and the rest of the request is applied', async () => {
    const refused = await callers.installer.patch('/devices/NORTH001/', { enrollment_station: false });
    expect(refused.status).toBe(403);
    expect((await server.admin.get('/devices/NORTH001/')).body.enrollment_station).toBe(true);
    const same = await callers.installer.patch('/devices/NORTH001/', { enrollment_station: true, name: 'Front gate' });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ enrollment_station: true, name: 'Front gate' });
    expect((await callers.installer.patch('/devices/NORTH001/', { name: 'North gate' })).status).toBe(200);
  });
});

describe('a work schedule someone outside north works', () => {
  const ids: Record<string, string> = {};
  const assignments: string[] = [];

  beforeAll(async () => {
    for (const name of ['South day', 'South area', 'Shared', 'North day', 'Unused']) {
      const made = await server.admin.post('/work-schedules/', { name, start: '09:00', end: '17:00', grace_in: '5m' });
      expect(made.status).toBe(201);
      ids[name] = made.body.id;
    }
    for (const body of [
      { schedule: 'South day', enrollee: southPerson.id },
      { schedule: 'South area', area: 'south' },
      { schedule: 'Shared', enrollee: bothPerson.id },
      { schedule: 'North day', enrollee: northPerson.id },
      { schedule: 'North day', area: 'north' },
    ]) {
      const made = await server.admin.post('/shift-assignments/', { ...body, from: '2025-01-01' });
      expect(made.status).toBe(201);
      assignments.push(made.body.id);
    }
    // Both punch in at 08:55, on time for a 09:00 start.
    await upload(server, await deviceOf('SOUTH001'), linesAt(zone, southPerson.device_pin, `${DATE} 08:55:00`, `${DATE} 17:00:00`));
    await upload(server, await deviceOf('NORTH001'), linesAt(zone, northPerson.device_pin, `${DATE} 08:55:00`, `${DATE} 17:00:00`));
    expect(await dayOf(southPerson.id)).toMatchObject({ schedule: 'South day', late_seconds: 0 });
    expect(await dayOf(northPerson.id)).toMatchObject({ schedule: 'North day', late_seconds: 0 });
  });

  test('HR of north may not change it (403, by id or name): the schedule and south’s days stay as they were', async () => {
    for (const path of [
      `/work-schedules/${ids['South day']}/`,
      '/work-schedules/South%20day/',
      `/work-schedules/${ids['South area']}/`,
      `/work-schedules/${ids.Shared}/`,
    ]) {
      const refused = await callers.hr.patch(path, { start: '06:00' });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden', details: { allowed: ['north'] } });
    }
    expect((await server.admin.get(`/work-schedules/${ids['South day']}/`)).body.start).toBe('09:00');
    expect(await dayOf(southPerson.id)).toMatchObject({ schedule: 'South day', late_seconds: 0 });
    expect((await dayOf(southPerson.id)).flags).not.toContain('late');
  });

  test('HR of north may not delete it, and the refusal names none of south’s assignments', async () => {
    for (const name of ['South day', 'South area', 'Shared']) {
      const refused = await callers.hr.delete(`/work-schedules/${ids[name]}/`);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden', details: { allowed: ['north'] } });
      for (const id of assignments) expect(JSON.stringify(refused.body)).not.toContain(id);
      expect((await server.admin.get(`/work-schedules/${ids[name]}/`)).status).toBe(200);
    }
  });

  test('the list tells north which schedules are not its to change; a caller of every area may change any', async () => {
    const seen = (await callers.hr.get('/work-schedules/')).body.results as { name: string; used_elsewhere: boolean }[];
    expect(Object.fromEntries(seen.map((s) => [s.name, s.used_elsewhere]))).toEqual({
      'North day': false,
      Shared: true,
      'South area': true,
      'South day': true,
      Unused: false,
    });
    expect((await callers.hr.get('/work-schedules/South%20day/')).body.used_elsewhere).toBe(true);
    const everyone = (await server.admin.get('/work-schedules/')).body.results as { used_elsewhere: boolean }[];
    expect(everyone.every((s) => !s.used_elsewhere)).toBe(true);
    expect((await server.admin.patch(`/work-schedules/${ids.Shared}/`, { grace_in: '10m' })).status).toBe(200);
  });

  test('HR of north changes a schedule only north works (north’s days follow), deletes one nobody works, and hears 409 for its own in use', async () => {
    const changed = await callers.hr.patch(`/work-schedules/${ids['North day']}/`, { start: '08:00' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ start: '08:00', used_elsewhere: false });
    expect(await dayOf(northPerson.id)).toMatchObject({ schedule: 'North day', late_seconds: 55 * 60 });
    expect((await callers.hr.delete(`/work-schedules/${ids.Unused}/`)).status).toBe(204);
    const inUse = await callers.hr.delete(`/work-schedules/${ids['North day']}/`);
    expect(inUse.status).toBe(409);
    expect(assignments.slice(3)).toContain(inUse.body.error.details.assignment);
  });
});

describe('a holiday for one person', () => {
  test('a south person’s PIN answers north as a PIN nobody holds does', async () => {
    const nobody = await callers.hr.post('/holidays/', { date: DATE, name: 'Birthday', enrollee: '99999999' });
    const south = await callers.hr.post('/holidays/', { date: DATE, name: 'Birthday', enrollee: southPerson.device_pin });
    expect(nobody.status).toBe(404);
    expect(south.status).toBe(404);
    expect(south.body.error).toMatchObject({ code: 'not_found', message: nobody.body.error.message, details: { enrollee: southPerson.device_pin } });
    const own = await callers.hr.post('/holidays/', { date: DATE, name: 'Birthday', enrollee: northPerson.device_pin });
    expect(own.status).toBe(201);
    const moved = await callers.hr.patch(`/holidays/${own.body.id}/`, { enrollee: southPerson.id });
    expect(moved.status).toBe(404);
    expect(moved.body.error).toMatchObject({ message: nobody.body.error.message, details: { enrollee: southPerson.id } });
    expect((await server.admin.get(`/holidays/${own.body.id}/`)).body.enrollee).toBe(northPerson.id);
  });
});

// A communication key is trusted from any address, and the pinned address is sent the people of
// every area the terminal serves: north issued a key for (or confirmed an address of) a terminal
// it shares with south, and whoever held the key was sent south's people and their templates.
describe('the identity of a terminal shared with another area', () => {
  test('a north installer or admin may not issue or revoke its keys, nor confirm its address; on a north-only terminal they may', async () => {
    await online('SHARED01', ['north', 'south']);
    const ownKey = await server.admin.post('/devices/SHARED01/keys/');
    expect(ownKey.status).toBe(201);
    for (const caller of [callers.installer, callers.admin]) {
      const issued = await caller.post('/devices/SHARED01/keys/');
      expect(issued.status).toBe(403);
      expect(issued.body.error.code).toBe('forbidden');
      expect((await caller.delete(`/devices/SHARED01/keys/${ownKey.body.id}/`)).status).toBe(403);
      expect((await caller.post('/devices/SHARED01/confirm-address/', { address: '127.0.0.9' })).status).toBe(403);
    }
    const keys = await server.admin.get('/devices/SHARED01/keys/');
    expect(keys.body.results.filter((k: { revoked_at: string | null }) => k.revoked_at === null)).toHaveLength(1);
    const northOnly = await callers.installer.post('/devices/NORTH001/keys/');
    expect(northOnly.status).toBe(201);
    expect((await callers.installer.delete(`/devices/NORTH001/keys/${northOnly.body.id}/`)).status).toBe(204);
  });
  // A terminal's zone says how its punches are read, its algorithm which templates it is sent:
  // north set SHARED01's zone and south's punches there were read an hour off.
  test('a north admin may not change the time zone or algorithm version of a shared terminal; may rename it; on a north-only terminal may', async () => {
    const before = (await server.admin.get('/devices/SHARED01/')).body;
    for (const change of [{ time_zone: 'Asia/Tokyo' }, { algorithm_version: '9.0' }]) {
      const refused = await callers.admin.patch('/devices/SHARED01/', change);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
    }
    // The console sends the shown zone back with every save: an unchanged zone is no change.
    const renamed = await callers.admin.patch('/devices/SHARED01/', { name: 'Shared gate', time_zone: before.time_zone });
    expect(renamed.status).toBe(200);
    const after = (await server.admin.get('/devices/SHARED01/')).body;
    expect([after.name, after.time_zone, after.algorithm_version]).toEqual(['Shared gate', before.time_zone, before.algorithm_version]);
    const own = await callers.admin.patch('/devices/NORTH001/', { time_zone: 'Asia/Tokyo' });
    expect(own.status).toBe(200);
    expect(own.body.time_zone).toBe('Asia/Tokyo');
  });
});

// The console sends only the caller's own ticked areas (the kept ones of other areas are not its
// to send). Unticking every one of its own sent `areas: []`, which was read as "the caller's own
// areas", as for a new person: a north+east HR taking a north+south person out of north put them
// in north, east and south, and their data went to east's terminals.
describe('a limited caller taking a person or terminal out of all of its own areas', () => {
  test('areas [] leaves only the areas it does not see; never adds its own', async () => {
    expect((await server.admin.post('/areas/', { name: 'east' })).status).toBe(201);
    const made = await server.admin.post('/api-keys/', { name: 'hr of north and east', role: 'admin', areas: ['north', 'east'] });
    expect(made.status).toBe(201);
    const northEast = new ApiClient(`${server.url}/api/fingerprint/v1`, { authorization: `Bearer ${made.body.key}` });
    const shared = await person('E-NS-1', ['north', 'south']);
    const moved = await northEast.patch(`/enrollees/${shared.id}/`, { areas: [] });
    expect(moved.status).toBe(200);
    expect((await server.admin.get(`/enrollees/${shared.id}/`)).body.areas).toEqual(['south']);
    await online('NSTERM01', ['north', 'south']);
    expect((await northEast.patch('/devices/NSTERM01/', { areas: [] })).status).toBe(200);
    expect((await server.admin.get('/devices/NSTERM01/')).body.areas).toEqual(['south']);
    // A new person with no areas named still goes to the caller's own, as before.
    expect((await server.admin.post('/employees/', { id: 'E-NE-NEW', name: 'New one' })).status).toBe(201);
    expect((await northEast.post('/enrollees/', { employee: 'E-NE-NEW' })).body.areas).toEqual(['east', 'north']);
  });
});
