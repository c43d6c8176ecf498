/**
 * Hostile input, terminal side: every ADMS endpoint and upload table, sent binary garbage,
 * bytes that are not UTF-8, GB18030, NUL bytes, truncated lines, CR-only line ends and broken
 * records carrying template data — with and without a Content-Type — answers in plain text
 * with a Date header, never 5xx and never JSON, stores nothing from the garbage and never logs
 * the template data; good lines beside the bad ones are stored. An oversized body with a length
 * is 413 on every endpoint before anything is touched; without one it is cut off with 413 by
 * every endpoint that reads a body; a body cut off mid-transfer stores nothing.
 * (adms-ingest.property.e2e covers random bodies and ATTLOG among garbage; adms-hardening the
 * cap on one endpoint.)
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import net from 'node:net';
import { isHttpDate } from '../support/adms';
import { answerInventory, approvedTerminal, newEnrollee, type Person, templateBytes } from '../support/agents';
import { startTestServer, type TestServer } from '../support/harness';
import { deviceEventText, tableCounts } from '../support/hostile';

const MAX = 16 * 1024;
const SERIAL = 'HOSTILE1';
/** Tables garbage must never add to; device events are expected (bad lines are logged). */
const DATA_TABLES = [
  'fpa_punches',
  'fpa_templates',
  'fpa_template_sync',
  'fpa_staged_templates',
  'fpa_enrollees',
  'fpa_consents',
  'fpa_device_commands',
  'fpa_employees',
  'fpa_devices',
  'fpa_attendance_days',
];

let server: TestServer;
let person: Person;

const TARGETS = [
  'cdata?table=ATTLOG',
  'cdata?table=OPERLOG',
  'cdata?table=BIODATA',
  'cdata?table=options',
  'cdata?table=ATTPHOTO',
  'cdata?table=rtlog',
  'cdata?table=tabledata&tablename=templatev10',
  'cdata?table=tabledata&tablename=user',
  'cdata?table=ERRORLOG',
  'cdata?table=BIOPHOTO',
  'cdata?table=IDCARD',
  'cdata.aspx?table=ATTLOG',
  'devicecmd?x=1',
  'registry?x=1',
  'querydata?type=tabledata&tablename=user',
  'fdata?PIN=1.jpg',
  'getrequest?INFO=x',
  'ping?x=1',
  'push?x=1',
] as const;

const bytes = (...parts: (string | number[] | Uint8Array)[]): Uint8Array<ArrayBuffer> =>
  new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p)))));

/** Deterministic noise: every byte value, NULs and LFs included. */
function noise(size: number, seed: number): number[] {
  const out: number[] = [];
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.push(x >>> 24);
  }
  return out;
}

/** Template-looking base64 that must never show up in a device event. */
const SECRET = Buffer.from(templateBytes(99, 48)).toString('base64');

const GARBAGE: [string, Uint8Array<ArrayBuffer>][] = [
  ['binary noise', bytes(noise(3000, 1))],
  ['binary noise between LFs', bytes(noise(500, 2), '\n', noise(500, 3), '\n')],
  [
    'invalid UTF-8',
    bytes('1001\t', [0xc3, 0x28], '\t0\n', [0xe2, 0x28, 0xa1], '\n', [0xc0, 0xaf, 0x80, 0xff], '\nUSER PIN=', [0xf8, 0x88, 0x80, 0x80, 0x80], '\n'),
  ],
  [
    'GB18030',
    bytes(
      'USER PIN=',
      [0xd5, 0xc5],
      '\tName=',
      [0xd5, 0xc5, 0xc8, 0xfd],
      '\n',
      [0x81, 0x30, 0x81, 0x30],
      '\t',
      [0x81],
      '\n',
      [0xfe, 0xfe, 0x81, 0x39, 0xfe, 0x39],
      '\n',
    ),
  ],
  ['NUL bytes', bytes([0, 0, 0], '\n1001', [0], '\t2024-03-11 08:59:12\t0\t1\n', 'BIODATA Pin=1', [0], '\tType=1\tTmp=QUJD\n', [0, 0x0a, 0])],
  [
    'truncated lines',
    bytes(
      '1001\t2024-03-1\n1001\t\nBIODATA Pin=1\tNo=0\tInd\nFP PIN=1\tFID=1\tTMP=AAAAA\ntemplatev10 pin=1\tfingerid=\nID=1&Ret\ntime=2024-03-11 08:\tpin=1\nOPLOG 4\t0\t2024-03\n',
    ),
  ],
  // CR-only line ends split records (a good line among these would be stored): each of these is bad on its own.
  // (A word for a state or a verify mode keeps a punch, flagged: a key=value pair there does not.)
  ['CR-only line ends', bytes('1001\t2024-03-11 08:59\t0\ty\r1002\t2024-03-11 09:59:12\t0\tPri=1\rBIODATA Pin=1\tType=1\tNo=0\tTmp=QUJD\rBIODATA')],
  [
    'broken records carrying template data',
    bytes(
      [
        `Tmp=${SECRET}`,
        SECRET,
        `\tTMP=${SECRET}`,
        `BIODATA Pin=\tType=1\tTmp=${SECRET}`,
        `BIODATA Pin=1\tType=x\tTmp=${SECRET}`,
        `FP PIN=1\tFID=x\tTMP=${SECRET}`,
        `FACE PIN=1\tFID=0\tTMP=${SECRET}`,
        `USERPIC PIN=1\tContent=${SECRET}`,
        `BIOPHOTO PIN=1\tContent=${SECRET}`,
        `templatev10 ${SECRET}`,
        `ERRORLOG ErrCode=1\tErrMsg=x\tTmp=${SECRET}`,
        '',
      ].join('\n'),
    ),
  ],
];

