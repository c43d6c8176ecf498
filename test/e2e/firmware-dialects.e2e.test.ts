/**
 * Firmware the second replay met, spoken to over real HTTP as the terminals would (issue 23,
 * "The defects the second replay found"): command results posted to `cdata` without a table,
 * the Security PUSH handshake (bit-string TransFlag, `Encrypt=0`, `PushOptions`), −6xx return
 * codes that end a command at once, 3.x `tabledata` `biodata` stored by the walk-up rules,
 * people's tables never acknowledged and lost, `rtlog` events that are not verifications kept
 * out of attendance, the dialect a terminal declared at `registry`, a 3.x user record that
 * keeps the privilege and password its terminal gave an adopted user, and a 3.x enroll command
 * that names the person's card.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { punches, templates } from '../../src/app/schema';
import { syntheticTemplate } from '../../src/simulator/terminal';
import { admsFetch } from '../support/adms';
import { startTestServer, type TestServer } from '../support/harness';
import { deviceLog, deviceRow } from '../support/terminals';

let now = Date.parse('2026-03-02T08:00:00Z');
let server: TestServer;
let person: { id: string; device_pin: string };

const terminal = (path: string, body?: string) => admsFetch(server.url, path, body === undefined ? {} : { body });

interface Command {
  id: string;
  text: string;
}

/** One poll of a terminal: the `C:<id>:<text>` lines it got. */
async function poll(sn: string): Promise<Command[]> {
  const res = await terminal(`/iclock/getrequest?SN=${sn}`);
  expect(res.status).toBe(200);
  if (res.body.trim() === 'OK') return [];
  return res.body
    .split('\n')
    .filter((l) => l.startsWith('C:'))
    .map((l) => {
      const [, id = '', ...rest] = l.split(':');
      return { id, text: rest.join(':') };
    });
}

async function commandsOf(sn: string) {
  return (await server.admin.get(`/devices/${sn}/commands/`)).body.results as {
    id: number;
    kind: string;
    status: string;
    attempts: number;
    return_code: number | null;
  }[];
}

async function punchesOf(sn: string) {
  return server.fpa.db.orm.select().from(punches).where(eq(punches.deviceSerial, sn)).orderBy(punches.sequence);
}

async function fingersOf(enrolleeId: string) {
  const rows = await server.fpa.db.orm.select().from(templates).where(eq(templates.enrolleeId, enrolleeId));
  return rows.map((r) => ({ finger: r.fingerIndex, type: r.type }));
}

/** A 3.x terminal registered (registry with `body`) and approved. */
async function securityTerminal(sn: string, pushver: string | null, registryBody: string) {
  const v = pushver === null ? '' : `&pushver=${pushver}`;
  expect((await terminal(`/iclock/cdata?SN=${sn}&options=all${v}`)).body).toBe(pushver === null ? expect.any(String) : 'OK');
  const reg = await terminal(`/iclock/registry?SN=${sn}`, registryBody);
  expect(reg.body).toStartWith('RegistryCode=');
  await server.admin.post(`/devices/${sn}/approve/`);
}

/** Answers every command it gets with `code` at devicecmd until nothing is left. */
async function drain(sn: string, code = 0): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < 10; i++) {
    const got = await poll(sn);
    if (got.length === 0) break;
    seen.push(...got.map((c) => c.text));
    await terminal(`/iclock/devicecmd?SN=${sn}`, got.map((c) => `ID=${c.id}&Return=${code}&CMD=DATA\n`).join(''));
  }
  return seen;
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC' }, { clock: { now: () => now } });
  await server.admin.post('/employees/', { id: 'E-1', name: 'Ada Obi' });
  person = (await server.admin.post('/enrollees/', { employee: 'E-1' })).body;
  await server.admin.post(`/enrollees/${person.id}/consent/`, { version: 'v1', method: 'paper' });
});
afterAll(async () => {
  await server.close();
});

