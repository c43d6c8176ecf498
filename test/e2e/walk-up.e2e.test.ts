/**
 * Walk-up enrollment end to end with simulated terminals: templates uploaded from the
 * terminal menu are stored, marked present there and sent to the other terminals; each rule
 * violation is rejected, logged and (with DELETE_REJECTED_DEVICE_TEMPLATES) deleted from the
 * terminal, never answered with an HTTP error; a template of the terminal's own user (a PIN the
 * service never gave out) is neither stored nor deleted.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { deviceEvents, devices, templates } from '../../src/app/schema';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let server: TestServer;
let a: SimulatedTerminal;
let b: SimulatedTerminal;
let withConsent: { id: string; device_pin: string };
let withoutConsent: { id: string; device_pin: string };
/** Enrolled with consent, but in an area none of the walk-up terminals serves. */
let elsewhere: { id: string; device_pin: string };
const rejected: { pin: string; reason: string }[] = [];

async function person(id: string, name: string, consent: boolean, areas?: string[], on = server) {
  await on.admin.post('/employees/', { id, name });
  const e = await on.admin.post('/enrollees/', { employee: id, ...(areas ? { areas } : {}) });
  if (consent) await on.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' });
  return e.body as { id: string; device_pin: string };
}

async function online(sn: string, options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}, on = server) {
  const t = new SimulatedTerminal({ url: on.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  await on.admin.post(`/devices/${sn}/approve/`);
  await drain(t);
  return t;
}

async function rejectionsOf(sn: string, on = server) {
  const d = (await on.fpa.db.orm
    .select()
    .from(devices)
    .where(eq(devices.serialNumber, sn))
    .limit(1)
    .then((r) => r[0]))!;
  const rows = await on.fpa.db.orm
    .select()
    .from(deviceEvents)
    .where(and(eq(deviceEvents.deviceId, d.id), eq(deviceEvents.kind, 'template_rejected')));
  return rows.map((r) => r.details as { pin: string; finger_index: number; reason: string; delete_queued: boolean });
}

async function templatesOf(enrolleeId: string) {
  return (await server.admin.get(`/enrollees/${enrolleeId}/templates/`)).body.results as {
    finger_index: number;
    version: number;
    source: string;
    algorithm_version: string;
    sync: { device: string; status: string }[];
  }[];
}

beforeAll(async () => {
  server = await startTestServer({ ALLOWED_FINGER_INDEXES: '0,1,2,3,4,5,6,7,8', FINGERS_ALLOWED_MAX: 3, TEMPLATE_MAX_BYTES: 512 });
  server.fpa.events.on('template_rejected', (e) => void rejected.push({ pin: e.pin, reason: e.reason }));
  withConsent = await person('E-1', 'Ada Obi', true);
  withoutConsent = await person('E-2', 'Bo Li', false);
  elsewhere = await person('E-3', 'Cy Elsewhere', true, ['head-office']);
  a = await online('WALKA');
  b = await online('WALKB');
});
afterAll(async () => {
  await server.close();
});

describe('an accepted walk-up template', () => {
  test('is stored, present on the uploading terminal, and sent to the other one', async () => {
    const res = await a.enrollFinger(withConsent.device_pin, 1);
    expect(res.body).toBe('OK:1');
    const [stored] = await templatesOf(withConsent.id);
    expect(stored).toMatchObject({ finger_index: 1, version: 1, source: 'device', algorithm_version: '10' });
    expect(stored!.sync).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ device: 'WALKA', status: 'present' }),
        expect.objectContaining({ device: 'WALKB', status: 'pending' }),
      ]),
    );
    const commands = await b.poll();
    expect(commands.map((c) => c.text.split(' PIN=')[0])).toEqual(['DATA UPDATE FINGERTMP']);
    expect(b.templates.get(`${withConsent.device_pin}:1`)?.template).toBe(a.templates.get(`${withConsent.device_pin}:1`)!.template);
    expect((await a.poll()).length).toBe(0);
  });

  test('a resent or echoed upload of the same bytes makes no new version', async () => {
    const template = a.templates.get(`${withConsent.device_pin}:1`)!.template;
    expect((await a.uploadTemplate(withConsent.device_pin, 1, template)).body).toBe('OK:1');
    expect((await b.uploadTemplate(withConsent.device_pin, 1, template)).body).toBe('OK:1');
    const [stored] = await templatesOf(withConsent.id);
    expect(stored!.version).toBe(1);
    expect(stored!.sync.every((s) => s.status === 'present')).toBe(true);
    expect(await b.poll()).toHaveLength(0);
  });

  test('new bytes for the same finger make version 2, sent to the other terminal', async () => {
    await a.uploadTemplate(withConsent.device_pin, 1, syntheticTemplate(120));
    const [stored] = await templatesOf(withConsent.id);
    expect(stored!.version).toBe(2);
    expect((await b.poll()).map((c) => c.text.startsWith('DATA UPDATE FINGERTMP'))).toEqual([true]);
  });
});

