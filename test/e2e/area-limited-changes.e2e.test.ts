/**
 * A caller limited to areas changes only what is wholly its own (README "Roles and areas"): API
 * keys of `north` against what `south` holds, through the real server.
 *
 * - A terminal's enrollment station takes anyone's fingerprints. An installer or admin of north
 *   turned NORTH001 into one (200), then a finger posted there for a south person's PIN replaced
 *   that person's template and went to SOUTH001: someone at north enrolled as a south employee.
 *   Turning it on or off is now for callers of every area only.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { ApiClient, startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let server: TestServer;
let northT: SimulatedTerminal;
let southT: SimulatedTerminal;
let southPerson: { id: string; device_pin: string };
const callers: Record<'installer' | 'admin', ApiClient> = {} as Record<'installer' | 'admin', ApiClient>;

async function person(employee: string, areas: string[]) {
  expect((await server.admin.post('/employees/', { id: employee, name: `Person ${employee}` })).status).toBe(201);
  const made = await server.admin.post('/enrollees/', { employee, areas });
  expect(made.status).toBe(201);
  expect((await server.admin.post(`/enrollees/${made.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  return made.body as { id: string; device_pin: string };
}

/** An API key of this role limited to north, as a client. */
async function northKey(role: 'installer' | 'admin'): Promise<ApiClient> {
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

beforeAll(async () => {
  server = await startTestServer();
  southPerson = await person('E-SOUTH', ['south']);
  northT = await online('NORTH001', ['north']);
  southT = await online('SOUTH001', ['south']);
  callers.installer = await northKey('installer');
  callers.admin = await northKey('admin');
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