describe('command results posted to cdata without a table (U300-C rebrand)', () => {
  const SN = 'U300C0000001';

  test('close their commands as at devicecmd: not resent after the ack timeout, not failed', async () => {
    await terminal(`/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`);
    await server.admin.post(`/devices/${SN}/approve/`);
    // Every batch (the user query, then the enrollee's user record) is answered at cdata.
    const sent: Command[] = [];
    for (let i = 0; i < 10; i++) {
      const got = await poll(SN);
      if (got.length === 0) break;
      sent.push(...got);
      const res = await terminal(`/iclock/cdata?SN=${SN}`, got.map((c) => `ID=${c.id}&Return=0&CMD=DATA\n`).join(''));
      expect(res.status).toBe(200);
      expect(res.body).toBe('OK');
    }
    expect(sent.some((c) => c.text.startsWith('DATA UPDATE USERINFO '))).toBe(true);
    const byId = new Map((await commandsOf(SN)).map((c) => [String(c.id), c]));
    for (const c of sent) expect(byId.get(c.id)?.status).toBe('succeeded');
    // Past the acknowledgement deadline nothing is resent or failed.
    now += 10 * 60_000;
    const retry = await server.fpa.jobs.run('retry-commands', { wait: true });
    expect(retry.result).toMatchObject({ retried: 0, failed: 0 });
    expect(await poll(SN)).toEqual([]);
  });

  test('a table-less body that is not command results is answered OK and changes nothing', async () => {
    const before = await commandsOf(SN);
    const res = await terminal(`/iclock/cdata?SN=${SN}`, 'hello\n');
    expect(res.body).toBe('OK');
    expect(await commandsOf(SN)).toEqual(before);
  });

  test('from a pending terminal they are refused, as at devicecmd', async () => {
    await terminal('/iclock/cdata?SN=U300CPENDING&options=all');
    expect((await terminal('/iclock/cdata?SN=U300CPENDING', 'ID=1&Return=0&CMD=DATA\n')).status).toBe(403);
  });
});

describe('the Security PUSH handshake fits the version', () => {
  for (const pushver of ['3.0.1', '3.3.1']) {
    test(`${pushver}: TransFlag as a bit string, Encrypt=0, the PushOptions the service reads`, async () => {
      const sn = `SF2A${pushver.replace(/\./g, '')}`;
      await securityTerminal(sn, pushver, `DeviceType=acc,~DeviceName=SenseFace 2A,FirmVer=ZAM180,PushVersion=${pushver}`);
      const hello = await terminal(`/iclock/cdata?SN=${sn}&options=all&pushver=${pushver}`);
      expect(hello.body).toStartWith('registry=ok\nRegistryCode=');
      const lines = hello.body.split('\n');
      expect(lines).toContain('TransFlag=111111111111');
      expect(hello.body).not.toContain('TransData');
      expect(lines).toContain('Encrypt=0');
      expect(lines).not.toContain('Encrypt=None');
      const options = (lines.find((l) => l.startsWith('PushOptions=')) ?? '').slice('PushOptions='.length).split(',');
      for (const key of [
        'FingerFunOn',
        'FaceFunOn',
        'FPVersion',
        'FaceVersion',
        'TransactionCount',
        'UserCount',
        'FPCount',
        'MultiBioDataSupport',
        'FWVersion',
      ]) {
        expect(options).toContain(key);
      }
      // The terminal then uploads just those keys, and the service reads them.
      const upload = await terminal(
        `/iclock/cdata?SN=${sn}&table=options`,
        'FingerFunOn=0,FaceFunOn=1,FaceVersion=58,UserCount=3,TransactionCount=12,FWVersion=ZAM180-1.0',
      );
      expect(upload.body).toBe('OK');
      const row = (await deviceRow(server.fpa, sn))!;
      expect(row).toMatchObject({ faceAlgorithmVersion: '58', userCount: 3, attendanceCount: 12, firmware: 'ZAM180-1.0' });
    });
  }

  test('2.x terminals keep the named TransFlag and Encrypt=None', async () => {
    const res = await terminal('/iclock/cdata?SN=ATT2X0000001&options=all&pushver=2.4.1');
    expect(res.body).toContain('\nTransFlag=TransData AttLog\tOpLog\t');
    expect(res.body).toContain('\nEncrypt=None\n');
    expect(res.body).not.toContain('PushOptions=');
  });
});

