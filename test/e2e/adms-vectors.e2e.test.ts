/**
 * The terminal endpoints driven with the vectors of docs/protocol/adms-vectors.md over real HTTP (raw
 * sockets where the exact headers matter): registration, options, INFO, attendance in a
 * device time zone, resends, OPERLOG/BIODATA, photos, commands, the 3.x registry flow, and
 * the rules for pending and disabled terminals.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { punches } from '../../src/app/schema';
import {
  admsFetch,
  attPhotoBody,
  fakeJpeg,
  isHttpDate,
  rawRequest,
  V02,
  V04,
  V04B_11_FIELDS,
  V04B_CRLF,
  V04B_THERMAL,
  V04B_TRAILING_TAB,
  V05A,
  V05B,
  V05C,
  V06,
  V09,
  V10C,
  V11,
  V21,
} from '../support/adms';
import { startTestServer, type TestServer } from '../support/harness';
import { deviceLog, deviceRow as deviceRowOf } from '../support/terminals';

const SN = 'CKJF201960996';
const MB360 = 'CEZU202360241';
const SN3 = 'AJYS123456789';

let server: TestServer;
/** Every terminal reply of this file, to check the Date and Content-Type headers of all of them. */
const replies: { path: string; date: string | null; type: string | null }[] = [];
const registered: string[] = [];

async function terminal(path: string, init: { body?: string | Uint8Array<ArrayBuffer>; headers?: Record<string, string>; method?: string } = {}) {
  const res = await admsFetch(server.url, path, init);
  replies.push({ path, date: res.headers.get('date'), type: res.headers.get('content-type') });
  return res;
}

async function raw(req: Parameters<typeof rawRequest>[1]) {
  const res = await rawRequest(server.url, req);
  replies.push({ path: req.path, date: res.headers.date ?? null, type: res.headers['content-type'] ?? null });
  return res;
}

const deviceRow = async (serial: string) => (await deviceRowOf(server.fpa, serial))!;

const eventsOf = (serial: string, kind: string) => deviceLog(server.fpa, serial, kind);

async function punchesOf(serial: string) {
  return server.fpa.db.orm.select().from(punches).where(eq(punches.deviceSerial, serial)).orderBy(punches.sequence);
}

beforeAll(async () => {
  server = await startTestServer();
  server.fpa.events.on('device_registered', ({ device }) => void registered.push(device.serial_number));
});
afterAll(async () => {
  await server.close();
});

