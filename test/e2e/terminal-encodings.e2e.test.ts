/**
 * Names in the terminals' encodings (ADMS.md §1.2): the service sends names in UTF-8, a terminal
 * echoes them back byte for byte next to names typed at its keypad in its own code page (GB18030
 * on a `language=83` terminal, Windows-1252 on a Western one). Each line is read in its own
 * encoding, so both come back as they were typed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.close();
});

async function online(sn: string, language: string): Promise<SimulatedTerminal> {
  const t = new SimulatedTerminal({ url: s.url, sn, language });
  await t.handshake();
  await t.postOptions();
  expect((await s.admin.post(`/devices/${sn}/approve/`)).status).toBe(200);
  await drain(t);
  return t;
}

function bytes(...parts: (string | number[])[]): Uint8Array {
  const chunks = parts.map((p) => (typeof p === 'string' ? new TextEncoder().encode(p) : Uint8Array.from(p)));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

async function namesOn(sn: string): Promise<Record<string, string | null>> {
  const res = await s.admin.get(`/devices/${sn}/users/`);
  expect(res.status).toBe(200);
  return Object.fromEntries((res.body.results as { pin: string; name: string | null }[]).map((u) => [u.pin, u.name]));
}

const userLine = (pin: string) => `USER PIN=${pin}\tName=`;
const USER_TAIL = '\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\n';

describe('names in the terminals’ encodings', () => {
  test('a language=83 terminal: the UTF-8 name it was sent and a GB18030 name from its keypad, in one upload', async () => {
    const t = await online('ENC83', '83');
    await s.admin.post('/employees/', { id: 'ENC-1', name: 'Zoë Ångström 张' });
    const e = (await s.admin.post('/enrollees/', { employee: 'ENC-1' })).body as { id: string; device_pin: string };
    await s.admin.post(`/enrollees/${e.id}/consent/`, { version: 'v1', method: 'paper' });
    const sent = await drain(t);
    expect(sent.some((c) => c.startsWith(`DATA UPDATE USERINFO PIN=${e.device_pin}\tName=Zoë Ångström 张\t`))).toBe(true);
    // What it sends back: the same UTF-8 bytes, and 张三 typed at its menu (GB18030 D5 C5 C8 FD).
    const body = bytes(userLine(e.device_pin), 'Zoë Ångström 张', USER_TAIL, userLine('77'), [0xd5, 0xc5, 0xc8, 0xfd], USER_TAIL);
    expect((await t.post('cdata', { table: 'OPERLOG', Stamp: '1' }, body)).body).toBe('OK:2');
    expect(await namesOn('ENC83')).toMatchObject({ [e.device_pin]: 'Zoë Ångström 张', '77': '张三' });
  });

  test('a language=69 terminal: a Latin-1 name from its keypad is read as Latin-1, not GB18030', async () => {
    const t = await online('ENC69', '69');
    const body = bytes(userLine('78'), 'P', [0xe9], 'rez M', [0xfc], 'ller', USER_TAIL);
    expect((await t.post('cdata', { table: 'OPERLOG', Stamp: '1' }, body)).body).toBe('OK:1');
    expect(await namesOn('ENC69')).toMatchObject({ '78': 'Pérez Müller' });
  });
});