describe('−6xx answers of Security PUSH end a command at once', () => {
  const SN = 'BIOFACE629';

  test('−629 fails the command without a retry; −731 (the line) is retried', async () => {
    await securityTerminal(SN, '3.1.2', 'DeviceType=acc,~DeviceName=BioFace A1,PushVersion=3.1.2');
    await drain(SN);
    await server.admin.post(`/devices/${SN}/commands/`, { kind: 'query_users' });
    const [q] = await poll(SN);
    expect(q?.text).toStartWith('DATA QUERY tablename=user');
    await terminal(`/iclock/devicecmd?SN=${SN}`, `ID=${q!.id}&Return=-629&CMD=DATA\n`);
    const failed = (await commandsOf(SN)).find((c) => String(c.id) === q!.id);
    expect(failed).toMatchObject({ status: 'failed', return_code: -629, attempts: 1 });
    now += 10 * 60_000;
    expect(await poll(SN)).toEqual([]);

    await server.admin.post(`/devices/${SN}/commands/`, { kind: 'info' });
    const [info] = await poll(SN);
    await terminal(`/iclock/devicecmd?SN=${SN}`, `ID=${info!.id}&Return=-731&CMD=INFO\n`);
    expect((await commandsOf(SN)).find((c) => String(c.id) === info!.id)).toMatchObject({ status: 'pending', return_code: -731 });
  });
});

describe('3.x tabledata biodata (BioFace A1)', () => {
  const SN = 'BIOFACEA1001';

  test('a template of an adopted, consenting, in-scope person is stored as the 2.x BIODATA one is', async () => {
    await securityTerminal(SN, '3.1.2', 'DeviceType=acc,~DeviceName=BioFace A1,PushVersion=3.1.2,MultiBioDataSupport=0:1:0:0:0:0:0:0:0:1');
    const sent = await drain(SN);
    // The person was put on the terminal in its dialect, and the terminal confirmed it.
    expect(sent.some((t) => t.startsWith(`DATA UPDATE user `) && t.includes(`Pin=${person.device_pin}`))).toBe(true);
    const tmp = syntheticTemplate();
    const body = `biodata pin=${person.device_pin}\tno=3\tindex=0\tvalid=1\tduress=0\ttype=1\tmajorver=10\tminorver=0\tformat=0\ttmp=${tmp}\n`;
    const res = await terminal(`/iclock/cdata?SN=${SN}&table=tabledata&tablename=biodata&count=1`, body);
    expect(res.status).toBe(200);
    expect(res.body).toBe('biodata=1');
    expect(await fingersOf(person.id)).toContainEqual({ finger: 3, type: 'fingerprint' });
    expect(await deviceLog(server.fpa, SN, 'tabledata_ignored')).toHaveLength(0);
  });

  test('the same rules refuse a person without consent, with the usual rejection', async () => {
    await server.admin.post('/employees/', { id: 'E-2', name: 'Bo Li' });
    const other = (await server.admin.post('/enrollees/', { employee: 'E-2' })).body as { id: string; device_pin: string };
    await drain(SN);
    const body = `biodata pin=${other.device_pin}\tno=2\tindex=0\tvalid=1\tduress=0\ttype=1\tmajorver=10\tminorver=0\tformat=0\ttmp=${syntheticTemplate()}\n`;
    expect((await terminal(`/iclock/cdata?SN=${SN}&table=tabledata&tablename=biodata&count=1`, body)).body).toBe('biodata=1');
    expect(await fingersOf(other.id)).toEqual([]);
    const rejected = await deviceLog(server.fpa, SN, 'template_rejected');
    expect(rejected.map((r) => (r.details as { reason: string }).reason)).toContain('consent_required');
  });

  test('a people table the service does not read is refused, so the terminal keeps it; photos are acknowledged as in 2.x', async () => {
    const refused = await terminal(
      `/iclock/cdata?SN=${SN}&table=tabledata&tablename=fvtemplate&count=1`,
      `fvtemplate pin=${person.device_pin}\tfid=1\ttmp=AAAA\n`,
    );
    expect(refused.status).toBe(422);
    expect(refused.body).not.toStartWith('fvtemplate=');
    expect((await deviceLog(server.fpa, SN, 'tabledata_refused')).map((e) => (e.details as { table: string }).table)).toEqual(['fvtemplate']);
    const photo = await terminal(
      `/iclock/cdata?SN=${SN}&table=tabledata&tablename=biophoto&count=1`,
      `biophoto pin=${person.device_pin}\tfilename=1.jpg\ttype=9\tsize=4\tcontent=AAAA\n`,
    );
    expect(photo.body).toBe('biophoto=1');
    // Not kept, but noted on the terminal's user: a withdrawal of consent deletes it there too.
    const users = (await server.admin.get(`/devices/${SN}/users/`)).body.results as { pin: string; biometrics: Record<string, number> }[];
    expect(users.find((u) => u.pin === person.device_pin)?.biometrics).toMatchObject({ face_photo: 1 });
    const harmless = await terminal(`/iclock/cdata?SN=${SN}&table=tabledata&tablename=DeviceAuthorize&count=1`, 'DeviceAuthorize SN=X1\tOnline=1\n');
    expect(harmless.body).toBe('DeviceAuthorize=1');
    // Access settings that only name a PIN are the terminal's configuration: acknowledged as before.
    const settings = await terminal(
      `/iclock/cdata?SN=${SN}&table=tabledata&tablename=userauthorize&count=1`,
      `userauthorize pin=${person.device_pin}\tauthorizetimezoneid=1\tauthorizedoorid=1\n`,
    );
    expect(settings.body).toBe('userauthorize=1');
    // A person's record in a table this service does not know (name and card) is refused too.
    const people = await terminal(
      `/iclock/cdata?SN=${SN}&table=tabledata&tablename=employee&count=1`,
      `employee pin=${person.device_pin}\tname=Ada\tcardno=123\n`,
    );
    expect(people.status).toBe(422);
  });
});