interface Reply {
  status: number;
  contentType: string | null;
  date: string | null;
  body: string;
}

async function post(path: string, body: BodyInit, contentType: string | null): Promise<Reply> {
  const res = await fetch(`${server.url}/iclock/${path}`, {
    method: 'POST',
    body,
    headers: { 'user-agent': 'iClock Proxy/1.09', ...(contentType ? { 'content-type': contentType } : {}) },
  });
  return { status: res.status, contentType: res.headers.get('content-type'), date: res.headers.get('date'), body: await res.text() };
}

function expectTerminalReply(label: string, reply: Reply): void {
  expect({ label, serverError: reply.status >= 500 }).toEqual({ label, serverError: false });
  expect(reply.contentType).toStartWith('text/plain');
  expect(isHttpDate(reply.date)).toBe(true);
  expect({ label, json: /^\s*[[{]/.test(reply.body) }).toEqual({ label, json: false });
}

async function dataCounts(): Promise<Record<string, number>> {
  // Attendance days follow the log after a quiet moment; reading them brings them up to date first.
  await server.admin.get('/attendance-days/?limit=1');
  const all = await tableCounts(server);
  return Object.fromEntries(DATA_TABLES.map((t) => [t, all[t] ?? -1]));
}

beforeAll(async () => {
  server = await startTestServer({ ADMS_MAX_REQUEST_BYTES: MAX });
  await approvedTerminal(server, SERIAL, { algorithm: '10' });
  await answerInventory(server, SERIAL);
  person = await newEnrollee(server);
});
afterAll(async () => {
  await server.close();
});

describe('garbage on every endpoint', () => {
  test('plain-text answers, never 5xx or JSON, nothing stored, no template data logged', async () => {
    const before = await dataCounts();
    for (const table of DATA_TABLES) expect({ table, present: before[table]! >= 0 }).toEqual({ table, present: true });
    for (const target of TARGETS) {
      for (const [name, body] of GARBAGE) {
        for (const contentType of ['text/plain', null]) {
          expectTerminalReply(`${target} ${name} ${contentType}`, await post(`${target}&SN=${SERIAL}`, body, contentType));
        }
      }
    }
    expect(await dataCounts()).toEqual(before);
    const events = await deviceEventText(server);
    expect(events.some((e) => e.startsWith('malformed_line'))).toBe(true);
    const leaks = events.filter((e) => Array.from({ length: SECRET.length - 15 }, (_, at) => SECRET.slice(at, at + 16)).some((w) => e.includes(w)));
    expect(leaks).toEqual([]);
  });
});

describe('good lines beside bad ones', () => {
  const junk = (seed: number) =>
    bytes(
      noise(200, seed).map((b) => (b === 0x0a ? 0x20 : b)),
      '\n',
      [0xd5, 0xc5, 0xff, 0x00],
      '\n1001\t2024-03-1\n',
    );
  const b64 = (seed: number) => Buffer.from(templateBytes(seed, 600)).toString('base64');

  async function templatesOf(enrollee: string): Promise<number[]> {
    const res = await server.admin.get(`/enrollees/${enrollee}/templates/`);
    return (res.body.results as { finger_index: number }[]).map((t) => t.finger_index).sort();
  }

  test('ATTLOG and rtlog: the good punch is stored and counted', async () => {
    const attlog = await post(`cdata?table=ATTLOG&SN=${SERIAL}`, bytes(junk(10), `${person.pin}\t2024-03-11 08:59:12\t0\t1\t0\t0\t0\n`, junk(11)), null);
    expect(attlog.body).toBe('OK:1');
    const rtlog = await post(
      `cdata?table=rtlog&SN=${SERIAL}`,
      bytes(junk(12), `time=2024-03-11 17:01:02\tpin=${person.pin}\tverifytype=1\tinoutstatus=1\tevent=0\n`, junk(13)),
      'text/plain',
    );
    expect(rtlog.status).toBe(200);
    const punches = await server.admin.get(`/punches/?device=${SERIAL}`);
    expect((punches.body.results as { local_time: string }[]).map((p) => p.local_time).sort()).toEqual(['2024-03-11 08:59:12', '2024-03-11 17:01:02']);
  });

  test('BIODATA, OPERLOG FP and tabledata templatev10: the good template is stored', async () => {
    const biodata = await post(
      `cdata?table=BIODATA&SN=${SERIAL}`,
      bytes(junk(20), `BIODATA Pin=${person.pin}\tNo=1\tIndex=0\tValid=1\tDuress=0\tType=1\tMajorVer=10\tMinorVer=0\tFormat=0\tTmp=${b64(1)}\n`, junk(21)),
      null,
    );
    expect(biodata.body).toBe('OK:1');
    const fp = b64(2);
    const operlog = await post(
      `cdata?table=OPERLOG&SN=${SERIAL}`,
      bytes(junk(22), `FP PIN=${person.pin}\tFID=2\tSize=${fp.length}\tValid=1\tTMP=${fp}\n`, junk(23)),
      'text/plain',
    );
    expect(operlog.status).toBe(200);
    const v10 = await post(
      `cdata?table=tabledata&tablename=templatev10&SN=${SERIAL}`,
      bytes(junk(24), `templatev10 pin=${person.pin}\tfingerid=3\tvalid=1\ttemplate=${b64(3)}\n`, junk(25)),
      null,
    );
    expect(v10.status).toBe(200);
    expect(await templatesOf(person.id)).toEqual([1, 2, 3]);
  });
});

describe('names a terminal reports', () => {
  test('are stored without control characters (C0, DEL, C1), which the API refuses in names: an escape sequence cannot reach a screen or a log', async () => {
    const user = `USER PIN=777\tName=Term\x1b[2J\x07Bell\x7f\u0085End\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\n`;
    expect((await post(`cdata?table=OPERLOG&SN=${SERIAL}`, user, 'text/plain')).status).toBe(200);
    const row = `user uid=8\tcardno=\tpin=778\tpassword=\tgroup=1\tstarttime=0\tendtime=0\tname=\x1b]0;owned\x07Ana\u009b31m\tprivilege=0\n`;
    expect((await post(`cdata?table=tabledata&tablename=user&SN=${SERIAL}`, row, null)).status).toBe(200);
    const held = await server.admin.get(`/devices/${SERIAL}/users/`);
    const names = Object.fromEntries((held.body.results as { pin: string; name: string | null }[]).map((u) => [u.pin, u.name]));
    expect({ 777: names['777'], 778: names['778'] }).toEqual({ 777: 'Term[2JBellEnd', 778: ']0;ownedAna31m' });
    // Nothing of them reaches the database either.
    const stored = await server.fpa.db.client.execute("SELECT name FROM fpa_device_users WHERE pin IN ('777', '778')");
    for (const r of stored.rows) expect(String(r.name)).not.toMatch(/\p{Cc}/u);
  });
});

/** Endpoints that use no body: they answer without reading one. */
const BODYLESS = new Set<string>(['getrequest?INFO=x', 'ping?x=1', 'push?x=1']);

describe('oversized bodies', () => {
  test('413 in plain text on every endpoint, with a length before the unknown terminal is even registered, without one once read', async () => {
    const before = await dataCounts();
    const big = bytes(Array.from({ length: 600 }, (_, i) => `${1000 + i}\t2024-03-11 08:00:${String(i % 60).padStart(2, '0')}\t0\t1\t0\t0\t0\n`).join(''));
    expect(big.byteLength).toBeGreaterThan(MAX);
    let n = 0;
    for (const target of TARGETS) {
      const sized = await post(`${target}&SN=BIGONE${++n}`, big, 'text/plain');
      expectTerminalReply(`${target} with a length`, sized);
      expect({ target, status: sized.status }).toEqual({ target, status: 413 });
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < big.byteLength; at += 4096) controller.enqueue(big.subarray(at, at + 4096));
          controller.close();
        },
      });
      // Without a length the body is read only after the device check, so an approved terminal.
      const chunked = await post(`${target}&SN=${SERIAL}`, stream, null);
      expectTerminalReply(`${target} chunked`, chunked);
      expect({ target, status: chunked.status }).toEqual({ target, status: BODYLESS.has(target) ? 200 : 413 });
    }
    expect(await dataCounts()).toEqual(before);
  });
});

describe('a body cut off mid-transfer', () => {
  test('stores nothing and leaves the server serving', async () => {
    const before = await dataCounts();
    const body = `${person.pin}\t2024-03-12 08:00:00\t0\t1\t0\t0\t0\n${person.pin}\t2024-03-12 09:00:00\t0\t1\t0\t0\t0\n`;
    const url = new URL(server.url);
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST /iclock/cdata?SN=${SERIAL}&table=ATTLOG HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length + 500}\r\n\r\n${body}`,
        );
        setTimeout(() => socket.destroy(), 200);
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    // Give the server a moment to notice the connection is gone.
    await Bun.sleep(100);
    expect(await dataCounts()).toEqual(before);
    const after = await post(`cdata?table=ATTLOG&SN=${SERIAL}`, bytes(body), 'text/plain');
    expect(after.body).toBe('OK:2');
  });
});
