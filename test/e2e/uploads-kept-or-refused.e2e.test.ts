/**
 * What a terminal uploads is kept, or refused so that the terminal keeps it: never acknowledged
 * and lost. Over real HTTP, speaking raw ADMS: a compressed (not text) body is refused with 422 on
 * every table while one sent with `Content-Encoding: gzip` is read once decompressed (413 when it
 * decompresses beyond the cap), a punch whose state is a letter (or cannot be read) is kept, an
 * OPERLOG line of no kind is logged rather than counted, a password or card never reaches the
 * device log, and a parameter value loses the NULs a firmware ends it with.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { punches } from '../../src/app/schema';
import { rawRequest } from '../support/adms';
import { startTestServer, type TestServer } from '../support/harness';
import { deviceLog, deviceRow } from '../support/terminals';

const MAX = 64 * 1024;
let server: TestServer;
let serial = 0;

beforeAll(async () => {
  // Auto-approval: each test's terminal is approved at its first request.
  server = await startTestServer({ ADMS_MAX_REQUEST_BYTES: MAX, ADMS_AUTO_APPROVE: true });
});
afterAll(async () => {
  await server.close();
});

const newSerial = () => `UPLOADS${++serial}`;
const gzip = (text: string): Uint8Array => Bun.gzipSync(new TextEncoder().encode(text));

async function post(path: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
  return rawRequest(server.url, { method: 'POST', path, body, headers });
}

async function storedPunches(sn: string) {
  return server.fpa.db.orm
    .select({ pin: punches.devicePin, localTime: punches.localTime, state: punches.state, raw: punches.raw, flags: punches.flags })
    .from(punches)
    .where(eq(punches.deviceSerial, sn))
    .orderBy(punches.localTime);
}

const ATTLOG = '2401\t2024-03-16 08:00:00\t0\t1\t0\t0\t0\n2401\t2024-03-16 17:00:00\t1\t1\t0\t0\t0\n';

describe('a body that is not text', () => {
  test('plain ATTLOG lines are stored and counted', async () => {
    const sn = newSerial();
    const res = await post(`/iclock/cdata?SN=${sn}&table=ATTLOG&Stamp=1`, ATTLOG);
    expect([res.status, res.body]).toEqual([200, 'OK:2']);
    expect(await storedPunches(sn)).toHaveLength(2);
  });

  test('gzip of ATTLOG lines is refused (422), with or without ContentType=tgz, and nothing is stored', async () => {
    const sn = newSerial();
    for (const query of ['table=ATTLOG&Stamp=1', 'table=ATTLOG&Stamp=1&ContentType=tgz']) {
      const res = await post(`/iclock/cdata?SN=${sn}&${query}`, gzip(ATTLOG));
      expect({ query, status: res.status }).toEqual({ query, status: 422 });
    }
    expect(await storedPunches(sn)).toEqual([]);
    const refused = await deviceLog(server.fpa, sn, 'upload_refused');
    expect(refused.map((e) => (e.details as { table: string }).table)).toEqual(['ATTLOG', 'ATTLOG']);
    // Nothing was read, so nothing is logged as a bad line either.
    expect(await deviceLog(server.fpa, sn, 'malformed_line')).toEqual([]);
  });

  // A Western terminal's code page maps every byte: binary decodes without a U+FFFD, and a pack
  // without NUL bytes was answered OK:0 and lost (a reviewer's find).
  test('a language=69 terminal: a binary body without a NUL byte is refused too', async () => {
    const sn = newSerial();
    expect((await rawRequest(server.url, { method: 'GET', path: `/iclock/cdata?SN=${sn}&options=all&language=69&pushver=2.4.1` })).status).toBe(200);
    const binary = new Uint8Array(Array.from({ length: 512 }, (_, i) => 1 + ((i * 37) % 255)));
    expect(binary.includes(0)).toBe(false);
    const res = await post(`/iclock/cdata?SN=${sn}&table=ATTLOG&Stamp=1`, binary);
    expect(res.status).toBe(422);
    expect(await storedPunches(sn)).toEqual([]);
  });

  test('every table a terminal uploads refuses a compressed body, so the terminal keeps it', async () => {
    const sn = newSerial();
    const bodies: [string, string][] = [
      ['table=OPERLOG&Stamp=1', 'OPLOG 4\t0\t2024-03-16 10:00:00\t0\t0\t0\t0\nUSER PIN=2401\tName=Ada\tPri=0\n'],
      ['table=OPERLOG&OpStamp=1&ContentType=tgz', 'USER PIN=2401\tName=Ada\tPri=0\n'],
      ['table=BIODATA&Stamp=1', 'BIODATA Pin=2401\tNo=1\tIndex=0\tValid=1\tDuress=0\tType=1\tMajorVer=10\tMinorVer=0\tFormat=0\tTmp=QUJDRA==\n'],
      ['table=rtlog', 'time=2024-03-16 10:00:00\tpin=2401\tverifytype=1\tinoutstatus=0\tevent=0\n'],
      ['table=tabledata&tablename=transaction&count=3&datafmt=3', 'transaction pin=2401\ttime=2024-03-16 10:00:00\teventtype=0\n'.repeat(3)],
      ['table=tabledata&tablename=user&count=1', 'user pin=2401\tname=Ada\tprivilege=0\n'],
      ['table=tabledata&tablename=templatev10&count=1', 'templatev10 pin=2401\tfingerid=1\tvalid=1\ttemplate=QUJDRA==\n'],
      ['table=tabledata&tablename=biophoto&count=1', 'biophoto pin=2401\tfilename=2401.jpg\tsize=8\tcontent=QUJDRA==\n'],
      ['table=tabledata&tablename=userauthorize&count=1', 'userauthorize pin=2401\tauthorizedoorid=1\n'],
      ['table=ERRORLOG', 'ERRORLOG ErrCode=D01E0001\tErrMsg=x\n'],
      ['table=BIOPHOTO', 'BIOPHOTO PIN=2401\tFileName=2401.jpg\tType=0\tSize=8\tContent=QUJDRA==\n'],
      ['table=IDCARD', 'IDCARD PIN=2401\tSNNum=1\n'],
      ['table=options', 'DeviceName=Gate,UserCount=3\n'],
    ];
    for (const [query, text] of bodies) {
      const res = await post(`/iclock/cdata?SN=${sn}&${query}`, gzip(text));
      expect({ query, status: res.status }).toEqual({ query, status: 422 });
    }
    expect(await storedPunches(sn)).toEqual([]);
    expect((await deviceLog(server.fpa, sn, 'upload_refused')).length).toBe(bodies.length);
    expect((await deviceRow(server.fpa, sn))?.userCount ?? null).toBeNull();
  });

  test('good lines among bytes that are not text are kept; the bad lines are logged', async () => {
    const sn = newSerial();
    const body = new Uint8Array([...new TextEncoder().encode(ATTLOG), 0x1f, 0x8b, 0x08, 0x00, 0x0a]);
    const res = await post(`/iclock/cdata?SN=${sn}&table=ATTLOG`, body);
    expect([res.status, res.body]).toEqual([200, 'OK:2']);
    expect(await deviceLog(server.fpa, sn, 'upload_refused')).toEqual([]);
  });
});

describe('Content-Encoding: gzip', () => {
  test('the body is decompressed and read as usual', async () => {
    const sn = newSerial();
    const res = await post(`/iclock/cdata?SN=${sn}&table=ATTLOG&Stamp=1`, gzip(ATTLOG), { 'Content-Encoding': 'gzip' });
    expect([res.status, res.body]).toEqual([200, 'OK:2']);
    expect((await storedPunches(sn)).map((p) => p.localTime)).toEqual(['2024-03-16 08:00:00', '2024-03-16 17:00:00']);
    const operlog = await post(`/iclock/cdata?SN=${sn}&table=OPERLOG&Stamp=1`, gzip('OPLOG 4\t0\t2024-03-16 10:00:00\t0\t0\t0\t0\n'), {
      'Content-Encoding': 'gzip',
    });
    expect([operlog.status, operlog.body]).toEqual([200, 'OK:1']);
  });

  test('a body that decompresses beyond ADMS_MAX_REQUEST_BYTES is refused (413), nothing stored', async () => {
    const sn = newSerial();
    const lines = Array.from(
      { length: 4000 },
      (_, i) =>
        `2401\t2024-03-16 ${String(Math.floor(i / 3600) + 8).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}\t0\t1\t0\t0\t0\n`,
    ).join('');
    expect(lines.length).toBeGreaterThan(MAX);
    const packed = gzip(lines);
    expect(packed.byteLength).toBeLessThan(MAX);
    const res = await post(`/iclock/cdata?SN=${sn}&table=ATTLOG`, packed, { 'Content-Encoding': 'gzip' });
    expect([res.status, res.body]).toEqual([413, 'request body too large']);
    // A bomb: megabytes of zeros in a few kilobytes.
    const bomb = Bun.gzipSync(new Uint8Array(20 * 1024 * 1024));
    expect(bomb.byteLength).toBeLessThan(MAX);
    expect((await post(`/iclock/cdata?SN=${sn}&table=ATTLOG`, bomb, { 'Content-Encoding': 'gzip' })).status).toBe(413);
    expect(await storedPunches(sn)).toEqual([]);
  });

  test('a body that is not gzip after all is refused (400)', async () => {
    const sn = newSerial();
    const res = await post(`/iclock/cdata?SN=${sn}&table=ATTLOG`, ATTLOG, { 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(400);
    expect(await storedPunches(sn)).toEqual([]);
  });
});

describe('ATTLOG states', () => {
  test('a letter is a state: I and i check-in, O and o check-out; the line keeps the letter', async () => {
    const sn = newSerial();
    const body = ['I', 'O', 'i', 'o'].map((s, i) => `2401\t2024-03-16 1${i}:00:00\t${s}\t1\t0\t0\t0\n`).join('');
    const res = await post(`/iclock/cdata?SN=${sn}&table=ATTLOG`, body);
    expect([res.status, res.body]).toEqual([200, 'OK:4']);
    const stored = await storedPunches(sn);
    expect(stored.map((p) => [p.state, p.raw.split('\t')[2], p.flags.includes('unknown_state')])).toEqual([
      [0, 'I', false],
      [1, 'O', false],
      [0, 'i', false],
      [1, 'o', false],
    ]);
    expect(await deviceLog(server.fpa, sn, 'malformed_line')).toEqual([]);
  });

  test('a state that cannot be read keeps its punch, flagged unknown_state', async () => {
    const sn = newSerial();
    const body = '2401\t2024-03-16 10:00:00\tB\t1\t0\t0\t0\n2401\t2024-03-16 11:00:00\tIN\t1\n2401\t2024-03-16 12:00:00\t?\t1\n';
    const res = await post(`/iclock/cdata?SN=${sn}&table=ATTLOG`, body);
    expect([res.status, res.body]).toEqual([200, 'OK:3']);
    const stored = await storedPunches(sn);
    expect(stored.map((p) => [p.state, p.raw.split('\t')[2], p.flags.includes('unknown_state')])).toEqual([
      [0, 'B', true],
      [0, 'IN', true],
      [0, '?', true],
    ]);
    const listed = await server.admin.get(`/punches/?device=${sn}`);
    expect((listed.body.results as { flags: string[] }[]).every((p) => p.flags.includes('unknown_state'))).toBe(true);
  });
});

describe('ATTLOG verify modes', () => {
  test('a verify mode sent as a word keeps its punch, flagged unknown_verify', async () => {
    const sn = newSerial();
    const body = '2401\t2024-03-16 10:00:00\t0\tFP\t0\t0\t0\n2401\t2024-03-16 11:00:00\t1\tface\n2401\t2024-03-16 12:00:00\t0\t1\n';
    const res = await post(`/iclock/cdata?SN=${sn}&table=ATTLOG`, body);
    expect([res.status, res.body]).toEqual([200, 'OK:3']);
    const stored = await storedPunches(sn);
    expect(stored.map((p) => [p.raw.split('\t')[3], p.flags.includes('unknown_verify')])).toEqual([
      ['FP', true],
      ['face', true],
      ['1', false],
    ]);
    const listed = await server.admin.get(`/punches/?device=${sn}`);
    // Newest first.
    expect((listed.body.results as { verify_type: number; flags: string[] }[]).map((p) => [p.verify_type, p.flags.includes('unknown_verify')])).toEqual([
      [1, false],
      [0, true],
      [0, true],
    ]);
    expect(await deviceLog(server.fpa, sn, 'malformed_line')).toEqual([]);
  });
});

describe('OPERLOG lines of no kind', () => {
  test('are logged as malformed and not counted', async () => {
    const sn = newSerial();
    const res = await post(`/iclock/cdata?SN=${sn}&table=OPERLOG&Stamp=1`, 'OPLOG 4\t0\t2024-03-16 10:00:00\t0\t0\t0\t0\ngarbage\nFOO bar=1\n');
    expect([res.status, res.body]).toEqual([200, 'OK:1']);
    const malformed = await deviceLog(server.fpa, sn, 'malformed_line');
    expect(malformed.map((e) => (e.details as { line: number }).line)).toEqual([2, 3]);
    expect(malformed.every((e) => (e.details as { table: string }).table === 'OPERLOG')).toBe(true);
  });
});

describe('secrets in the device log', () => {
  test('a USER line sent as attendance is logged without its password or card', async () => {
    const sn = newSerial();
    const res = await post(`/iclock/cdata?SN=${sn}&table=ATTLOG`, `${ATTLOG}USER PIN=1\tName=X\tPri=14\tPasswd=4321\tCard=12345\tViceCard=777\n`);
    expect([res.status, res.body]).toEqual([200, 'OK:2']);
    const [event] = await deviceLog(server.fpa, sn, 'malformed_line');
    const logged = JSON.stringify(event?.details);
    expect(logged).toContain('Passwd=[withheld]');
    expect(logged).toContain('Card=[withheld]');
    for (const secret of ['4321', '12345', '777']) expect({ secret, logged: logged.includes(secret) }).toEqual({ secret, logged: false });
  });

  test('an ERRORLOG line carrying a user record is logged without its password or card', async () => {
    const sn = newSerial();
    const res = await post(`/iclock/cdata?SN=${sn}&table=ERRORLOG`, 'ERRORLOG ErrCode=D01E0001\tErrMsg=bad user\tPasswd=4321\tCardNo=12345\n');
    expect(res.status).toBe(200);
    const [event] = await deviceLog(server.fpa, sn, 'device_error');
    expect(event?.details).toMatchObject({ ErrCode: 'D01E0001', ErrMsg: 'bad user', Passwd: '[withheld]', CardNo: '[withheld]' });
    expect(JSON.stringify(event?.details)).not.toMatch(/4321|12345/);
  });

  test('a state or reason quoting a password does not keep it either', async () => {
    const sn = newSerial();
    await post(`/iclock/cdata?SN=${sn}&table=ATTLOG`, '2401\t2024-03-16 10:00:00\t0\tPassword=98765\n');
    const logged = JSON.stringify((await deviceLog(server.fpa, sn, 'malformed_line')).map((e) => e.details));
    expect(logged).toContain('verify');
    expect(logged).not.toContain('98765');
  });
});

describe('parameter values', () => {
  test('lose the NULs and spaces a firmware ends them with', async () => {
    const sn = newSerial();
    expect((await post(`/iclock/cdata?SN=${sn}&table=options`, 'DeviceName=Gate \u0000,UserCount=7\u0000')).status).toBe(200);
    const device = (await deviceRow(server.fpa, sn))!;
    expect(device.userCount).toBe(7);
    expect(device.parameters).toMatchObject({ DeviceName: 'Gate', UserCount: '7' });
    const core = server.fpa.service;
    const [id] = await core.runtime.db.write((w) => core.commands.enqueue(w, [{ deviceId: device.id, kind: 'info', payload: {} }]));
    expect((await rawRequest(server.url, { method: 'GET', path: `/iclock/getrequest?SN=${sn}` })).body).toContain(`C:${id}:INFO`);
    const answered = await post(`/iclock/devicecmd?SN=${sn}`, `ID=${id}&Return=0&CMD=INFO\nUserCount=9\u0000\nFWVersion=Ver 8.0.4\u0000\u0000\n`);
    expect(answered.status).toBe(200);
    const after = (await deviceRow(server.fpa, sn))!;
    expect([after.userCount, after.firmware]).toEqual([9, 'Ver 8.0.4']);
    expect(after.parameters).toMatchObject({ UserCount: '9', FWVersion: 'Ver 8.0.4' });
  });

  test('INFO= on a poll loses them too', async () => {
    const sn = newSerial();
    const info = encodeURIComponent('Ver 8.0.4\u0000,12\u0000,3,100,10.0.0.5,10,7,12,0,10000');
    expect((await rawRequest(server.url, { method: 'GET', path: `/iclock/getrequest?SN=${sn}&INFO=${info}` })).status).toBe(200);
    const device = (await deviceRow(server.fpa, sn))!;
    expect([device.firmware, device.userCount]).toEqual(['Ver 8.0.4', 12]);
  });
});