describe('3.x remote enrollment', () => {
  test('the enroll command names the person’s card (cardno=), as their user record does', async () => {
    const SN = 'BIOFACEA1CARD';
    await securityTerminal(SN, '3.1.2', 'DeviceType=acc,~DeviceName=BioFace A1,PushVersion=3.1.2,MultiBioDataSupport=0:1:0:0:0:0:0:0:0:1');
    await server.admin.post('/employees/', { id: 'E-4', name: 'Cy Card' });
    const cy = (await server.admin.post('/enrollees/', { employee: 'E-4' })).body as { id: string; device_pin: string };
    await server.admin.post(`/enrollees/${cy.id}/consent/`, { version: 'v1', method: 'paper' });
    expect((await server.admin.patch(`/enrollees/${cy.id}/`, { card: '4711' })).status).toBe(200);
    const started = await server.admin.post(`/enrollees/${cy.id}/remote-enrollment/`, { device: SN, fingers: [6] });
    expect(started.status).toBe(201);
    const sent = await drain(SN);
    expect(sent.find((t) => t.startsWith('DATA UPDATE user ') && t.includes(`Pin=${cy.device_pin}`))).toContain('CardNo=4711');
    expect(sent.filter((t) => t.startsWith('ENROLL_BIO '))).toEqual([`ENROLL_BIO type=1\tno=6\tpin=${cy.device_pin}\tcardno=4711\tretry=3\toverwrite=1`]);
  });
});

describe('cdata tables this service has no reader for', () => {
  const SN = 'BIOFACEA1001';

  test('people’s data or an unreadable body is refused; door states and settings are acknowledged', async () => {
    const users = await terminal(`/iclock/cdata?SN=${SN}&table=USERINFO`, `USERINFO PIN=${person.device_pin}\tName=Ada\tCard=123\n`);
    expect(users.status).toBe(422);
    const packed = await admsFetch(server.url, `/iclock/cdata?SN=${SN}&table=transaction&count=3&datafmt=3`, {
      body: new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x00, 0xff, 0x03, 0x00]),
    });
    expect(packed.status).toBe(422);
    expect((await deviceLog(server.fpa, SN, 'upload_refused')).map((e) => (e.details as { table: string }).table)).toEqual(['USERINFO', 'transaction']);
    expect(
      (await terminal(`/iclock/cdata?SN=${SN}&table=rtstate`, 'time=2026-03-02 08:00:00\tsensor=01\trelay=00\talarm=0000000000000000\tdoor=01\n')).body,
    ).toBe('OK');
    expect((await terminal(`/iclock/cdata?SN=${SN}&table=doorparams`, 'doorparams doorid=1\tdrivertime=5\n')).body).toBe('OK');
    expect((await deviceLog(server.fpa, SN, 'upload_ignored')).map((e) => (e.details as { table: string }).table)).toEqual(['doorparams']);
  });
});

