/**
 * Fixes on the terminal side, against unauthenticated resource exhaustion and forged data:
 * a cap on terminals waiting for approval, bounded device caches and parameter maps, the
 * device check before a data upload's body is read, PIN validation of 3.x `templatev10`, and
 * INFO results that only count as the answer to an INFO command of that terminal.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import net from 'node:net';
import { and, eq } from 'drizzle-orm';
import { deviceCommands } from '../../src/app/schema';
import { MAX_PARAMETER_KEY_LENGTH, MAX_PARAMETER_KEYS, MAX_PARAMETER_VALUE_LENGTH } from '../../src/modules/devices/parameters';
import { BoundedMap } from '../../src/platform/bounded-map';
import { syntheticTemplate } from '../../src/simulator/terminal';
import { admsFetch } from '../support/adms';
import { startTestServer, type TestServer } from '../support/harness';
import { deviceLog, deviceRow as deviceRowOf } from '../support/terminals';

const MAX_PENDING = 3;
let server: TestServer;
let now = Date.parse('2025-06-02T08:00:00Z');
const warnings: string[] = [];

const logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => void warnings.push(message),
  error: () => undefined,
};

const deviceRow = (serial: string) => deviceRowOf(server.fpa, serial);

const eventsOf = (serial: string, kind: string) => deviceLog(server.fpa, serial, kind);

async function approved(serial: string) {
  expect((await admsFetch(server.url, `/iclock/cdata?SN=${serial}&options=all&pushver=2.4.1`)).status).toBe(200);
  expect((await server.admin.post(`/devices/${serial}/approve/`)).status).toBe(200);
  // Drain what approval queued, so each test sees only its own commands.
  for (let i = 0; i < 5; i++) if ((await admsFetch(server.url, `/iclock/getrequest?SN=${serial}`)).body === 'OK') break;
}

/** Sends the head and part of a body, and reports what the server answers while the rest is outstanding. */
function answerBeforeBody(path: string, declared: number, sent: string): Promise<{ status: number; body: string } | null> {
  const url = new URL(server.url);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(url.port), url.hostname, () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: text/plain\r\nContent-Length: ${declared}\r\n\r\n${sent}`);
    });
    const done = (answer: { status: number; body: string } | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(null), 1500);
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(text.slice(0, split))?.[1] ?? '0');
      if (text.length - split - 4 >= length) done({ status: Number(text.split(' ')[1]), body: text.slice(split + 4, split + 4 + length) });
    });
    socket.on('error', () => done(null));
  });
}

beforeAll(async () => {
  server = await startTestServer({ ADMS_MAX_PENDING_DEVICES: MAX_PENDING, ADMS_MAX_REQUEST_BYTES: 64 * 1024 }, { clock: { now: () => now }, logger });
});
afterAll(async () => {
  await server.close();
});

describe('ADMS_MAX_PENDING_DEVICES', () => {
  test('beyond the cap an unknown serial is refused with 403 and not stored; a known one is still served', async () => {
    for (let i = 1; i <= MAX_PENDING; i++) expect((await admsFetch(server.url, `/iclock/cdata?SN=WAIT${i}&options=all`)).status).toBe(200);
    const refused = await admsFetch(server.url, '/iclock/cdata?SN=FLOOD1&options=all');
    expect(refused.status).toBe(403);
    expect(refused.body).toBe('Device Unauthorized');
    expect(refused.headers.get('content-type')).toStartWith('text/plain');
    expect(await deviceRow('FLOOD1')).toBeNull();
    // Every endpoint registers through the same path.
    expect((await admsFetch(server.url, '/iclock/getrequest?SN=FLOOD2')).status).toBe(403);
    expect((await admsFetch(server.url, '/iclock/cdata?SN=FLOOD3&table=ATTLOG', { body: '1\t2025-06-02 08:00:00\t0\t1\n' })).status).toBe(403);
    expect(await deviceRow('FLOOD2')).toBeNull();
    expect(await deviceRow('FLOOD3')).toBeNull();
    expect((await admsFetch(server.url, '/iclock/cdata?SN=WAIT1&options=all')).status).toBe(200);
  });

  test('the refusal is logged at most once a minute', async () => {
    expect(warnings.filter((w) => w.includes('ADMS_MAX_PENDING_DEVICES'))).toHaveLength(1);
    now += 61_000;
    expect((await admsFetch(server.url, '/iclock/ping?SN=FLOOD4')).status).toBe(403);
    expect((await admsFetch(server.url, '/iclock/ping?SN=FLOOD5')).status).toBe(403);
    expect(warnings.filter((w) => w.includes('ADMS_MAX_PENDING_DEVICES'))).toHaveLength(2);
  });

  test('approving a waiting terminal makes room for the next one', async () => {
    expect((await server.admin.post('/devices/WAIT1/approve/')).status).toBe(200);
    expect((await admsFetch(server.url, '/iclock/cdata?SN=FLOOD1&options=all')).status).toBe(200);
    expect((await deviceRow('FLOOD1'))!.status).toBe('pending_approval');
    expect((await admsFetch(server.url, '/iclock/cdata?SN=FLOOD6&options=all')).status).toBe(403);
    // A disabled terminal does not wait for approval either: room for the terminals below.
    expect((await server.admin.post('/devices/FLOOD1/disable/')).status).toBe(200);
    expect((await server.admin.post('/devices/WAIT3/disable/')).status).toBe(200);
  });
});

describe('a pending or disabled terminal’s upload is refused before its body is read', () => {
  test('403 while most of the declared body has not even been sent', async () => {
    // WAIT2 is pending. Before the fix the server waited for the whole body first.
    const pending = await answerBeforeBody('/iclock/cdata?SN=WAIT2&table=ATTLOG', 50_000, '1\t2025-06-02 08:00:00\t0\t1\n');
    expect(pending).toEqual({ status: 403, body: 'device pending approval' });
    const results = await answerBeforeBody('/iclock/devicecmd?SN=WAIT2', 50_000, 'ID=1&Return=0&CMD=DATA\n');
    expect(results?.status).toBe(403);
    await approved('OFFDEV');
    expect((await server.admin.post('/devices/OFFDEV/disable/')).status).toBe(200);
    const disabled = await answerBeforeBody('/iclock/cdata?SN=OFFDEV&table=OPERLOG', 50_000, 'OPLOG 4\t0\t2025-06-02 08:00:00\t0\t0\t0\t0\n');
    expect(disabled).toEqual({ status: 403, body: 'device disabled' });
  });

  test('an approved terminal’s body is still read in full', async () => {
    await approved('READER');
    const line = '1\t2025-06-02 08:00:00\t0\t1\t0\t0\t0\n';
    expect(await answerBeforeBody('/iclock/cdata?SN=READER&table=ATTLOG', line.length + 10, line)).toBeNull();
    expect((await admsFetch(server.url, '/iclock/cdata?SN=READER&table=ATTLOG', { body: line })).body).toBe('OK:1');
  });
});

describe('reported parameters are bounded', () => {
  const options = (entries: [string, string][]) => entries.map(([k, v]) => `${k}=${v}`).join(',');

  test('table=options replaces the stored map, capped in keys, key length and value length', async () => {
    await approved('PARAMS');
    const many: [string, string][] = Array.from({ length: 300 }, (_, i) => [`Key${i}`, 'v']);
    const body = options([['FWVersion', 'x'.repeat(1000)], [`${'K'.repeat(MAX_PARAMETER_KEY_LENGTH + 1)}`, 'long key'], ...many]);
    expect((await admsFetch(server.url, '/iclock/cdata?SN=PARAMS&table=options', { body })).body).toBe('OK');
    const first = (await deviceRow('PARAMS'))!.parameters!;
    expect(Object.keys(first)).toHaveLength(MAX_PARAMETER_KEYS);
    expect(first.FWVersion).toHaveLength(MAX_PARAMETER_VALUE_LENGTH);
    expect(Object.keys(first).every((k) => k.length <= MAX_PARAMETER_KEY_LENGTH)).toBe(true);

    // A second list replaces the first: nothing accumulates across posts.
    const again = options(Array.from({ length: 150 }, (_, i): [string, string] => [`Other${i}`, 'w']));
    expect((await admsFetch(server.url, '/iclock/cdata?SN=PARAMS&table=options', { body: again })).body).toBe('OK');
    const second = (await deviceRow('PARAMS'))!.parameters!;
    expect(Object.keys(second)).toHaveLength(150);
    expect(second.Key0).toBeUndefined();
  });

  test('an INFO result merges into the map under the same caps', async () => {
    const core = server.fpa.service;
    const device = (await deviceRow('PARAMS'))!;
    const [id] = await core.runtime.db.write((w) => core.commands.enqueue(w, [{ deviceId: device.id, kind: 'info', payload: {} }]));
    expect((await admsFetch(server.url, '/iclock/getrequest?SN=PARAMS')).body).toBe(`C:${id}:INFO\n`);
    const lines = Array.from({ length: 100 }, (_, i) => `Info${i}=${'y'.repeat(300)}`);
    expect(
      (await admsFetch(server.url, '/iclock/devicecmd?SN=PARAMS', { body: `ID=${id}&Return=0&CMD=INFO\nOther0=changed\n${lines.join('\n')}\n` })).body,
    ).toBe('OK');
    const merged = (await deviceRow('PARAMS'))!.parameters!;
    expect(Object.keys(merged)).toHaveLength(MAX_PARAMETER_KEYS);
    expect(merged.Other0).toBe('changed');
    expect(merged.Other149).toBe('w');
    expect(merged.Info0).toHaveLength(MAX_PARAMETER_VALUE_LENGTH);
  });
});

describe('INFO results', () => {
  test('a result that answers no INFO command of this terminal changes nothing', async () => {
    await approved('INFODEV');
    const before = (await deviceRow('INFODEV'))!;
    const forged = 'ID=999&Return=0&CMD=INFO\nFPVersion=12\n~ZKFPVersion=12\nFWVersion=forged\n';
    expect((await admsFetch(server.url, '/iclock/devicecmd?SN=INFODEV', { body: forged })).body).toBe('OK');
    const after = (await deviceRow('INFODEV'))!;
    expect(after.algorithmVersion).toBe(before.algorithmVersion);
    expect(after.firmware).toBe(before.firmware);
    expect(after.parameters?.FWVersion).toBeUndefined();
  });

  test('another terminal’s INFO command id does not count either; its own does, once', async () => {
    const core = server.fpa.service;
    const other = (await deviceRow('READER'))!;
    const mine = (await deviceRow('INFODEV'))!;
    const [otherId] = await core.runtime.db.write((w) => core.commands.enqueue(w, [{ deviceId: other.id, kind: 'info', payload: {} }]));
    expect((await admsFetch(server.url, '/iclock/devicecmd?SN=INFODEV', { body: `ID=${otherId}&Return=0&CMD=INFO\nFPVersion=12\n` })).body).toBe('OK');
    expect((await deviceRow('INFODEV'))!.algorithmVersion).not.toBe('12');

    const [id] = await core.runtime.db.write((w) => core.commands.enqueue(w, [{ deviceId: mine.id, kind: 'info', payload: {} }]));
    expect((await admsFetch(server.url, '/iclock/getrequest?SN=INFODEV')).body).toBe(`C:${id}:INFO\n`);
    expect(
      (await admsFetch(server.url, '/iclock/devicecmd?SN=INFODEV', { body: `ID=${id}&Return=0&CMD=INFO\nFPVersion=12\nFWVersion=Ver 8.0.4\n` })).body,
    ).toBe('OK');
    const answered = (await deviceRow('INFODEV'))!;
    expect(answered.algorithmVersion).toBe('12');
    expect(answered.firmware).toBe('Ver 8.0.4');
    // A replay of the answered id is not an answer any more.
    expect((await admsFetch(server.url, '/iclock/devicecmd?SN=INFODEV', { body: `ID=${id}&Return=0&CMD=INFO\nFPVersion=13\n` })).body).toBe('OK');
    expect((await deviceRow('INFODEV'))!.algorithmVersion).toBe('12');
  });

  test('an answer to its own INFO command that was never sent changes nothing, and the command stays queued', async () => {
    const core = server.fpa.service;
    const mine = (await deviceRow('INFODEV'))!;
    const [id] = await core.runtime.db.write((w) => core.commands.enqueue(w, [{ deviceId: mine.id, kind: 'info', payload: {} }]));
    expect((await admsFetch(server.url, '/iclock/devicecmd?SN=INFODEV', { body: `ID=${id}&Return=0&CMD=INFO\nFPVersion=14\n` })).body).toBe('OK');
    expect((await deviceRow('INFODEV'))!.algorithmVersion).toBe('12');
    expect((await admsFetch(server.url, '/iclock/getrequest?SN=INFODEV')).body).toBe(`C:${id}:INFO\n`);
  });
});

describe('3.x templatev10 PINs are validated like every other table', () => {
  test('a line with an unusable PIN is a malformed line: no rejection, no delete sent to the terminal', async () => {
    await approved('V10DEV');
    const longPin = '1'.repeat(30);
    const body = `templatev10 pin=${longPin}\tfingerid=1\tvalid=1\ttemplate=${syntheticTemplate()}\ntemplatev10 pin=12\u000b34\tfingerid=2\tvalid=1\ttemplate=${syntheticTemplate()}\n`;
    const res = await admsFetch(server.url, '/iclock/cdata?SN=V10DEV&table=tabledata&tablename=templatev10&count=2', { body });
    expect(res.body).toBe('templatev10=0');
    expect(await eventsOf('V10DEV', 'template_rejected')).toHaveLength(0);
    expect((await eventsOf('V10DEV', 'malformed_line')).map((e) => e.message)).toEqual([
      'tabledata/templatev10 line 1 skipped: PIN longer than 24 characters',
      'tabledata/templatev10 line 2 skipped: PIN contains whitespace or control characters',
    ]);
    const device = (await deviceRow('V10DEV'))!;
    const queued = await server.fpa.db.orm
      .select()
      .from(deviceCommands)
      .where(and(eq(deviceCommands.deviceId, device.id), eq(deviceCommands.status, 'pending')));
    expect(queued).toHaveLength(0);
  });
});

describe('BoundedMap (the device caches)', () => {
  test('never holds more than its cap; the least recently set entry goes first', () => {
    const map = new BoundedMap<string, number>(10_000);
    for (let i = 0; i < 25_000; i++) map.set(`SN${i}`, i);
    expect(map.size).toBe(10_000);
    expect(map.has('SN14999')).toBe(false);
    expect(map.get('SN15000')).toBe(15_000);
    map.set('SN15000', -1);
    map.set('NEW', 0);
    expect(map.has('SN15001')).toBe(false);
    expect(map.get('SN15000')).toBe(-1);
    expect(map.size).toBe(10_000);
  });
});
