/**
 * Requests cut off by the client are not server errors: a terminal that goes away mid-upload, or
 * a slow socket the idle timeout closes, logged `level:"error"` "terminal request failed; the
 * terminal will resend" each (300 slow-loris sockets gave 302 error lines). Now each is a debug
 * line and a warning says so at most once a minute per address, with a count; a real failure
 * (the database) is still an error, answered 503.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import net from 'node:net';
import { createLogger } from '../../src/platform/log';
import type { Clock } from '../../src/platform/runtime';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let now = Date.parse('2026-05-04T09:00:00Z');
const clock: Clock = { now: () => now };
const lines: { level: string; msg: string; count?: number; ip?: string; serial?: string }[] = [];
let server: TestServer;
let terminal: SimulatedTerminal;

const SN = 'CUTOFF1';
const CUT_OFF = 'terminal requests cut off by the client (it went away or sent too slowly); the terminals resend them';

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC' }, { clock, idleTimeoutSeconds: 1, logger: createLogger('debug', (line) => lines.push(JSON.parse(line))) });
  terminal = new SimulatedTerminal({ url: server.url, sn: SN });
  await terminal.handshake();
  expect((await server.admin.post(`/devices/${SN}/approve/`)).status).toBe(200);
  await drain(terminal);
});
afterAll(async () => {
  await server.close();
});

const ofLevel = (level: string) => lines.filter((l) => l.level === level);
const body = '1\t2024-03-12 08:00:00\t0\t1\t0\t0\t0\n';

/** An ATTLOG upload that sends part of its body, then goes away (`hangUpAfterMs`) or stays silent until the server closes it. */
function partialUpload(hangUpAfterMs: number | null): Promise<void> {
  const url = new URL(server.url);
  return new Promise<void>((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname, () => {
      socket.write(
        `POST /iclock/cdata?SN=${SN}&table=ATTLOG HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length + 500}\r\n\r\n${body}`,
      );
      if (hangUpAfterMs !== null) setTimeout(() => socket.destroy(), hangUpAfterMs);
    });
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}

/** Until the server has logged `n` cut-off requests (it notices a closed socket a moment later). */
async function cutOffLogged(n: number): Promise<void> {
  for (let i = 0; i < 100 && ofLevel('debug').filter((l) => l.msg.startsWith('terminal request cut off')).length < n; i++) await Bun.sleep(50);
}

describe('requests cut off by the client', () => {
  test('an ordinary upload logs no warning and no error', async () => {
    await terminal.punch([{ pin: '1', localTime: '2026-05-04 08:00:00' }]);
    expect(ofLevel('warn')).toEqual([]);
    expect(ofLevel('error')).toEqual([]);
  });

  test('slow and abandoned uploads: no error, a debug line each, one warning a minute per address with a count', async () => {
    // 20 slow sockets the idle timeout closes, and 5 terminals that hang up mid-body.
    await Promise.all([...Array.from({ length: 20 }, () => partialUpload(null)), ...Array.from({ length: 5 }, () => partialUpload(100))]);
    await cutOffLogged(25);
    expect(ofLevel('error')).toEqual([]);
    expect(ofLevel('debug').filter((l) => l.msg.startsWith('terminal request cut off'))).toHaveLength(25);
    expect(ofLevel('warn')).toEqual([expect.objectContaining({ msg: CUT_OFF, ip: '127.0.0.1', serial: SN, count: 1 })]);
    // A minute on, the next one is said with the count of those since the last warning.
    now += 60_000;
    await partialUpload(100);
    await cutOffLogged(26);
    expect(ofLevel('warn').map((l) => l.count)).toEqual([1, 25]);
    expect(ofLevel('error')).toEqual([]);
    // Nothing of them was kept, and the terminal is served as before.
    expect((await terminal.post('cdata', { table: 'ATTLOG', Stamp: '9' }, body)).body).toBe('OK:1');
  });

  test('a real failure (the database) is still an error, answered 503', async () => {
    const before = lines.length;
    let failures = 1;
    server.fpa.service.punches.events.react('punch_received', async () => {
      if (failures-- > 0) throw new Error('SQLITE_IOERR: disk I/O error');
    });
    const failed = await terminal.post('cdata', { table: 'ATTLOG', Stamp: '10' }, '1\t2024-03-14 08:00:00\t0\t1\t0\t0\t0\n');
    expect(failed.status).toBe(503);
    const errors = lines.slice(before).filter((l) => l.level === 'error');
    expect(errors).toEqual([expect.objectContaining({ msg: 'terminal request failed; the terminal will resend' })]);
  });
});