describe('V01 handshake and registration', () => {
  test('an unknown terminal is registered as pending and still gets the full option block', async () => {
    const res = await raw({ method: 'GET', path: `/iclock/cdata?SN=${SN}&options=all&language=69&pushver=2.4.1&PushOptionsFlag=1` });
    expect(res.status).toBe(200);
    expect(res.body.startsWith(`GET OPTION FROM: ${SN}\n`)).toBe(true);
    for (const line of [
      'TimeZone=0',
      'Delay=10',
      'ErrorDelay=30',
      'Realtime=1',
      'ServerVer=2.4.1',
      'PushProtVer=2.4.1',
      'PushOptionsFlag=1',
      'ATTLOGStamp=9999',
    ]) {
      expect(res.body).toContain(`\n${line}\n`);
    }
    expect(res.body).toContain('\nTransFlag=TransData AttLog\tOpLog\tAttPhoto\t');
    expect(res.body.endsWith('\n')).toBe(true);
    expect(isHttpDate(res.headers.date)).toBe(true);
    expect(res.headers['content-type']).toStartWith('text/plain');
    expect((await deviceRow(SN)).status).toBe('pending_approval');
    expect(registered).toContain(SN);
  });

  test('V01b: MB360 parameter order, and legacy firmware without pushver gets the legacy stamp names', async () => {
    const mb = await terminal(`/iclock/cdata?PushOptionsFlag=2&SN=${MB360}&language=69&options=all&pushver=2.4.0`);
    expect(mb.status).toBe(200);
    expect(mb.body).toStartWith(`GET OPTION FROM: ${MB360}`);
    expect(mb.body).toContain('\nPushProtVer=2.4.0\n');
    const legacy = await terminal('/iclock/cdata?SN=0234567890123&options=all');
    expect(legacy.body).toContain('\nStamp=9999\nOpStamp=9999\nPhotoStamp=9999\n');
    expect(legacy.body).toContain('\nPushProtVer=2.2.14\n');
  });

  test('cdata.aspx, trailing slashes, lower-case sn and unknown paths are accepted', async () => {
    expect((await terminal(`/iclock/cdata.aspx?SN=${SN}&options=all`)).body).toStartWith('GET OPTION FROM:');
    expect((await terminal(`/iclock/getrequest/?SN=${SN}`)).body).toBe('OK');
    expect((await terminal(`/iclock/ping.aspx?sn=${SN}`)).body).toBe('OK');
    expect((await terminal(`/iclock/edata?SN=${SN}`)).body).toBe('OK');
    expect((await terminal('/iclock/FileName=options.cfg?')).body).toBe('OK');
    expect((await terminal(`/iclock/cdata?SN=${SN}&table=RemoteAtt&PIN=1001`)).body).toBe('OK');
    const time = await terminal(`/iclock/cdata?SN=${SN}&type=time`);
    expect(time.body).toMatch(/^Time=\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
  });

  test('a request without SN is answered 400 in plain text, not JSON', async () => {
    const res = await terminal('/iclock/cdata?options=all');
    expect(res.status).toBe(400);
    expect(res.body).toBe('missing SN');
  });
});

describe('a pending terminal', () => {
  test('V02 options are taken (the administrator sees the model before approving)', async () => {
    const res = await terminal(`/iclock/cdata?SN=${SN}&table=options`, { body: V02 });
    expect(res.body).toBe('OK');
    const row = await deviceRow(SN);
    expect(row.firmware).toBe('ZAM170-NF-Ver1.1.27');
    expect(row.algorithmVersion).toBe('10');
    expect(row.faceAlgorithmVersion).toBe('58');
    expect(row.parameters?.['~OEMVendor']).toBe('ZKTeco Co., Ltd.');
    expect(Object.keys(row.parameters ?? {})).not.toContain(' Ltd.');
    // MultiBioDataSupport has a 1 at index 1: this terminal takes fingerprints as BIODATA.
    expect(row.speaksBiodata).toBe(true);
  });

  test('V03 polls are answered OK with no commands, and INFO is recorded', async () => {
    const res = await terminal(`/iclock/getrequest?SN=${MB360}&INFO=Ver%208.0.4.2-I113-02,143,1,109,172.16.12.182,10,7,12,141,111`);
    expect(res.body).toBe('OK');
    const row = await deviceRow(MB360);
    expect(row.firmware).toBe('Ver 8.0.4.2-I113-02');
    expect(row.userCount).toBe(143);
    expect(row.attendanceCount).toBe(109);
    // What the terminal reports for itself; ip_address stays the address the service sees it at.
    expect(row.reportedAddress).toBe('172.16.12.182');
    expect(row.ipAddress).toBe('127.0.0.1');
    expect(row.algorithmVersion).toBe('10');
  });

  test('its data is refused with 403 in plain text, and nothing is stored', async () => {
    for (const [table, body] of [
      ['ATTLOG', V04],
      ['OPERLOG', V05A],
      ['BIODATA', V06],
    ] as const) {
      const res = await terminal(`/iclock/cdata?SN=${SN}&table=${table}&Stamp=9999`, { body });
      expect(res.status).toBe(403);
      expect(res.body).not.toContain('{');
      expect(res.headers.get('content-type')).toStartWith('text/plain');
    }
    expect((await terminal(`/iclock/devicecmd?SN=${SN}`, { body: V09 })).status).toBe(403);
    expect(await punchesOf(SN)).toHaveLength(0);
    expect((await terminal(`/iclock/ping?SN=${SN}`)).body).toBe('OK');
  });
});

describe('attendance of an approved terminal in Asia/Kolkata', () => {
  beforeAll(async () => {
    expect((await server.admin.post(`/devices/${SN}/approve/`)).status).toBe(200);
    expect((await server.admin.patch(`/devices/${SN}/`, { time_zone: 'Asia/Kolkata' })).status).toBe(200);
  });

  test('the handshake announces +05:30 in minutes', async () => {
    const res = await terminal(`/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`);
    expect(res.body).toContain('\nTimeZone=330\n');
  });

  test('V04 is stored with the expected UTC instants and answered OK:3, once', async () => {
    const first = await terminal(`/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`, { body: V04 });
    expect(first.status).toBe(200);
    expect(first.body).toBe('OK:3');
    const rows = await punchesOf(SN);
    expect(rows.map((r) => [r.devicePin, r.localTime, new Date(r.punchedAt).toISOString(), r.state, r.verifyType, r.workCode, r.utcOffsetMinutes])).toEqual([
      ['1001', '2024-03-11 08:59:12', '2024-03-11T03:29:12.000Z', 0, 1, '0', 330],
      ['1002', '2024-03-11 09:01:47', '2024-03-11T03:31:47.000Z', 0, 15, '0', 330],
      ['1001', '2024-03-11 18:02:03', '2024-03-11T12:32:03.000Z', 1, 1, '0', 330],
    ]);
    expect(rows.every((r) => r.flags.includes('unknown_pin'))).toBe(true);
    // The terminal resends when the answer is lost: acknowledged again, stored once.
    const again = await terminal(`/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`, { body: V04 });
    expect(again.body).toBe('OK:3');
    expect(await punchesOf(SN)).toHaveLength(3);
  });

  test('V04b edge cases: 11 fields, empty work code without Content-Type, CRLF, thermal fields', async () => {
    const eleven = await terminal(`/iclock/cdata?SN=${SN}&table=ATTLOG`, { body: V04B_11_FIELDS });
    expect(eleven.body).toBe('OK:1');
    const noType = await raw({ method: 'POST', path: `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`, body: V04B_TRAILING_TAB });
    expect(noType.status).toBe(200);
    expect(noType.body).toBe('OK:1');
    expect((await terminal(`/iclock/cdata?SN=${SN}&table=ATTLOG`, { body: V04B_CRLF.replace('08:59:12', '07:00:00') })).body).toBe('OK:1');
    expect((await terminal(`/iclock/cdata?SN=${SN}&table=ATTLOG`, { body: V04B_THERMAL.replace('08:59:12', '07:30:00') })).body).toBe('OK:1');
    const rows = await punchesOf(SN);
    const byPin = (pin: string) => rows.filter((r) => r.devicePin === pin);
    expect(byPin('46')[0]!.verifyType).toBe(15);
    expect(byPin('46')[0]!.raw).toContain('10881');
    expect(byPin('1234')[0]!.workCode).toBe('');
    // The thermal line's punch is kept; its mask flag and temperatures (health data) are not.
    const thermal = rows.find((r) => r.localTime === '2024-03-11 07:30:00')!;
    expect(thermal.verifyType).toBe(15);
    expect(thermal.raw).not.toMatch(/36\.5|97\.7/);
  });

  test('bare CR line ends: every record is stored, none glued onto the one before', async () => {
    const body = '61\t2024-03-11 06:00:01\t0\t1\t0\t0\t0\r62\t2024-03-11 06:00:02\t0\t1\t0\t0\t0\r';
    expect((await terminal(`/iclock/cdata?SN=${SN}&table=ATTLOG`, { body })).body).toBe('OK:2');
    const rows = (await punchesOf(SN)).filter((r) => r.devicePin === '61' || r.devicePin === '62');
    expect(rows.map((r) => [r.devicePin, r.localTime])).toEqual([
      ['61', '2024-03-11 06:00:01'],
      ['62', '2024-03-11 06:00:02'],
    ]);
  });

  test('a body with Content-Type application/json or form encoding is still read raw', async () => {
    for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
      const res = await terminal(`/iclock/cdata?SN=${SN}&table=ATTLOG`, {
        body: `77\t2024-03-12 10:00:0${type.length % 10}\t0\t1\t0\t0\t0\n`,
        headers: { 'content-type': type },
      });
      expect(res.body).toBe('OK:1');
    }
  });

  test('Expect: 100-continue gets OK:n over a raw socket', async () => {
    const res = await raw({
      method: 'POST',
      path: `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`,
      body: '88\t2024-03-12 11:00:00\t0\t1\t0\t0\t0\n88\t2024-03-12 19:00:00\t1\t1\t0\t0\t0\n',
      headers: { 'Content-Type': 'text/plain' },
      expectContinue: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toBe('OK:2');
    expect(isHttpDate(res.headers.date)).toBe(true);
  });

  test('a malformed line is logged and skipped without costing its neighbours', async () => {
    const body =
      '90\t2024-03-12 08:00:00\t0\t1\t0\t0\t0\nthis is not a punch\n91\t2024-02-30 08:00:00\t0\t1\t0\t0\t0\n92\t2024-03-12 08:05:00\t0\t1\t0\t0\t0\n';
    const res = await terminal(`/iclock/cdata?SN=${SN}&table=ATTLOG`, { body });
    expect(res.body).toBe('OK:2');
    const pins = (await punchesOf(SN)).map((r) => r.devicePin);
    expect(pins).toContain('90');
    expect(pins).toContain('92');
    expect(pins).not.toContain('91');
    const events = await eventsOf(SN, 'malformed_line');
    expect(events.map((e) => e.details?.line)).toEqual(expect.arrayContaining([2, 3]));
  });

  test('future times and reset clocks are kept and flagged', async () => {
    const future = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const res = await terminal(`/iclock/cdata?SN=${SN}&table=ATTLOG`, {
      body: `93\t${future} 09:00:00\t0\t1\t0\t0\t0\n94\t2000-01-01 00:01:00\t0\t1\t0\t0\t0\n`,
    });
    expect(res.body).toBe('OK:2');
    const rows = await punchesOf(SN);
    expect(rows.find((r) => r.devicePin === '93')!.flags).toContain('future_time');
    expect(rows.find((r) => r.devicePin === '94')!.flags).toContain('clock_reset');
  });
});

describe('OPERLOG, BIODATA, photos and commands', () => {
  test('V05a USER is acknowledged OK:1', async () => {
    expect((await terminal(`/iclock/cdata?SN=${SN}&table=OPERLOG&Stamp=9999`, { body: V05A })).body).toBe('OK:1');
  });

  test("V05b USER + FP of a PIN the service never gave out: OK:2, the terminal's own user, logged without the template bytes", async () => {
    const res = await terminal(`/iclock/cdata?SN=${SN}&table=OPERLOG&OpStamp=9999`, { body: V05B });
    expect(res.body).toBe('OK:2');
    expect(await eventsOf(SN, 'template_rejected')).toHaveLength(0);
    const [kept] = await eventsOf(SN, 'terminal_user_template');
    expect(kept!.details).toMatchObject({ pin: '1001', finger_index: 6 });
    expect(JSON.stringify(kept)).not.toContain('SghTUzIx');
    const device = await deviceRow(SN);
    const user = await server.fpa.service.devices.users.one(server.fpa.db.orm, device.id, '1001');
    expect(user).toMatchObject({ name: 'Ana Pérez', card: '123456789', enrolleeId: null, biometrics: { fingerprint: [6] } });
  });

  test('V05c OPLOG batch: OK:6 and operation events; V10c: OK:1', async () => {
    expect((await terminal(`/iclock/cdata?SN=${SN}&table=OPERLOG&Stamp=9999`, { body: V05C })).body).toBe('OK:6');
    expect((await terminal(`/iclock/cdata?SN=${SN}&table=OPERLOG&Stamp=9999`, { body: V10C })).body).toBe('OK:1');
    const ops = await eventsOf(SN, 'operation');
    expect(ops).toHaveLength(7);
    expect(ops.some((e) => JSON.stringify(e.details?.objects) === JSON.stringify(['DHCP', '0', '0', '0']))).toBe(true);
  });

  test("V06 palm and visible-light face BIODATA: OK:2, counted as the terminal's own user's, never logged with their bytes", async () => {
    expect((await terminal(`/iclock/cdata?SN=${SN}&table=BIODATA&Stamp=9999`, { body: V06 })).body).toBe('OK:2');
    const kept = (await eventsOf(SN, 'terminal_user_template')).filter((e) => e.details?.type !== 'fingerprint');
    expect(kept.map((e) => e.details?.type).sort()).toEqual(['palm', 'visible_face']);
    expect(JSON.stringify(kept)).not.toContain('8630VS3j');
    const device = await deviceRow(SN);
    const user = await server.fpa.service.devices.users.one(server.fpa.db.orm, device.id, '1001');
    expect(user!.biometrics).toMatchObject({ palm: [0], visible_face: [0] });
  });

  test('a BIODATA type this service does not keep (iris, voice) is acknowledged and ignored with an event', async () => {
    const iris = 'BIODATA Pin=1001\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=4\tMajorVer=1\tMinorVer=0\tFormat=0\tTmp=QUJDRA==\n';
    expect((await terminal(`/iclock/cdata?SN=${SN}&table=BIODATA&Stamp=9999`, { body: iris })).body).toBe('OK:1');
    const [ignored] = await eventsOf(SN, 'biodata_ignored');
    expect(ignored!.details).toEqual({ types: { '4': 1 } });
  });

  test('V14 ATTPHOTO: binary JPEG after the NUL is read as bytes and acknowledged', async () => {
    const image = fakeJpeg(700);
    const res = await terminal(`/iclock/cdata?SN=${SN}&table=ATTPHOTO&Stamp=9999`, { body: attPhotoBody(SN, image) });
    expect(res.body).toBe('OK');
    expect(await eventsOf(SN, 'photo_size_mismatch')).toHaveLength(0);
    // Had the body been decoded as text, the bytes after the NUL would no longer match `size`.
    const raw = await rawRequest(server.url, { method: 'POST', path: `/iclock/cdata?SN=${SN}&table=ATTPHOTO`, body: attPhotoBody(SN, image) });
    expect(raw.body).toBe('OK');
    const wrong = await terminal(`/iclock/cdata?SN=${SN}&table=ATTPHOTO`, { body: attPhotoBody(SN, image, 699) });
    expect(wrong.body).toBe('OK');
    expect(await eventsOf(SN, 'photo_size_mismatch')).toHaveLength(1);
    expect((await terminal(`/iclock/fdata?SN=${SN}&PIN=20081119172119-4.jpg`, { body: attPhotoBody(SN, image) })).body).toBe('OK');
  });

  let usersQuery = '';
  test("queued so far: the query of its users (approval), CHECK after the zone change; nothing deleted of the terminal's own user", async () => {
    const res = await terminal(`/iclock/getrequest?SN=${SN}`);
    expect(res.body).toMatch(/^C:(\d+):DATA QUERY USERINFO\nC:(\d+):CHECK\n$/);
    usersQuery = /^C:(\d+):DATA QUERY USERINFO/.exec(res.body)![1]!;
  });

  test('V07 idle poll, V09 results, V11 INFO reply, V13 ping', async () => {
    expect((await terminal(`/iclock/getrequest?SN=${SN}`)).body).toBe('OK');
    expect((await terminal(`/iclock/devicecmd?SN=${SN}`, { body: V09 })).body).toBe('OK');
    // An INFO result only counts as the answer to an INFO command of this terminal.
    const core = server.fpa.service;
    const device = await deviceRow(SN);
    const [id] = await core.runtime.db.write((w) => core.commands.enqueue(w, [{ deviceId: device.id, kind: 'info', payload: {} }]));
    expect((await terminal(`/iclock/getrequest?SN=${SN}`)).body).toBe(`C:${id}:INFO\n`);
    expect((await terminal(`/iclock/devicecmd?SN=${SN}`, { body: V11.replace('ID=122&', `ID=${id}&`) })).body).toBe('OK');
    const row = await deviceRow(SN);
    expect(row.parameters?.['~Platform']).toBe('ZMM220_TFT');
    expect(row.userCount).toBe(143);
    expect(row.firmware).toBe('Ver 8.0.4.2-I113-02');
    expect((await terminal(`/iclock/ping?SN=${SN}`)).body).toBe('OK');
  });

  test('V08: a poll delivers queued commands as C:<id>:<text> lines, each ended by LF', async () => {
    // It answers the query of its users (none): a person's record no longer waits for that answer.
    expect((await terminal(`/iclock/devicecmd?SN=${SN}`, { body: `ID=${usersQuery}&Return=0&CMD=DATA\n` })).body).toBe('OK');
    await server.admin.post('/employees/', { id: 'E-V08', name: 'Ana Pérez' });
    const enrollee = await server.admin.post('/enrollees/', { employee: 'E-V08' });
    const res = await terminal(`/iclock/getrequest?SN=${SN}`);
    expect(res.body).toMatch(new RegExp(`^C:\\d+:DATA UPDATE USERINFO PIN=${enrollee.body.device_pin}\\tName=Ana Pérez\\tPri=0\\t.*\\n$`));
  });
});

describe('unknown PINs, DST and database failures', () => {
  test("a punch of an unknown PIN is kept and flagged as the terminal's own user's; a new enrollee never gets that PIN", async () => {
    const res = await terminal(`/iclock/cdata?SN=${SN}&table=ATTLOG`, { body: '2\t2024-03-13 08:00:00\t0\t1\t0\t0\t0\n' });
    expect(res.body).toBe('OK:1');
    const before = (await punchesOf(SN)).find((r) => r.devicePin === '2')!;
    expect(before.flags).toContain('unknown_pin');
    expect(before.enrolleeId).toBeNull();
    await server.admin.post('/employees/', { id: 'E-PIN2', name: 'Second Person' });
    const enrollee = await server.admin.post('/enrollees/', { employee: 'E-PIN2' });
    expect(Number(enrollee.body.device_pin)).toBeGreaterThanOrEqual(10000);
    const after = (await punchesOf(SN)).find((r) => r.devicePin === '2')!;
    expect(after.enrolleeId).toBeNull();
  });

  test('DST gaps and overlaps are resolved as documented and flagged', async () => {
    await terminal('/iclock/cdata?SN=DSTDEV&options=all&pushver=2.4.1');
    await server.admin.post('/devices/DSTDEV/approve/');
    await server.admin.patch('/devices/DSTDEV/', { time_zone: 'Europe/Berlin' });
    const res = await terminal('/iclock/cdata?SN=DSTDEV&table=ATTLOG', {
      body: '1\t2024-03-31 02:30:00\t0\t1\t0\t0\t0\n1\t2024-10-27 02:30:00\t0\t1\t0\t0\t0\n1\t2024-07-01 12:00:00\t0\t1\t0\t0\t0\n',
    });
    expect(res.body).toBe('OK:3');
    const rows = await punchesOf('DSTDEV');
    expect(rows.map((r) => [r.localTime, new Date(r.punchedAt).toISOString(), r.flags.filter((f) => f.startsWith('dst_'))])).toEqual([
      ['2024-03-31 02:30:00', '2024-03-31T01:30:00.000Z', ['dst_gap']],
      ['2024-10-27 02:30:00', '2024-10-27T00:30:00.000Z', ['dst_overlap']],
      ['2024-07-01 12:00:00', '2024-07-01T10:00:00.000Z', []],
    ]);
  });

  test('a database failure answers 503 in plain text; the resent batch is stored', async () => {
    let failures = 1;
    server.fpa.service.punches.events.react('punch_received', async () => {
      if (failures-- > 0) throw new Error('SQLITE_IOERR: disk I/O error');
    });
    const body = '500\t2024-03-14 08:00:00\t0\t1\t0\t0\t0\n';
    const failed = await terminal(`/iclock/cdata?SN=${SN}&table=ATTLOG`, { body });
    expect(failed.status).toBe(503);
    expect(failed.body).toStartWith('ERROR');
    expect(failed.headers.get('content-type')).toStartWith('text/plain');
    expect((await punchesOf(SN)).some((r) => r.devicePin === '500')).toBe(false);
    expect((await terminal(`/iclock/cdata?SN=${SN}&table=ATTLOG`, { body })).body).toBe('OK:1');
    expect((await punchesOf(SN)).filter((r) => r.devicePin === '500')).toHaveLength(1);
  });
});

describe('a disabled terminal', () => {
  test('is still answered on handshake and poll, but its data is refused', async () => {
    await terminal(`/iclock/cdata?SN=${MB360}&options=all&pushver=2.4.0`);
    await server.admin.post(`/devices/${MB360}/approve/`);
    expect((await terminal(`/iclock/cdata?SN=${MB360}&table=ATTLOG`, { body: V04 })).body).toBe('OK:3');
    await server.admin.post(`/devices/${MB360}/disable/`);
    expect((await terminal(`/iclock/cdata?SN=${MB360}&options=all`)).status).toBe(200);
    expect((await terminal(`/iclock/getrequest?SN=${MB360}`)).body).toBe('OK');
    const refused = await terminal(`/iclock/cdata?SN=${MB360}&table=ATTLOG`, { body: '1\t2024-03-13 08:00:00\t0\t1\t0\t0\t0\n' });
    expect(refused.status).toBe(403);
    expect(refused.body).toBe('device disabled');
    expect(await punchesOf(MB360)).toHaveLength(3);
  });
});

describe('Security PUSH 3.x (V20–V23)', () => {
  test('unregistered handshake is answered OK; registry gives a stable RegistryCode', async () => {
    const hello = await terminal(`/iclock/cdata?SN=${SN3}&options=all&pushver=3.1.2&language=69`);
    expect(hello.body).toBe('OK');
    const reg = await terminal(`/iclock/registry?SN=${SN3}`, { body: V21 });
    expect(reg.body).toMatch(/^RegistryCode=[A-Za-z0-9]{10}$/);
    const again = await terminal(`/iclock/registry?SN=${SN3}`, { body: V21 });
    expect(again.body).toBe(reg.body);
    const row = await deviceRow(SN3);
    expect(row.registryCode).toBe(reg.body.slice('RegistryCode='.length));
    expect(row.firmware).toBe('ZAM180-NF-Ver1.1.17');
    expect(row.speaksBiodata).toBe(true);
    const registeredHello = await terminal(`/iclock/cdata?SN=${SN3}&options=all&pushver=3.1.2`);
    expect(registeredHello.body).toStartWith(`registry=ok\n${reg.body}\n`);
  });

  test('push configuration, then rtlog punches and tabledata once approved', async () => {
    const push = await terminal(`/iclock/push?SN=${SN3}`, { body: '' });
    expect(push.body).toContain('\nRequestDelay=10\n');
    expect(push.body).toMatch(/\nSessionID=\w+\n/);
    const rtlog =
      'time=2024-03-11 08:59:12\tpin=1001\tcardno=0\tsitecode=0\tlinkid=0\teventaddr=1\tevent=0\tinoutstatus=0\tverifytype=1\tindex=12\n' +
      'time=2024-03-11 09:00:00\tpin=0\tcardno=0\tsitecode=0\tlinkid=0\teventaddr=1\tevent=206\tinoutstatus=2\tverifytype=200\tindex=13\n';
    expect((await terminal(`/iclock/cdata?SN=${SN3}&table=rtlog`, { body: rtlog })).status).toBe(403);
    await server.admin.post(`/devices/${SN3}/approve/`);
    expect((await terminal(`/iclock/cdata?SN=${SN3}&table=rtlog`, { body: rtlog })).body).toBe('OK');
    const rows = await punchesOf(SN3);
    expect(rows.map((r) => [r.devicePin, r.localTime, r.verifyType])).toEqual([['1001', '2024-03-11 08:59:12', 1]]);
    const user = await terminal(`/iclock/cdata?SN=${SN3}&table=tabledata&tablename=user&count=1`, {
      body: 'user uid=1\tcardno=\tpin=1001\tpassword=\tgroup=1\tstarttime=0\tendtime=0\tname=Ana\tprivilege=0\n',
    });
    expect(user.body).toBe('user=1');
    const time = await terminal(`/iclock/rtdata?SN=${SN3}&type=time`);
    expect(time.body).toMatch(/^DateTime=\d+,ServerTZ=\+0000$/);
    expect(
      (await terminal(`/iclock/querydata?SN=${SN3}&type=tabledata&cmdid=1&tablename=user&count=1&packcnt=1&packidx=1`, { body: 'user pin=1\n' })).body,
    ).toBe('OK');
  });
});

describe('every reply', () => {
  test('carries an RFC 1123 Date header and Content-Type text/plain', () => {
    expect(replies.length).toBeGreaterThan(40);
    for (const r of replies) {
      expect({ path: r.path, date: isHttpDate(r.date) }).toEqual({ path: r.path, date: true });
      expect(r.type ?? '').toStartWith('text/plain');
    }
  });
});