describe('rtlog events of access panels', () => {
  const SN = 'C3PANEL00001';

  test('only verifications are punches; denials, alarms, door states and temperature refusals go to the device log', async () => {
    await securityTerminal(SN, '3.1.2', 'DeviceType=acc,~DeviceName=C3-400,PushVersion=3.1.2');
    await drain(SN);
    const pin = person.device_pin;
    const line = (time: string, event: number, p = pin, extra = '') =>
      `time=2026-03-02 ${time}\tpin=${p}\tcardno=0\tsitecode=0\tlinkid=0\teventaddr=1\tevent=${event}\tinoutstatus=0\tverifytype=15\tindex=1${extra}\n`;
    const body =
      line('08:00:00', 0, pin, '\ttemperature=36.7\tmaskflag=1\tconvtemperature=98.1') +
      line('08:01:00', 27) +
      line('08:02:00', 68, pin, '\ttemperature=38.4\tmaskflag=1') +
      line('08:03:00', 69) +
      line('08:04:00', 103) +
      line('08:05:00', 200, '0') +
      line('08:06:00', 24) +
      line('08:07:00', 17);
    const res = await terminal(`/iclock/cdata?SN=${SN}&table=rtlog`, body);
    expect(res.body).toBe('OK');
    const punches = await punchesOf(SN);
    expect(punches.map((p) => p.localTime)).toEqual(['2026-03-02 08:00:00', '2026-03-02 08:07:00']);
    // A punch that passed the temperature check keeps no temperature either.
    expect(punches[0]!.raw).not.toMatch(/36\.7|98\.1|maskflag/i);
    const denied = await deviceLog(server.fpa, SN, 'access_denied');
    expect(denied.map((d) => (d.details as { event: number }).event).sort((a, b) => a - b)).toEqual([24, 27, 68, 69]);
    const fever = denied.find((d) => (d.details as { event: number }).event === 68);
    expect(fever?.details).toMatchObject({ pin, local_time: '2026-03-02 08:02:00' });
    // The measured temperature and mask flag (health data) are not kept.
    expect(JSON.stringify(fever)).not.toContain('38.4');
    expect(fever?.details).not.toHaveProperty('maskflag');
    expect((await deviceLog(server.fpa, SN, 'access_alarm')).map((d) => (d.details as { event: number }).event)).toEqual([103]);
    expect((await deviceLog(server.fpa, SN, 'access_normal')).map((d) => (d.details as { event: number }).event)).toEqual([200]);
  });

  test('stored access records (tabledata transaction) follow the same rule', async () => {
    const body = `transaction cardno=0\tpin=${person.device_pin}\tverified=1\tdoorid=1\teventtype=23\tinoutstate=0\ttime=2026-03-02 09:00:00\ntransaction cardno=0\tpin=${person.device_pin}\tverified=1\tdoorid=1\teventtype=0\tinoutstate=0\ttime=2026-03-02 09:01:00\n`;
    const res = await terminal(`/iclock/cdata?SN=${SN}&table=tabledata&tablename=transaction&count=2`, body);
    expect(res.body).toBe('transaction=1');
    expect((await punchesOf(SN)).map((p) => p.localTime)).toContain('2026-03-02 09:01:00');
    expect((await punchesOf(SN)).map((p) => p.localTime)).not.toContain('2026-03-02 09:00:00');
    expect((await deviceLog(server.fpa, SN, 'access_denied')).map((d) => (d.details as { local_time: string }).local_time)).toContain('2026-03-02 09:00:00');
  });
});