describe('rejected walk-up templates: logged, deleted from the terminal, never an HTTP error', () => {
  const cases = [
    { name: 'outside the terminal’s areas', pin: () => elsewhere.device_pin, finger: 2, template: () => syntheticTemplate(), reason: 'not_in_scope' },
    { name: 'no consent', pin: () => withoutConsent.device_pin, finger: 2, template: () => syntheticTemplate(), reason: 'consent_required' },
    { name: 'disallowed finger', pin: () => withConsent.device_pin, finger: 9, template: () => syntheticTemplate(), reason: 'finger_not_allowed' },
    { name: 'too large', pin: () => withConsent.device_pin, finger: 2, template: () => syntheticTemplate(600), reason: 'template_too_large' },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const res = await a.uploadTemplate(c.pin(), c.finger, c.template());
      expect(res.status).toBe(200);
      expect(res.body).toBe('OK:1');
      expect((await rejectionsOf('WALKA')).filter((r) => r.pin === c.pin() && r.finger_index === c.finger && r.reason === c.reason)).toHaveLength(1);
      expect(rejected).toContainEqual({ pin: c.pin(), reason: c.reason });
      const commands = await a.poll();
      expect(commands.map((x) => x.text)).toEqual([`DATA DELETE FINGERTMP PIN=${c.pin()}\tFID=${c.finger}`]);
      expect(a.templates.has(`${c.pin()}:${c.finger}`)).toBe(false);
    });
  }

  test('one rejection in a batch never rolls back the good line beside it', async () => {
    const pin = withConsent.device_pin;
    const good = syntheticTemplate();
    const bad = syntheticTemplate();
    const body = `FP PIN=${pin}\tFID=2\tSize=${good.length}\tValid=1\tTMP=${good}\nFP PIN=${elsewhere.device_pin}\tFID=3\tSize=${bad.length}\tValid=1\tTMP=${bad}\n`;
    expect((await a.post('cdata', { table: 'OPERLOG', Stamp: '9999' }, body)).body).toBe('OK:2');
    expect((await templatesOf(withConsent.id)).map((t) => t.finger_index)).toEqual([1, 2]);
    expect((await rejectionsOf('WALKA')).some((r) => r.pin === elsewhere.device_pin && r.finger_index === 3)).toBe(true);
    await drain(a);
  });

  test('too many fingers', async () => {
    const pin = withConsent.device_pin;
    expect((await a.uploadTemplate(pin, 3)).body).toBe('OK:1');
    expect((await a.uploadTemplate(pin, 4)).body).toBe('OK:1');
    expect((await templatesOf(withConsent.id)).map((t) => t.finger_index)).toEqual([1, 2, 3]);
    expect((await rejectionsOf('WALKA')).filter((r) => r.pin === pin).map((r) => `${r.finger_index}:${r.reason}`)).toContain('4:too_many_fingers');
    expect((await a.poll()).map((x) => x.text)).toEqual([`DATA DELETE FINGERTMP PIN=${pin}\tFID=4`]);
  });
});

describe('BIODATA terminals', () => {
  test('a fingerprint BIODATA upload is stored with MajorVer.MinorVer and reaches a FINGERTMP terminal', async () => {
    const c = await online('WALKC', { biodata: true });
    const pin = withConsent.device_pin;
    // Make room: FINGERS_ALLOWED_MAX is 3.
    await server.admin.delete(`/enrollees/${withConsent.id}/consent/`);
    await server.admin.post(`/enrollees/${withConsent.id}/consent/`, { version: 'v2', method: 'paper' });
    await drain(a);
    await drain(b);
    await drain(c);
    expect((await c.uploadTemplate(pin, 5)).body).toBe('OK:1');
    const [stored] = await templatesOf(withConsent.id);
    expect(stored).toMatchObject({ finger_index: 5, algorithm_version: '10.0', source: 'device' });
    const row = await server.fpa.db.orm
      .select()
      .from(devices)
      .where(eq(devices.serialNumber, 'WALKC'))
      .limit(1)
      .then((r) => r[0]);
    expect(row!.speaksBiodata).toBe(true);
    const toA = await a.poll();
    expect(toA.map((x) => x.text.split(' ').slice(0, 3).join(' '))).toEqual(['DATA UPDATE FINGERTMP']);
    // A rejection on a BIODATA terminal is deleted the BIODATA way.
    await c.uploadTemplate(elsewhere.device_pin, 1);
    expect((await c.poll()).map((x) => x.text)).toEqual([`DATA DELETE BIODATA Pin=${elsewhere.device_pin}\tType=1\tNo=1`]);
  });
});

describe('DELETE_REJECTED_DEVICE_TEMPLATES off', () => {
  test('a rejection is logged but nothing is deleted from the terminal', async () => {
    const other = await startTestServer({ DELETE_REJECTED_DEVICE_TEMPLATES: false });
    try {
      const t = await online('KEEPER', {}, other);
      const unconsented = await person('K-1', 'Kay', false, undefined, other);
      await drain(t);
      expect((await t.uploadTemplate(unconsented.device_pin, 1)).body).toBe('OK:1');
      const [r] = await rejectionsOf('KEEPER', other);
      expect(r).toMatchObject({ pin: unconsented.device_pin, reason: 'consent_required', delete_queued: false });
      expect(await t.poll()).toHaveLength(0);
      expect(await other.fpa.db.orm.select().from(templates)).toHaveLength(0);
    } finally {
      await other.close();
    }
  });
});

describe("the terminal's own users", () => {
  test('a template of a PIN the service never gave out is counted on the terminal, not stored, not deleted', async () => {
    const before = rejected.length;
    expect((await a.uploadTemplate('7', 6)).body).toBe('OK:1');
    expect((await a.uploadTemplate('7', 6)).body).toBe('OK:1');
    expect(rejected.length).toBe(before);
    expect(await a.poll()).toHaveLength(0);
    const device = await server.fpa.service.devices.get('WALKA');
    const user = await server.fpa.service.devices.users.one(server.fpa.db.orm, device.id, '7');
    expect(user).toMatchObject({ pin: '7', enrolleeId: null, biometrics: { fingerprint: [6] } });
    expect(await server.fpa.db.orm.select().from(templates).where(eq(templates.fingerIndex, 6))).toHaveLength(0);
  });
});
