/**
 * Wall times read with the offset a terminal ran on when it recorded them, through the real
 * server: a terminal whose offset goes back at a handshake (its zone changed by an
 * administrator; a DST change it heard of late) shows the same wall time twice. A punch is never
 * read as an instant still to come when another reading fits, and a wall time both readings
 * could explain takes the earlier, flagged `dst_overlap`, in uploads and USB files alike.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { formatUsbAttlogLine } from '../../src/protocol/adms';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let now = Date.parse('2026-10-01T08:00:00Z');
let server: TestServer;
let pin: string;

async function approved(sn: string): Promise<SimulatedTerminal> {
  const t = new SimulatedTerminal({ url: server.url, sn, now: () => now });
  await t.handshake();
  expect((await server.admin.post(`/devices/${sn}/approve/`, { areas: ['default'] })).status).toBe(200);
  await drain(t);
  return t;
}

async function punchesOf(sn: string): Promise<{ local_time: string; punched_at: string; utc_offset_minutes: number; flags: string[] }[]> {
  const page = await server.admin.get(`/punches/?device=${sn}&limit=100`);
  expect(page.status).toBe(200);
  return page.body.results;
}

const at = (rows: Awaited<ReturnType<typeof punchesOf>>, localTime: string) => rows.find((r) => r.local_time === localTime);

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'Europe/Berlin', ATTENDANCE_TIME_ZONE: 'Europe/Berlin' }, { clock: { now: () => now } });
  expect((await server.admin.post('/employees/', { id: 'E-1', name: 'Ada' })).status).toBe(201);
  const e = await server.admin.post('/enrollees/', { employee: 'E-1', areas: ['default'] });
  expect(e.status).toBe(201);
  pin = e.body.device_pin;
});
afterAll(async () => {
  await server.close();
});

describe('a DST change heard of late', () => {
  let gate: SimulatedTerminal;
  let usb: SimulatedTerminal;
  beforeAll(async () => {
    // Both told +120 on 1 October, then +60 only at 07:00Z on 25 October (Berlin moved at 01:00Z).
    gate = await approved('DSTLATE1');
    usb = await approved('DSTLATE2');
    now = Date.parse('2026-10-25T07:00:00Z');
    expect((await gate.handshake()).TimeZone).toBe('1');
    expect((await usb.handshake()).TimeZone).toBe('1');
    now = Date.parse('2026-10-25T07:45:00Z');
  });

  test('an upload: a wall time shown on both offsets is the earlier instant, flagged; one shown once is exact', async () => {
    const lines = [`${pin}\t2026-10-25 07:30:00\t0\t1\t0\t0\t0`, `${pin}\t2026-10-25 08:30:00\t1\t1\t0\t0\t0`];
    expect((await gate.sendAttlog(`${lines.join('\n')}\n`)).body).toBe('OK:2');
    const rows = await punchesOf('DSTLATE1');
    expect(at(rows, '2026-10-25 07:30:00')).toMatchObject({ punched_at: '2026-10-25T05:30:00.000Z', utc_offset_minutes: 120 });
    expect(at(rows, '2026-10-25 07:30:00')!.flags).not.toContain('dst_overlap');
    expect(at(rows, '2026-10-25 08:30:00')).toMatchObject({ punched_at: '2026-10-25T06:30:00.000Z', utc_offset_minutes: 120 });
    expect(at(rows, '2026-10-25 08:30:00')!.flags).toEqual(expect.arrayContaining(['dst_overlap', 'stale_offset']));
  });

  test('a USB file is read by the same rule (other minutes: the same punch on two terminals is refused)', async () => {
    const file = ['2026-10-25 07:20:00', '2026-10-25 08:20:00']
      .map((localTime) => formatUsbAttlogLine({ pin, localTime, state: 0, verifyType: 1, workCode: '0', extra: [] }))
      .join('\r\n');
    const res = await fetch(`${server.admin.base}/devices/DSTLATE2/punches/import/`, {
      method: 'POST',
      headers: { ...server.admin.headers, 'content-type': 'application/octet-stream' },
      body: file,
    });
    expect(res.status).toBe(200);
    const rows = await punchesOf('DSTLATE2');
    expect(at(rows, '2026-10-25 07:20:00')!.punched_at).toBe('2026-10-25T05:20:00.000Z');
    expect(at(rows, '2026-10-25 08:20:00')!.punched_at).toBe('2026-10-25T06:20:00.000Z');
    expect(at(rows, '2026-10-25 08:20:00')!.flags).toContain('dst_overlap');
  });
});

describe('a zone changed by an administrator', () => {
  test('a punch made before the new offset and uploaded after it is read with the old offset, never an hour ahead', async () => {
    now = Date.parse('2026-11-28T13:41:43Z');
    const t = await approved('LON0002');
    expect(t.options.TimeZone).toBe('1');
    now = Date.parse('2026-11-28T13:41:48Z');
    const line = `${pin}\t${t.wallTime(new Date(now))}\t0\t1\t0\t0\t0`;
    expect(line).toContain('2026-11-28 14:41:48');
    now = Date.parse('2026-11-28T13:41:52Z');
    expect((await server.admin.patch('/devices/LON0002/', { time_zone: 'Europe/London' })).status).toBe(200);
    expect((await t.handshake()).TimeZone).toBe('0');
    now = Date.parse('2026-11-28T13:41:58Z');
    expect((await t.sendAttlog(`${line}\n`)).body).toBe('OK:1');
    const [row] = await punchesOf('LON0002');
    expect(row).toMatchObject({ punched_at: '2026-11-28T13:41:48.000Z', utc_offset_minutes: 60 });
    expect(row!.flags).not.toContain('dst_overlap');
    const device = (await server.admin.get('/devices/LON0002/')).body;
    expect(device.clock_drifting).toBe(false);
  });
});