describe('3.x user records keep what the terminal gave its own user', () => {
  const SN = 'ACCADMIN0001';

  test('an adopted 3.x administrator: the next `user` record keeps its Privilege and its Password', async () => {
    await securityTerminal(SN, '3.1.2', 'DeviceType=acc,~DeviceName=SpeedFace-V5L,PushVersion=3.1.2');
    await drain(SN);
    const user = 'user uid=9\tcardno=\tpin=9\tpassword=4321\tgroup=0\tstarttime=0\tendtime=0\tname=Site Admin\tprivilege=14\n';
    expect((await terminal(`/iclock/cdata?SN=${SN}&table=tabledata&tablename=user&count=1`, user)).status).toBe(200);
    expect((await server.admin.post('/employees/', { id: 'E-ADM', name: 'Site Admin' })).status).toBe(201);
    expect((await server.admin.post(`/devices/${SN}/users/9/adopt/`, { employee: 'E-ADM' })).status).toBe(201);
    const record = (await drain(SN)).find((t) => t.startsWith('DATA UPDATE user ') && t.includes('\tPin=9\t'));
    expect(record).toContain('\tPassword=4321\t');
    expect(record).toEndWith('\tPrivilege=14');
  });
});

describe('the dialect follows what the terminal declared at registry', () => {
  const SN = 'ACCNOPUSHVER';

  test('DeviceType=acc without a 3.x pushver on the handshake: 3.x answer and 3.x user commands', async () => {
    // First contact without pushver: the service does not know the dialect yet (2.x answer).
    expect((await terminal(`/iclock/cdata?SN=${SN}&options=all`)).body).toStartWith('GET OPTION FROM:');
    const reg = await terminal(`/iclock/registry?SN=${SN}`, 'DeviceType=acc,~DeviceName=SpeedFace-V5L,FirmVer=ZAM180,PushVersion=Ver 2.0.40');
    expect(reg.body).toStartWith('RegistryCode=');
    const row = (await deviceRow(server.fpa, SN))!;
    expect(row.deviceType).toBe('acc');
    const hello = await terminal(`/iclock/cdata?SN=${SN}&options=all`);
    expect(hello.body).toStartWith(`registry=ok\n${reg.body}\n`);
    expect(hello.body.split('\n')).toContain('TransFlag=111111111111');
    await server.admin.post(`/devices/${SN}/approve/`);
    const texts = await drain(SN);
    expect(texts[0]).toStartWith('DATA QUERY tablename=user');
    const userCommands = texts.filter((t) => t.includes(`Pin=${person.device_pin}`) || t.includes(`PIN=${person.device_pin}`));
    expect(userCommands.length).toBeGreaterThan(0);
    for (const t of userCommands) {
      expect(t).not.toStartWith('DATA UPDATE USERINFO');
    }
    expect(userCommands.some((t) => t.startsWith('DATA UPDATE user '))).toBe(true);
  });

  test('a 2.x pushver on the handshake after an access-control build (firmware gone back): 2.x again, not 3.x commands it refuses for good', async () => {
    const sn = 'ACCDOWNGRADE1';
    await securityTerminal(sn, '3.1.2', 'DeviceType=acc,~DeviceName=SpeedFace-V5L-RFID,PushVersion=3.1.2');
    await drain(sn);
    expect((await terminal(`/iclock/cdata?SN=${sn}&options=all&pushver=3.1.2`)).body).toStartWith('registry=ok\n');
    // The attendance firmware is put back: its handshake says 2.4.1.
    const hello = await terminal(`/iclock/cdata?SN=${sn}&options=all&pushver=2.4.1&PushOptionsFlag=1`);
    expect(hello.body).toStartWith('GET OPTION FROM:');
    expect((await deviceRow(server.fpa, sn))!).toMatchObject({ deviceType: null, pushVersion: '2.4.1' });
    await server.admin.post(`/devices/${sn}/commands/`, { kind: 'query_users' });
    const texts = await drain(sn);
    expect(texts).toContain('DATA QUERY USERINFO');
    expect(texts.some((t) => t.startsWith('DATA QUERY tablename=user'))).toBe(false);
  });

  test('an attendance terminal declaring DeviceType=att keeps the 2.x dialect', async () => {
    await terminal('/iclock/cdata?SN=ATTREGISTRY1&options=all&pushver=2.4.1');
    await terminal('/iclock/registry?SN=ATTREGISTRY1', 'DeviceType=att,~DeviceName=MB10,PushVersion=2.4.1');
    await server.admin.post('/devices/ATTREGISTRY1/approve/');
    const texts = await drain('ATTREGISTRY1');
    expect(texts.some((t) => t.startsWith('DATA UPDATE USERINFO '))).toBe(true);
    expect((await terminal('/iclock/cdata?SN=ATTREGISTRY1&options=all&pushver=2.4.1')).body).toStartWith('GET OPTION FROM:');
  });
});

