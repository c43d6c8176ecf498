/**
 * Faces, palms and cards on the fingerprints' rails, through the real server and simulated
 * terminals: two SpeedFace-class terminals (visible-light face 58, palm 12), a near-infrared face
 * terminal (face 7) and a fingerprint-only one. A face and a palm enrolled at one SpeedFace reach
 * the other and nothing else; consent gates and withdrawal removes every kind everywhere; a face
 * or palm is enrolled remotely (its enroll command naming the person's card, its failure the part);
 * cards travel both ways and are never shared.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { templates } from '../../src/app/schema';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let server: TestServer;
let ada: { id: string; device_pin: string };
let bo: { id: string; device_pin: string };
const SPEEDFACE = { visible_face: '58.10', palm: '12.0' };
let sf1: SimulatedTerminal;
let sf2: SimulatedTerminal;
let nir: SimulatedTerminal;
let fp: SimulatedTerminal;

async function person(id: string, consent: boolean) {
  await server.admin.post('/employees/', { id, name: `Person ${id}` });
  const e = await server.admin.post('/enrollees/', { employee: id });
  if (consent) await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' });
  return e.body as { id: string; device_pin: string };
}

async function online(sn: string, options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}) {
  const t = new SimulatedTerminal({ url: server.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  await server.admin.post(`/devices/${sn}/approve/`);
  await drain(t);
  return t;
}

type Listed = { type: string; index: number; part: number; algorithm_version: string; sync: { device: string; status: string }[] };

async function listed(enrollee: string): Promise<Listed[]> {
  return (await server.admin.get(`/enrollees/${enrollee}/templates/`)).body.results;
}

const statusOn = (t: Listed, sn: string) => t.sync.find((s) => s.device === sn)?.status ?? null;

beforeAll(async () => {
  server = await startTestServer();
  ada = await person('K-ADA', true);
  bo = await person('K-BO', false);
  sf1 = await online('SF1', { biodata: true, kinds: SPEEDFACE });
  sf2 = await online('SF2', { biodata: true, kinds: SPEEDFACE });
  nir = await online('NIR1', { kinds: { face: '7.0' } });
  fp = await online('FP1');
});
afterAll(async () => {
  await server.close();
});

describe('a face and a palm enrolled at one SpeedFace', () => {
  test('are stored as kinds of their own and reach the other SpeedFace only', async () => {
    expect((await sf1.enrollKind(ada.device_pin, 'visible_face')).body).toBe('OK:1');
    expect((await sf1.enrollKind(ada.device_pin, 'palm', 1)).body).toBe('OK:5');
    const stored = await listed(ada.id);
    expect(stored.map((t) => `${t.type}:${t.index}:${t.part}`)).toEqual(['palm:1:0', 'palm:1:1', 'palm:1:2', 'palm:1:3', 'palm:1:4', 'visible_face:0:0']);
    expect(stored.find((t) => t.type === 'visible_face')!.algorithm_version).toBe('58.10');
    for (const t of stored) {
      expect(statusOn(t, 'SF1')).toBe('present');
      expect(statusOn(t, 'SF2')).toBe('pending');
      expect(statusOn(t, 'FP1')).toBe('incompatible');
      // Near-infrared face 7 is another algorithm than visible-light face 58, and it has no palm.
      expect(statusOn(t, 'NIR1')).toBe('incompatible');
    }

    const toSf2 = await drain(sf2);
    expect(
      toSf2
        .filter((c) => c.startsWith('DATA UPDATE BIODATA'))
        .map((c) => /Type=(\d+)/.exec(c)![1])
        .sort(),
    ).toEqual(['8', '8', '8', '8', '8', '9']);
    expect(
      [...sf2.biodata.values()]
        .filter((b) => b.pin === ada.device_pin)
        .map((b) => `${b.type}:${b.no}:${b.index}`)
        .sort(),
    ).toEqual(['8:1:0', '8:1:1', '8:1:2', '8:1:3', '8:1:4', '9:0:0']);
    const [face] = [...sf1.biodata.values()].filter((b) => b.type === 9 && b.pin === ada.device_pin);
    expect(sf2.biodata.get(`9:${ada.device_pin}:0:0`)!.template).toBe(face!.template);
    expect((await listed(ada.id)).every((t) => statusOn(t, 'SF2') === 'present')).toBe(true);
    expect(await drain(fp)).toEqual([]);
    expect(await drain(nir)).toEqual([]);
  });

  test('the templates are encrypted at rest like fingerprints', async () => {
    const rows = await server.fpa.db.orm.select().from(templates).where(eq(templates.enrolleeId, ada.id));
    const [face] = [...sf1.biodata.values()].filter((b) => b.type === 9 && b.pin === ada.device_pin);
    const plain = Buffer.from(face!.template, 'base64');
    for (const row of rows) expect(Buffer.from(row.ciphertext).includes(plain.subarray(0, 16))).toBe(false);
  });
});

describe('consent gates every kind, and withdrawal removes every kind everywhere', () => {
  test('a face of someone without consent is rejected and deleted from the terminal', async () => {
    await drain(sf1);
    expect((await sf1.enrollKind(bo.device_pin, 'visible_face')).body).toBe('OK:1');
    expect(await listed(bo.id)).toEqual([]);
    expect(await drain(sf1)).toEqual([`DATA DELETE BIODATA Pin=${bo.device_pin}\tType=9\tNo=0`]);
    expect([...sf1.biodata.values()].some((b) => b.pin === bo.device_pin)).toBe(false);
  });

  test('withdrawing consent deletes the face and the palm from both SpeedFaces', async () => {
    expect((await server.admin.delete(`/enrollees/${ada.id}/consent/`)).status).toBeLessThan(300);
    expect(await listed(ada.id)).toEqual([]);
    for (const t of [sf1, sf2]) {
      const sent = await drain(t);
      expect(sent.sort()).toEqual([`DATA DELETE BIODATA Pin=${ada.device_pin}\tType=8\tNo=1`, `DATA DELETE BIODATA Pin=${ada.device_pin}\tType=9\tNo=0`]);
      expect([...t.biodata.values()].some((b) => b.pin === ada.device_pin)).toBe(false);
    }
  });
});

describe('a palm not yet sent when consent is withdrawn', () => {
  test('never reaches the terminal that was still to get it: the writes of all its slots are closed with its delete', async () => {
    const ev = await person('K-EV', true);
    await drain(sf1);
    await drain(sf2);
    // A palm is five slots, one delete per part: the delete's own key closes only one write.
    expect((await sf1.enrollKind(ev.device_pin, 'palm', 1)).body).toBe('OK:5');
    expect((await listed(ev.id)).map((t) => statusOn(t, 'SF2'))).toEqual(['pending', 'pending', 'pending', 'pending', 'pending']);
    expect((await server.admin.delete(`/enrollees/${ev.id}/consent/`)).status).toBeLessThan(300);
    await drain(sf1);
    const toSf2 = await drain(sf2);
    expect(toSf2.filter((c) => c.startsWith('DATA UPDATE BIODATA') && c.includes(`Pin=${ev.device_pin}\t`))).toEqual([]);
    expect([...sf2.biodata.values()].some((b) => b.pin === ev.device_pin)).toBe(false);
    expect([...sf1.biodata.values()].some((b) => b.pin === ev.device_pin)).toBe(false);
  });
});

describe('remote enrollment of a face or palm', () => {
  test('ENROLL_BIO with its type; the capture reaches the other SpeedFace', async () => {
    await server.admin.post(`/enrollees/${ada.id}/consent/`, { version: 'v2', method: 'paper' });
    const refused = await server.admin.post(`/enrollees/${ada.id}/remote-enrollment/`, { device: 'FP1', type: 'visible_face' });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('command_not_supported');
    const started = await server.admin.post(`/enrollees/${ada.id}/remote-enrollment/`, { device: 'SF2', type: 'visible_face' });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ biometric: 'visible_face', fingers_requested: [0] });
    const sent = await drain(sf2);
    expect(sent.some((c) => c.startsWith('ENROLL_BIO TYPE=9\tPIN='))).toBe(true);
    const session = await server.admin.get(`/enrollment-sessions/${started.body.id}/`);
    expect(session.body.status).toBe('completed');
    const [face] = await listed(ada.id);
    expect(face).toMatchObject({ type: 'visible_face', index: 0 });
    expect(statusOn(face!, 'SF2')).toBe('present');
    await drain(sf1);
    expect(sf1.biodata.has(`9:${ada.device_pin}:0:0`)).toBe(true);
  });
});

describe('a terminal that starts declaring a kind', () => {
  test('gets the templates it was incompatible with, at once', async () => {
    const [face] = await listed(ada.id);
    expect(statusOn(face!, 'FP1')).toBe('incompatible');
    // New firmware: FP1 now reports a visible-light face 58 as well.
    const upgraded = new SimulatedTerminal({ url: server.url, sn: 'FP1', kinds: { visible_face: '58.10' } });
    for (const [pin, user] of fp.users) upgraded.users.set(pin, user);
    await upgraded.postOptions();
    const sent = await drain(upgraded);
    expect(sent.some((c) => c.startsWith(`DATA UPDATE BIODATA Pin=${ada.device_pin}\t`) && c.includes('Type=9'))).toBe(true);
    expect(statusOn((await listed(ada.id))[0]!, 'FP1')).toBe('present');
    fp = upgraded;
  });
});

describe('cards travel both ways', () => {
  test("an enrollee's card goes to the terminals with the user record; one card is never two people's", async () => {
    const patched = await server.admin.patch(`/enrollees/${ada.id}/`, { card: '123456789' });
    expect(patched.status).toBe(200);
    expect(patched.body.card).toBe('123456789');
    expect((await drain(fp)).find((c) => c.startsWith(`DATA UPDATE USERINFO PIN=${ada.device_pin}\t`))).toContain('Card=123456789');
    expect(fp.users.get(ada.device_pin)!.fields.Card).toBe('123456789');
    const taken = await server.admin.patch(`/enrollees/${bo.id}/`, { card: '123456789' });
    expect(taken.status).toBe(409);
  });

  test("a card badged in at a terminal becomes the enrollee's (when they have none) and reaches their other terminals", async () => {
    // An administrator's card wins (issue 23), and so does their removal of one: only a person
    // without a card (Bo never had one) takes one from a terminal.
    await drain(fp);
    await drain(sf1);
    const user = `USER PIN=${bo.device_pin}\tName=Person K-BO\tPri=0\tPasswd=\tCard=[15CD5B08]\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\n`;
    expect((await fp.post('cdata', { table: 'OPERLOG', Stamp: '9999' }, user)).body).toBe('OK:1');
    const card = String(0x08_5b_cd_15);
    expect((await server.admin.get(`/enrollees/${bo.id}/`)).body.card).toBe(card);
    await drain(sf1);
    expect(sf1.users.get(bo.device_pin)!.fields.Card).toBe(card);
    // A terminal's own user keeps their card on the terminal's user list.
    const own = `USER PIN=4242\tName=Menu user\tPri=0\tPasswd=\tCard=555\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\n`;
    await fp.post('cdata', { table: 'OPERLOG', Stamp: '9999' }, own);
    const users = (await server.admin.get('/devices/FP1/users/')).body.results as { pin: string; card: string | null }[];
    expect(users.find((u) => u.pin === '4242')!.card).toBe('555');
  });
});

describe('biometrics a terminal holds that the service does not keep', () => {
  test('are counted on its user; withdrawing consent deletes the user there (and all of it) and puts them back without', async () => {
    const cy = await person('K-CY', true);
    await drain(nir);
    await drain(fp);
    const tmp = Buffer.from(new Uint8Array(96).fill(7)).toString('base64');
    // A legacy near-infrared FACE record and a vein (OPERLOG), and a BIODATA kind no setting keeps.
    const operlog = `FACE PIN=${cy.device_pin}\tFID=0\tSIZE=${tmp.length}\tVALID=1\tTMP=${tmp}\nFVEIN Pin=${cy.device_pin}\tFID=1\tIndex=0\tValid=1\tSize=${tmp.length}\tTmp=${tmp}\n`;
    expect((await nir.post('cdata', { table: 'OPERLOG', Stamp: '9999' }, operlog)).body).toBe('OK:2');
    const biodata = `BIODATA Pin=${cy.device_pin}\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=4\tMajorVer=1\tMinorVer=0\tFormat=0\tTmp=${tmp}\n`;
    expect((await fp.post('cdata', { table: 'BIODATA', Stamp: '9999' }, biodata)).body).toBe('OK:1');
    const userOf = async (sn: string) =>
      ((await server.admin.get(`/devices/${sn}/users/`)).body.results as { pin: string; enrollee: string | null; biometrics: Record<string, number> }[]).find(
        (u) => u.pin === cy.device_pin,
      );
    expect(await userOf('NIR1')).toMatchObject({ enrollee: cy.id, biometrics: { face: 1, finger_vein: 1 } });
    expect(await userOf('FP1')).toMatchObject({ enrollee: cy.id, biometrics: { biodata_type_4: 1 } });
    expect(await listed(cy.id)).toEqual([]);

    expect((await server.admin.delete(`/enrollees/${cy.id}/consent/`)).status).toBe(200);
    const proof = async () =>
      (await server.admin.get(`/enrollees/${cy.id}/deletion-proof/`)).body as { complete: boolean; terminals: { serial_number: string; status: string }[] };
    expect((await proof()).terminals.map((t) => t.serial_number).sort()).toEqual(['FP1', 'NIR1']);
    for (const t of [nir, fp]) {
      const sent = await drain(t);
      expect(sent[0]).toStartWith(`DATA DELETE USERINFO PIN=${cy.device_pin}`);
      expect(sent[1]).toStartWith(`DATA UPDATE USERINFO PIN=${cy.device_pin}`);
      expect(sent).toHaveLength(2);
    }
    expect(await proof()).toMatchObject({ complete: true });
    // Back on both terminals, as a user with nothing biometric.
    expect(await userOf('NIR1')).toMatchObject({ enrollee: cy.id, biometrics: {} });
    expect(await userOf('FP1')).toMatchObject({ enrollee: cy.id, biometrics: {} });
  });
});

describe('face photos and user photos a terminal holds', () => {
  test('are noted on its user however they arrive; withdrawing consent deletes the user there, and the proof waits for it', async () => {
    const di = await person('K-DI', true);
    // A SpeedFace-V5L sends its comparison photo inside OPERLOG, others in a BIOPHOTO table of its
    // own (ADMS.md §2.8: accept both); user photos come as OPERLOG USERPIC or 3.x `userpic`.
    const vf1 = await online('VF1', { biodata: true, kinds: SPEEDFACE });
    const vfb = await online('VFB', { biodata: true, kinds: SPEEDFACE });
    const pic1 = await online('PIC1');
    const pic3 = await online('PIC3');
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, ...new Array(60).fill(7)]).toString('base64');
    const biophoto = `BIOPHOTO PIN=${di.device_pin}\tFileName=${di.device_pin}.jpg\tType=9\tSize=${jpeg.length}\tContent=${jpeg}\n`;
    expect((await vf1.post('cdata', { table: 'OPERLOG', Stamp: '9999' }, biophoto)).body).toBe('OK:1');
    expect((await vfb.post('cdata', { table: 'BIOPHOTO', Stamp: '9999' }, biophoto)).body).toBe('OK:1');
    const userpic = `USERPIC PIN=${di.device_pin}\tFileName=${di.device_pin}.jpg\tSize=${jpeg.length}\tContent=${jpeg}\n`;
    expect((await pic1.post('cdata', { table: 'OPERLOG', Stamp: '9999' }, userpic)).body).toBe('OK:1');
    const userpic3 = `userpic pin=${di.device_pin}\tfilename=${di.device_pin}.jpg\tsize=${jpeg.length}\tcontent=${jpeg}\n`;
    expect((await pic3.post('cdata', { table: 'tabledata', tablename: 'userpic', count: '1' }, userpic3)).body).toBe('userpic=1');
    const userOn = async (sn: string) =>
      ((await server.admin.get(`/devices/${sn}/users/`)).body.results as { pin: string; biometrics: Record<string, number> }[]).find(
        (u) => u.pin === di.device_pin,
      );
    expect(await userOn('VF1')).toMatchObject({ biometrics: { face_photo: 1 } });
    expect(await userOn('VFB')).toMatchObject({ biometrics: { face_photo: 1 } });
    expect(await userOn('PIC1')).toMatchObject({ biometrics: { user_photo: 1 } });
    expect(await userOn('PIC3')).toMatchObject({ biometrics: { user_photo: 1 } });

    expect((await server.admin.delete(`/enrollees/${di.id}/consent/`)).status).toBe(200);
    const proof = async () =>
      (await server.admin.get(`/enrollees/${di.id}/deletion-proof/`)).body as { complete: boolean; terminals: { serial_number: string; status: string }[] };
    expect((await proof()).terminals.map((t) => t.serial_number)).toEqual(expect.arrayContaining(['PIC1', 'PIC3', 'VF1', 'VFB']));
    for (const t of [vf1, vfb, pic1, pic3]) {
      const sent = await drain(t);
      expect(sent[0]).toStartWith(`DATA DELETE USERINFO PIN=${di.device_pin}`);
      expect(sent[1]).toStartWith(`DATA UPDATE USERINFO PIN=${di.device_pin}`);
      expect(sent).toHaveLength(2);
      expect(await userOn(t.sn)).toMatchObject({ enrollee: di.id, biometrics: {} });
    }
    for (const t of [sf1, sf2, nir, fp]) await drain(t);
    expect(await proof()).toMatchObject({ complete: true });
  });
});

describe('fingerprints go only to terminals that can use them', () => {
  let dan: { id: string; device_pin: string };

  test('a card-only reader and one whose finger switch is off get none; one that says nothing still does', async () => {
    dan = await person('K-DAN', true);
    // A card-only reader: FingerFunOn=0, no FPVersion, nothing in MultiBioDataSupport.
    const card = await online('CARD1', { fingers: false });
    // Finger switch off while still reporting an algorithm (the reader was disabled in its menu).
    const off = await online('FPOFF1');
    await off.post('cdata', { table: 'options' }, 'FingerFunOn=0,FPVersion=10,FaceFunOn=0,MultiBioDataSupport=0:0:0:0:0:0:0:0:0:0');
    // Older firmware that posts no options and reports no algorithm: it keeps getting fingerprints.
    const silent = new SimulatedTerminal({ url: server.url, sn: 'OLD1', fingers: false });
    await silent.handshake();
    await server.admin.post('/devices/OLD1/approve/');
    const source = await online('FP2');
    for (const t of [card, off, silent, source]) await drain(t);

    expect((await source.enrollFinger(dan.device_pin, 6)).body).toBe('OK:1');
    const [finger] = await listed(dan.id);
    expect(finger).toMatchObject({ type: 'fingerprint', index: 6 });
    expect(statusOn(finger!, 'CARD1')).toBe('incompatible');
    expect(statusOn(finger!, 'FPOFF1')).toBe('incompatible');
    expect(statusOn(finger!, 'OLD1')).toBe('pending');
    expect(finger!.sync.find((s) => s.device === 'CARD1')).toMatchObject({ detail: expect.stringContaining('has not declared fingerprint support') });
    for (const t of [card, off]) {
      expect((await drain(t)).some((c) => c.includes('FINGERTMP') || c.includes('BIODATA'))).toBe(false);
      expect(t.templates.size).toBe(0);
      expect((await server.admin.get(`/devices/${t.sn}/`)).body.templates_present).toBe(0);
    }
    expect((await drain(silent)).some((c) => c.startsWith(`DATA UPDATE FINGERTMP PIN=${dan.device_pin}\tFID=6\t`))).toBe(true);
  });

  test('a remote finger enrollment at a card-only reader is refused; a reader that gets a fingerprint module gets the fingers at once', async () => {
    const refused = await server.admin.post(`/enrollees/${dan.id}/remote-enrollment/`, { device: 'CARD1', fingers: [6] });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('command_not_supported');
    const upgraded = new SimulatedTerminal({ url: server.url, sn: 'CARD1' });
    await upgraded.postOptions();
    expect((await drain(upgraded)).some((c) => c.startsWith(`DATA UPDATE FINGERTMP PIN=${dan.device_pin}\tFID=6\t`))).toBe(true);
    expect(statusOn((await listed(dan.id))[0]!, 'CARD1')).toBe('present');
  });
});

describe('a terminal that holds a finger and then switches its reader off', () => {
  test('stays a holder: a withdrawal deletes the finger there, and the proof waits for it', async () => {
    const fay = await person('K-FAY', true);
    const holder = await online('FPSW1');
    const other = await online('FPSW2');
    expect((await holder.enrollFinger(fay.device_pin, 3)).body).toBe('OK:1');
    await drain(other);
    expect(statusOn((await listed(fay.id))[0]!, 'FPSW1')).toBe('present');
    // The reader switched off in its menu, then a new version of the finger fans out to every terminal.
    await holder.post('cdata', { table: 'options' }, 'FingerFunOn=0,FPVersion=10,FaceFunOn=0,MultiBioDataSupport=0:0:0:0:0:0:0:0:0:0');
    expect((await other.enrollFinger(fay.device_pin, 3)).body).toBe('OK:1');
    // Version 2 cannot go there; version 1 is still there, and said so.
    expect((await listed(fay.id))[0]!.sync.find((s) => s.device === 'FPSW1')).toMatchObject({ status: 'incompatible', version: 2, held_version: 1 });
    expect((await server.admin.delete(`/enrollees/${fay.id}/consent/`)).status).toBe(200);
    const proof = async () =>
      (await server.admin.get(`/enrollees/${fay.id}/deletion-proof/`)).body as { complete: boolean; terminals: { serial_number: string; status: string }[] };
    expect((await proof()).terminals.map((t) => t.serial_number)).toContain('FPSW1');
    expect(await proof()).toMatchObject({ complete: false });
    expect(await drain(holder)).toContain(`DATA DELETE FINGERTMP PIN=${fay.device_pin}\tFID=3`);
    expect([...holder.templates.values()].some((t) => t.pin === fay.device_pin)).toBe(false);
  });
});

describe('a remote face or palm enrollment of a person who has a card', () => {
  test('ENROLL_BIO names their card (CardNo=), and a palm the terminal fails is said as the palm, not a finger', async () => {
    const gus = await person('K-GUS', true);
    expect((await server.admin.patch(`/enrollees/${gus.id}/`, { card: '4711' })).status).toBe(200);
    let enrollReturn = 0;
    const sf3 = await online('SF3', { biodata: true, kinds: SPEEDFACE, enrollReturn: () => enrollReturn });
    const face = await server.admin.post(`/enrollees/${gus.id}/remote-enrollment/`, { device: 'SF3', type: 'visible_face' });
    expect(face.status).toBe(201);
    const sent = await drain(sf3);
    expect(sent.filter((c) => c.startsWith('ENROLL_BIO '))).toEqual([`ENROLL_BIO TYPE=9\tPIN=${gus.device_pin}\tNO=0\tCardNo=4711\tRETRY=3\tOVERWRITE=1`]);
    expect((await server.admin.get(`/enrollment-sessions/${face.body.id}/`)).body.status).toBe('completed');
    expect(sf3.users.get(gus.device_pin)?.fields.Card).toBe('4711');

    enrollReturn = 6;
    const palm = await server.admin.post(`/enrollees/${gus.id}/remote-enrollment/`, { device: 'SF3', type: 'palm', fingers: [1] });
    expect(palm.status).toBe(201);
    expect((await drain(sf3)).filter((c) => c.startsWith('ENROLL_BIO '))).toEqual([
      `ENROLL_BIO TYPE=8\tPIN=${gus.device_pin}\tNO=1\tCardNo=4711\tRETRY=3\tOVERWRITE=1`,
    ]);
    const failed = (await server.admin.get(`/enrollment-sessions/${palm.body.id}/`)).body as { status: string; reason: string };
    expect(failed.status).toBe('failed');
    expect(failed.reason).toStartWith('ENROLL_BIO for palm 1 failed: ');
    expect(failed.reason).not.toContain('finger');
  });
});
