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
      // The finger stays on the terminal, noted on its user: a withdrawal of consent takes it off.
      const device = await other.fpa.service.devices.get('KEEPER');
      expect(await other.fpa.service.devices.users.one(other.fpa.db.orm, device.id, unconsented.device_pin)).toMatchObject({
        enrolleeId: unconsented.id,
        biometrics: { fingerprint: [1] },
      });
      await other.admin.post(`/enrollees/${unconsented.id}/consent/`, { version: 'v1', method: 'paper' });
      expect((await other.admin.delete(`/enrollees/${unconsented.id}/consent/`)).status).toBe(200);
      const sent = await drain(t);
      expect(sent[0]).toStartWith(`DATA DELETE USERINFO PIN=${unconsented.device_pin}`);
      expect(sent[1]).toStartWith(`DATA UPDATE USERINFO PIN=${unconsented.device_pin}`);
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

/**
 * The ordinary flows of walk-up by PIN (issue 23): a PIN the service handed out is its enrollee
 * wherever it appears, even when the terminal reported the user before confirming the service's
 * `add_user`, or refused an upload before it became an enrollment station.
 */
describe('walk-up by PIN in the ordinary flow', () => {
  let s: TestServer;
  const userLine = (pin: string, name = 'Menu user', card = '') =>
    `USER PIN=${pin}\tName=${name}\tPri=0\tPasswd=\tCard=${card}\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\n`;

  async function stored(enrolleeId: string) {
    return (await s.admin.get(`/enrollees/${enrolleeId}/templates/`)).body.results as {
      finger_index: number;
      version: number;
      source: string;
      algorithm_version: string;
      sync: { device: string; status: string }[];
    }[];
  }

  async function userOn(sn: string, pin: string) {
    const device = await s.fpa.service.devices.get(sn);
    return s.fpa.service.devices.users.one(s.fpa.db.orm, device.id, pin);
  }

  /** The stored row is ciphertext: the template's bytes appear nowhere in it. */
  async function expectEncrypted(enrolleeId: string, template: string) {
    const rows = await s.fpa.db.orm.select().from(templates).where(eq(templates.enrolleeId, enrolleeId));
    expect(rows.length).toBeGreaterThan(0);
    const plain = Buffer.from(template, 'base64');
    for (const r of rows) expect(Buffer.from(r.ciphertext).includes(plain.subarray(0, 32))).toBe(false);
  }

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.close();
  });

  test('2.x: USER in one upload, FP in the next, before the terminal ran add_user: stored, encrypted, fanned out', async () => {
    const t1 = await online('ORD1', {}, s);
    const t2 = await online('ORD2', {}, s);
    const p = await person('O-1', 'Ola One', true, undefined, s);
    // The administrator creates the user at the menu with the PIN HR gave, before the next poll.
    expect((await t1.post('cdata', { table: 'OPERLOG', Stamp: '1' }, userLine(p.device_pin, 'Ola One'))).body).toBe('OK:1');
    expect(await userOn('ORD1', p.device_pin)).toMatchObject({ enrolleeId: p.id });
    const template = syntheticTemplate();
    expect((await t1.uploadTemplate(p.device_pin, 2, template)).body).toBe('OK:1');
    const [tpl] = await stored(p.id);
    expect(tpl).toMatchObject({ finger_index: 2, version: 1, source: 'device' });
    expect(tpl!.sync).toEqual(
      expect.arrayContaining([expect.objectContaining({ device: 'ORD1', status: 'present' }), expect.objectContaining({ device: 'ORD2', status: 'pending' })]),
    );
    await expectEncrypted(p.id, template);
    const toT2 = await drain(t2);
    expect(toT2.some((c) => c.startsWith(`DATA UPDATE FINGERTMP PIN=${p.device_pin}\tFID=2`))).toBe(true);
    expect(t2.templates.get(`${p.device_pin}:2`)?.template).toBe(template);
    // The punch at the first terminal counts for them.
    await t1.punch([{ pin: p.device_pin, at: new Date() }]);
    const punches = await s.admin.get('/punches/?employee=O-1&device=ORD1');
    expect(punches.body.results).toHaveLength(1);
    await drain(t1);
  });

  test('SenseFace 2A: USER then BIODATA Type=1 MajorVer=13: stored and sent to the other terminal', async () => {
    const f1 = await online('FACE1', { biodata: true, fpVersion: '13.0' }, s);
    const f2 = await online('FACE2', { biodata: true, fpVersion: '13.0' }, s);
    const p = await person('O-2', 'Ola Two', true, undefined, s);
    expect((await f1.post('cdata', { table: 'OPERLOG', Stamp: '2' }, userLine(p.device_pin, 'Ola Two'))).body).toBe('OK:1');
    const template = syntheticTemplate();
    const line = `BIODATA Pin=${p.device_pin}\tNo=6\tIndex=0\tValid=1\tDuress=0\tType=1\tMajorVer=13\tMinorVer=0\tFormat=0\tTmp=${template}\n`;
    expect((await f1.post('cdata', { table: 'BIODATA', Stamp: '3' }, line)).body).toBe('OK:1');
    const [tpl] = await stored(p.id);
    expect(tpl).toMatchObject({ finger_index: 6, algorithm_version: '13.0', source: 'device' });
    expect(tpl!.sync).toEqual(expect.arrayContaining([expect.objectContaining({ device: 'FACE2', status: 'pending' })]));
    await expectEncrypted(p.id, template);
    const toF2 = await drain(f2);
    expect(toF2.some((c) => c.startsWith(`DATA UPDATE BIODATA Pin=${p.device_pin}`) && c.includes('No=6'))).toBe(true);
    await drain(f1);
  });

  test('FP before the terminal confirmed add_user (no USER record at all): stored and fanned out', async () => {
    const t3 = await online('ORD3', {}, s);
    const p = await person('O-3', 'Ola Three', true, undefined, s);
    expect((await t3.uploadTemplate(p.device_pin, 1)).body).toBe('OK:1');
    const [tpl] = await stored(p.id);
    expect(tpl!.sync).toEqual(
      expect.arrayContaining([expect.objectContaining({ device: 'ORD3', status: 'present' }), expect.objectContaining({ device: 'ORD1', status: 'pending' })]),
    );
    expect(await userOn('ORD3', p.device_pin)).toMatchObject({ enrolleeId: p.id });
    await drain(t3);
  });

  test('refused outside the enrollee’s areas, then made an enrollment station: the next upload is accepted', async () => {
    const far = await online('FAR1', {}, s);
    await s.admin.patch('/devices/FAR1/', { areas: ['warehouse'] });
    await drain(far);
    const p = await person('O-4', 'Ola Four', true, undefined, s);
    const first = syntheticTemplate();
    const batch = `${userLine(p.device_pin, 'Ola Four')}FP PIN=${p.device_pin}\tFID=3\tSize=${first.length}\tValid=1\tTMP=${first}\n`;
    expect((await far.post('cdata', { table: 'OPERLOG', Stamp: '4' }, batch)).body).toBe('OK:2');
    expect((await rejectionsOf('FAR1', s)).map((r) => r.reason)).toEqual(['not_in_scope']);
    expect(await stored(p.id)).toHaveLength(0);
    await drain(far);
    expect((await s.admin.patch('/devices/FAR1/', { enrollment_station: true })).status).toBe(200);
    await drain(far);
    expect((await far.uploadTemplate(p.device_pin, 3)).body).toBe('OK:1');
    const [tpl] = await stored(p.id);
    expect(tpl).toMatchObject({ finger_index: 3, source: 'device' });
    expect(tpl!.sync).toEqual(
      expect.arrayContaining([expect.objectContaining({ device: 'FAR1', status: 'present' }), expect.objectContaining({ device: 'ORD1', status: 'pending' })]),
    );
    expect(await userOn('FAR1', p.device_pin)).toMatchObject({ enrolleeId: p.id });
  });

  test('consent withdrawn while a terminal is away, then given again: its upload of the old finger leaves the withdrawal’s delete in place', async () => {
    const t = await online('AWAY1', {}, s);
    const p = await person('O-9', 'Ola Nine', true, undefined, s);
    await drain(t);
    expect((await t.uploadTemplate(p.device_pin, 3)).body).toBe('OK:1');
    expect((await s.admin.delete(`/enrollees/${p.id}/consent/`)).status).toBe(200);
    await s.admin.post(`/enrollees/${p.id}/consent/`, { version: 'v2', method: 'paper' });
    // Back, it sends the finger it still holds before it fetched the delete.
    expect((await t.uploadTemplate(p.device_pin, 3)).body).toBe('OK:1');
    const pending = (await s.admin.get('/devices/AWAY1/commands/?status=pending')).body.results as { kind: string }[];
    expect(pending.map((c) => c.kind)).toContain('delete_template');
    expect((await drain(t)).some((text) => text.startsWith(`DATA DELETE FINGERTMP PIN=${p.device_pin}`))).toBe(true);
    const proof = (await s.admin.get(`/enrollees/${p.id}/deletion-proof/`)).body as { terminals: { serial_number: string; status: string }[] };
    expect(proof.terminals.find((x) => x.serial_number === 'AWAY1')?.status).toBe('confirmed');
  });

  test('refused before consent, accepted after it: the delete queued by the refusal is not sent', async () => {
    const t = await online('CONS1', {}, s);
    const p = await person('O-7', 'Ola Seven', false, undefined, s);
    await drain(t);
    expect((await t.uploadTemplate(p.device_pin, 1)).body).toBe('OK:1');
    expect((await rejectionsOf('CONS1', s)).map((r) => r.reason)).toEqual(['consent_required']);
    await s.admin.post(`/enrollees/${p.id}/consent/`, { version: 'v1', method: 'paper' });
    expect((await t.uploadTemplate(p.device_pin, 1)).body).toBe('OK:1');
    const [tpl] = await stored(p.id);
    expect(tpl!.sync).toEqual(expect.arrayContaining([expect.objectContaining({ device: 'CONS1', status: 'present' })]));
    expect((await drain(t)).filter((text) => text.startsWith('DATA DELETE'))).toEqual([]);
    expect((await stored(p.id))[0]!.sync).toEqual(expect.arrayContaining([expect.objectContaining({ device: 'CONS1', status: 'present' })]));
  });

  test('a terminal approved while it holds an enrollee’s PIN: what it sends before it answered the user query is its own user’s', async () => {
    const ord2Pending = async () =>
      (await s.admin.get('/devices/ORD2/commands/?status=pending')).body.results as { kind: string; payload: Record<string, unknown> }[];
    const before = (await ord2Pending()).length;
    const withConsent = await person('O-5', 'Ola Five', true, undefined, s);
    const noConsent = await person('O-6', 'Ola Six', false, undefined, s);
    const fp = (pin: string, finger: number) => {
      const t = syntheticTemplate();
      return `FP PIN=${pin}\tFID=${finger}\tSize=${t.length}\tValid=1\tTMP=${t}\n`;
    };
    // It held users under those PINs before the service knew it (another server gave them out).
    const late = new SimulatedTerminal({
      url: s.url,
      sn: 'LATE1',
      existingUsers: [
        { pin: withConsent.device_pin, name: 'Someone else' },
        { pin: noConsent.device_pin, name: 'Another one' },
      ],
    });
    await late.handshake();
    await late.postOptions();
    await s.admin.post('/devices/LATE1/approve/');
    // Its backlog arrives before it even fetched the query of its users, the template first.
    const backlog = `${fp(withConsent.device_pin, 5)}${userLine(withConsent.device_pin, 'Someone else')}${fp(noConsent.device_pin, 6)}`;
    expect((await late.post('cdata', { table: 'OPERLOG', Stamp: '7' }, backlog)).body).toBe('OK:3');
    // The query fetched and not answered yet: a template in a post of its own.
    expect((await late.get('getrequest')).body).toContain('DATA QUERY USERINFO');
    expect((await late.post('cdata', { table: 'OPERLOG', Stamp: '8' }, fp(withConsent.device_pin, 7))).body).toBe('OK:1');
    // Its own users' fingerprints: counted there, not stored, not sent anywhere, not deleted.
    for (const p of [withConsent, noConsent]) expect(await stored(p.id)).toEqual([]);
    expect(await userOn('LATE1', withConsent.device_pin)).toMatchObject({ enrolleeId: null, heldBefore: true, biometrics: { fingerprint: [5, 7] } });
    expect(await userOn('LATE1', noConsent.device_pin)).toMatchObject({ enrolleeId: null, heldBefore: true, biometrics: { fingerprint: [6] } });
    expect((await ord2Pending()).slice(before).filter((c) => c.kind === 'update_template')).toEqual([]);
    const commands = (await s.admin.get('/devices/LATE1/commands/?status=pending')).body.results as { kind: string }[];
    expect(commands.filter((c) => c.kind === 'delete_template')).toEqual([]);
    expect((await rejectionsOf('LATE1', s)).length).toBe(0);
    // Once it answered (its users), they are still its own: a conflict for an administrator.
    await drain(late);
    expect(await userOn('LATE1', withConsent.device_pin)).toMatchObject({ enrolleeId: null, heldBefore: true });
    expect((await late.uploadTemplate(withConsent.device_pin, 8)).body).toBe('OK:1');
    expect(await stored(withConsent.id)).toEqual([]);
  });

  test('the hourly reconciliation leaves a new terminal’s inventory query alone, and a terminal approved again keeps what its users were', async () => {
    const t = new SimulatedTerminal({ url: s.url, sn: 'RECON1', existingUsers: [{ pin: '7', name: 'Menu 7' }] });
    await t.handshake();
    await t.postOptions();
    await s.admin.post('/devices/RECON1/approve/');
    // Its first poll says it holds 1 user (fewer than the enrollees of its area) and fetches the query.
    const fetched = (await t.get('getrequest', { INFO: '2.4.1,1,0,0,192.168.1.201,10,0,0,0,10000' })).body;
    const query = /C:(\d+):DATA QUERY USERINFO/.exec(fetched)?.[1];
    expect(query).toBeDefined();
    expect((await s.admin.post('/jobs/reconcile-devices/run/', {})).body.status).toBe('succeeded');
    const queries = (
      (await s.admin.get('/devices/RECON1/commands/?limit=100')).body.results as { kind: string; payload: Record<string, unknown>; status: string }[]
    ).filter((c) => c.kind === 'query_users');
    expect(queries.map((c) => [c.status, c.payload.resync])).toEqual([['sent', 'approved']]);
    // It answers: its user, then the query's result.
    expect((await t.post('cdata', { table: 'OPERLOG', Stamp: '8' }, userLine('7', 'Menu 7'))).body).toBe('OK:1');
    expect((await t.post('devicecmd', {}, `ID=${query}&Return=0&CMD=DATA\n`)).status).toBe(200);
    await drain(t);
    expect(await userOn('RECON1', '7')).toMatchObject({ enrolleeId: null, heldBefore: true });
    // A user it reports later, unlinked (a PIN nobody has), then the terminal disabled and approved again.
    expect((await t.post('cdata', { table: 'OPERLOG', Stamp: '9' }, userLine('8', 'Later'))).body).toBe('OK:1');
    expect(await userOn('RECON1', '8')).toMatchObject({ heldBefore: false });
    await s.admin.post('/devices/RECON1/disable/');
    await s.admin.post('/devices/RECON1/approve/');
    // Its inventory of the new approval names it again: a user it had since the service knew it.
    expect((await t.post('cdata', { table: 'OPERLOG', Stamp: '10' }, userLine('8', 'Later'))).body).toBe('OK:1');
    expect(await userOn('RECON1', '8')).toMatchObject({ heldBefore: false });
    expect((await t.post('cdata', { table: 'OPERLOG', Stamp: '11' }, userLine('9', 'New now'))).body).toBe('OK:1');
    expect(await userOn('RECON1', '9')).toMatchObject({ heldBefore: true });
  });

  test('a terminal user adopted as an existing enrollee gets their fingers before it is asked for its own: what it holds is what the service records', async () => {
    // Carl, adopted from CARL1 with his finger 1; CARL2 holds a user of its own with the same PIN and its own capture of finger 1.
    const carl1 = await online('CARL1', { existingUsers: [{ pin: '55', name: 'Carl', fingers: [1] }] }, s);
    const carl2 = await online('CARL2', { existingUsers: [{ pin: '55', name: 'Carl at the yard', fingers: [1] }] }, s);
    for (const t of [carl1, carl2]) {
      expect((await t.post('cdata', { table: 'OPERLOG', Stamp: '5' }, userLine('55', `${t.sn} user`))).body).toBe('OK:1');
      await drain(t);
    }
    await s.admin.post('/employees/', { id: 'C-55', name: 'Carl Adopted' });
    const carl = await s.admin.post('/devices/CARL1/users/55/adopt/', { employee: 'C-55' });
    expect(carl.status).toBe(201);
    await s.admin.post(`/enrollees/${carl.body.id}/consent/`, { version: 'v1', method: 'paper' });
    await drain(carl1);
    const before = await stored(carl.body.id);
    expect(before.filter((t) => t.finger_index === 1).map((t) => t.version)).toEqual([1]);

    expect((await s.admin.post('/devices/CARL2/users/55/adopt/', { enrollee: carl.body.id })).status).toBe(201);
    const ran = await drain(carl2);
    // His record and finger first, then the query of what the terminal holds of him.
    const order = ran.map((c) => c.split(' ').slice(0, 3).join(' ')).filter((c) => /USERINFO|FINGERTMP/.test(c));
    expect(order).toEqual(['DATA UPDATE USERINFO', 'DATA UPDATE FINGERTMP', 'DATA QUERY FINGERTMP']);
    await drain(carl1);
    // The terminal answered with the finger it was just given: no new version, and CARL2 holds the one recorded.
    const after = (await stored(carl.body.id)).filter((t) => t.finger_index === 1);
    expect(after.map((t) => t.version)).toEqual([1]);
    expect(after[0]!.sync.find((x) => x.device === 'CARL2')).toMatchObject({ status: 'present' });
  });

  test('a PIN the terminal held before the enrollee existed stays its own user until adopted', async () => {
    const own1 = await online('OWN1', { existingUsers: [{ pin: '42', name: 'Menu 42' }] }, s);
    const own2 = await online('OWN2', { existingUsers: [{ pin: '42', name: 'Other 42' }] }, s);
    for (const t of [own1, own2]) {
      expect((await t.post('cdata', { table: 'OPERLOG', Stamp: '5' }, userLine('42', `${t.sn} user`))).body).toBe('OK:1');
      await drain(t);
    }
    await s.admin.post('/employees/', { id: 'O-42', name: 'Adopted 42' });
    const adopted = await s.admin.post('/devices/OWN1/users/42/adopt/', { employee: 'O-42' });
    expect(adopted.status).toBe(201);
    await s.admin.post(`/enrollees/${adopted.body.id}/consent/`, { version: 'v1', method: 'paper' });
    await drain(own1);
    await drain(own2);
    // OWN2's user 42 was there before the enrollee existed: another person until adopted.
    expect((await own2.uploadTemplate('42', 4)).body).toBe('OK:1');
    expect((await stored(adopted.body.id)).some((t) => t.finger_index === 4)).toBe(false);
    expect(await userOn('OWN2', '42')).toMatchObject({ enrolleeId: null, biometrics: { fingerprint: [4] } });
    expect(await own2.poll()).toHaveLength(0);
    // At the terminal the enrollee was adopted from, the PIN is theirs.
    expect((await own1.uploadTemplate('42', 5)).body).toBe('OK:1');
    expect((await stored(adopted.body.id)).some((t) => t.finger_index === 5)).toBe(true);
  });

  test('an adopted PIN is theirs only where adopted or sent: a menu user of that PIN elsewhere keeps its fingers, inside their areas or not', async () => {
    const home = await online('PIN5A', { existingUsers: [{ pin: '5', name: 'Five', fingers: [1] }] }, s);
    expect((await home.post('cdata', { table: 'OPERLOG', Stamp: '5' }, userLine('5', 'Five'))).body).toBe('OK:1');
    await drain(home);
    await s.admin.post('/employees/', { id: 'P-5', name: 'Penny Five' });
    const penny = await s.admin.post('/devices/PIN5A/users/5/adopt/', { employee: 'P-5' });
    expect(penny.status).toBe(201);
    await s.admin.post(`/enrollees/${penny.body.id}/consent/`, { version: 'v1', method: 'paper' });
    await drain(home);
    // Terminals of another area, their users asked for and none of them 5.
    const [alone, together] = [new SimulatedTerminal({ url: s.url, sn: 'PIN5N' }), new SimulatedTerminal({ url: s.url, sn: 'PIN5M' })];
    for (const t of [alone, together]) {
      await t.handshake();
      expect((await s.admin.post(`/devices/${t.sn}/approve/`, { areas: ['north'] })).status).toBe(200);
      await drain(t);
    }
    // A finger enrolled at the menu, uploaded before its user (2.x sends them in either order) …
    expect((await alone.post('cdata', { table: 'OPERLOG', Stamp: '6' }, `FP PIN=5\tFID=7\tSize=8\tValid=1\tTMP=${syntheticTemplate()}\n`)).body).toBe('OK:1');
    // … or with it in one upload, the user's line first.
    const both = `${userLine('5', 'Local five')}FP PIN=5\tFID=3\tSize=8\tValid=1\tTMP=${syntheticTemplate()}\n`;
    expect((await together.post('cdata', { table: 'OPERLOG', Stamp: '6' }, both)).body).toBe('OK:2');
    for (const [t, finger] of [
      [alone, 7],
      [together, 3],
    ] as const) {
      // Neither refused as Penny's out of her areas nor deleted: the terminal's own user's, counted there.
      expect({ sn: t.sn, user: await userOn(t.sn, '5'), commands: await t.poll() }).toMatchObject({
        sn: t.sn,
        user: { enrolleeId: null, biometrics: { fingerprint: [finger] } },
        commands: [],
      });
    }
    expect((await stored(penny.body.id)).map((t) => t.finger_index)).toEqual([1]);
    // In her area, where her record went (the ordinary walk-up), her finger is hers as before.
    const south = await online('PIN5S', {}, s);
    expect((await south.post('cdata', { table: 'OPERLOG', Stamp: '6' }, `FP PIN=5\tFID=8\tSize=8\tValid=1\tTMP=${syntheticTemplate()}\n`)).body).toBe('OK:1');
    expect(await userOn('PIN5S', '5')).toMatchObject({ enrolleeId: penny.body.id });
    expect((await stored(penny.body.id)).map((t) => t.finger_index).sort()).toEqual([1, 8]);
  });
});