describe('3.x deletes, in the spelling each table needs', () => {
  test('a withdrawal deletes BIODATA templates as `DATA DELETE biodata Type=…\tpin=…\tno=…`, v10 fingerprints as `templatev10`', async () => {
    const BIO = 'BIOFACEDEL01';
    const V10 = 'SF2AV10DEL01';
    await securityTerminal(BIO, '3.1.2', 'DeviceType=acc,~DeviceName=BioFace A1,PushVersion=3.1.2,MultiBioDataSupport=0:1:0:0:0:0:0:0:0:1');
    await securityTerminal(V10, '3.1.2', 'DeviceType=acc,~DeviceName=SenseFace 2A,PushVersion=3.1.2,FPVersion=10');
    await server.admin.post('/employees/', { id: 'E-5', name: 'Di Delete' });
    const di = (await server.admin.post('/enrollees/', { employee: 'E-5' })).body as { id: string; device_pin: string };
    await server.admin.post(`/enrollees/${di.id}/consent/`, { version: 'v1', method: 'paper' });
    await drain(BIO);
    await drain(V10);
    // Enrolled at the BioFace: a v10 finger and a visible-light face, uploaded as 3.x biodata.
    const biodata = (type: number, no: number, major: string, minor: string) =>
      `biodata pin=${di.device_pin}\tno=${no}\tindex=0\tvalid=1\tduress=0\ttype=${type}\tmajorver=${major}\tminorver=${minor}\tformat=0\ttmp=${syntheticTemplate()}\n`;
    const uploaded = await terminal(`/iclock/cdata?SN=${BIO}&table=tabledata&tablename=biodata&count=2`, biodata(1, 3, '10', '0') + biodata(9, 0, '58', '10'));
    expect(uploaded.body).toBe('biodata=2');
    expect((await fingersOf(di.id)).sort((a, b) => a.type.localeCompare(b.type))).toEqual([
      { finger: 3, type: 'fingerprint' },
      { finger: 0, type: 'visible_face' },
    ]);
    // The v10 finger reaches the SenseFace as templatev10 (it declared no BIODATA).
    expect((await drain(V10)).filter((t) => t.includes(`pin=${di.device_pin}`))).toEqual([expect.stringMatching(/^DATA UPDATE templatev10 /)]);
    await drain(BIO);

    expect((await server.admin.delete(`/enrollees/${di.id}/consent`)).status).toBe(200);
    expect((await drain(BIO)).sort()).toEqual([
      `DATA DELETE biodata Type=1\tpin=${di.device_pin}\tno=3`,
      `DATA DELETE biodata Type=9\tpin=${di.device_pin}\tno=0`,
    ]);
    expect(await drain(V10)).toEqual([`DATA DELETE templatev10 pin=${di.device_pin}\tfingerid=3`]);
    // Both answered: the person's deletion proof has them confirmed (the file's other terminals answer on their own polls).
    const proof = (await server.admin.get(`/enrollees/${di.id}/deletion-proof/`)).body as { terminals: { serial_number: string; status: string }[] };
    expect(proof.terminals.filter((t) => t.serial_number === BIO || t.serial_number === V10).map((t) => t.status)).toEqual(['confirmed', 'confirmed']);
  });
});
