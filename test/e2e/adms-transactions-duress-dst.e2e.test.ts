/**
 * Fixes on the terminal side, data that was lost or changed: 3.x stored attendance
 * (`tabledata` `transaction`) becomes punches; walk-up templates the terminal marks invalid are
 * not stored and duress fingers stay duress fingers on every terminal; and terminals are told
 * the new UTC offset after a DST change (job `sync-device-clocks`).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { deviceCommands, devices, punches, templates } from '../../src/app/schema';
import { encodePush3DateTime } from '../../src/protocol/adms';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { admsFetch } from '../support/adms';
import { startTestServer, type TestServer } from '../support/harness';
import { deviceLog, deviceRow as deviceRowOf } from '../support/terminals';

let server: TestServer;
/** Before the EU switch to summer time on 2025-03-30 01:00 UTC: Berlin is UTC+1. */
let now = Date.parse('2025-03-29T12:00:00Z');
let person: { id: string; device_pin: string };

const deviceRow = async (serial: string) => (await deviceRowOf(server.fpa, serial))!;

const eventsOf = (serial: string, kind: string) => deviceLog(server.fpa, serial, kind);

async function online(sn: string, options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}) {
  const t = new SimulatedTerminal({ url: server.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${sn}/approve/`)).status).toBe(200);
  await drain(t);
  return t;
}

async function drain(t: SimulatedTerminal) {
  for (let i = 0; i < 10; i++) if ((await t.poll()).length === 0) return;
}

async function storedFingers() {
  const rows = await server.fpa.db.orm.select().from(templates).where(eq(templates.enrolleeId, person.id));
  return rows.map((r) => ({ finger: r.fingerIndex, version: r.version, duress: r.duress })).sort((a, b) => a.finger - b.finger);
}

async function jobResult(name: string) {
  const outcome = await server.fpa.jobs.run(name, { wait: true });
  expect(outcome.status).toBe('succeeded');
  return outcome.result;
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'Europe/Berlin' }, { clock: { now: () => now } });
  await server.admin.post('/employees/', { id: 'E-1', name: 'Ada Obi' });
  const e = await server.admin.post('/enrollees/', { employee: 'E-1' });
  await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' });
  person = e.body;
});
afterAll(async () => {
  await server.close();
});

describe('3.x tabledata transaction (stored attendance)', () => {
  test('records become punches, time_second decoded in the device zone; door events and bad lines are skipped', async () => {
    const t = await online('ACC3', { pushver: '3.1.2' });
    const at = encodePush3DateTime({ year: 2025, month: 3, day: 28, hour: 8, minute: 59, second: 12 });
    const body = [
      `transaction cardno=0\tpin=${person.device_pin}\tverified=1\tdoorid=1\teventtype=0\tinoutstate=0\ttime_second=${at}`,
      `transaction cardno=0\tpin=0\tverified=200\tdoorid=1\teventtype=8\tinoutstate=2\ttime_second=${at + 5}`,
      `transaction cardno=0\tpin=${person.device_pin}\tverified=15\tdoorid=1\teventtype=0\tinoutstate=1\ttime_second=${at + 8 * 3600}`,
      `transaction cardno=0\tpin=${person.device_pin}\tverified=1\tdoorid=1\teventtype=0\tinoutstate=0\ttime_second=-7`,
      '',
    ].join('\n');
    const res = await t.post('cdata', { table: 'tabledata', tablename: 'transaction', count: '4' }, body);
    expect(res).toEqual({ status: 200, body: 'transaction=2' });
    const rows = await server.fpa.db.orm.select().from(punches).where(eq(punches.deviceSerial, 'ACC3')).orderBy(punches.sequence);
    expect(rows.map((r) => [r.devicePin, r.localTime, r.state, r.verifyType, new Date(r.punchedAt).toISOString(), r.enrolleeId])).toEqual([
      [person.device_pin, '2025-03-28 08:59:12', 0, 1, '2025-03-28T07:59:12.000Z', person.id],
      [person.device_pin, '2025-03-28 16:59:12', 1, 15, '2025-03-28T15:59:12.000Z', person.id],
    ]);
    expect((await eventsOf('ACC3', 'malformed_line')).map((e) => e.message)).toEqual(['tabledata/transaction line 4 skipped: invalid time_second "-7"']);
    // A resend is acknowledged the same and stores nothing twice.
    expect(await t.post('cdata', { table: 'tabledata', tablename: 'transaction', count: '4' }, body)).toEqual({ status: 200, body: 'transaction=2' });
    expect(await server.fpa.db.orm.select().from(punches).where(eq(punches.deviceSerial, 'ACC3'))).toHaveLength(2);
  });

  test('another table is acknowledged with a device event, and stores nothing', async () => {
    const before = await server.fpa.db.orm.select().from(punches);
    const res = await admsFetch(server.url, '/iclock/cdata?SN=ACC3&table=tabledata&tablename=firstcard&count=1', { body: 'firstcard doorid=1\tpin=1\n' });
    expect(res.body).toBe('firstcard=1');
    expect((await eventsOf('ACC3', 'tabledata_ignored')).map((e) => e.details)).toEqual([{ table: 'firstcard', records: 1 }]);
    expect(await server.fpa.db.orm.select().from(punches)).toHaveLength(before.length);
  });
});

describe('walk-up templates: Valid=0 and duress fingers', () => {
  let fp: SimulatedTerminal;
  let bio: SimulatedTerminal;

  beforeAll(async () => {
    fp = await online('FPTERM');
    bio = await online('BIOTERM', { biodata: true, fpVersion: '10.0' });
    await drain(fp);
  });

  test('a template the terminal marks invalid is not stored, only logged, and counted as processed', async () => {
    expect((await fp.uploadTemplate(person.device_pin, 1, syntheticTemplate(), { invalid: true })).body).toBe('OK:1');
    expect((await bio.uploadTemplate(person.device_pin, 2, syntheticTemplate(), { invalid: true })).body).toBe('OK:1');
    expect(await storedFingers()).toEqual([]);
    expect((await eventsOf('FPTERM', 'template_invalid')).map((e) => e.details)).toEqual([{ pin: person.device_pin, finger_index: 1, origin: 'FP' }]);
    expect((await eventsOf('BIOTERM', 'template_invalid')).map((e) => e.details)).toEqual([{ pin: person.device_pin, finger_index: 2, origin: 'BIODATA' }]);
    expect(await eventsOf('FPTERM', 'template_rejected')).toHaveLength(0);
  });

  test('FP Valid=3 is stored as duress and reaches the other terminals as duress (Valid=3, Duress=1)', async () => {
    expect((await fp.uploadTemplate(person.device_pin, 3, syntheticTemplate(), { duress: true })).body).toBe('OK:1');
    expect(await storedFingers()).toEqual([{ finger: 3, version: 1, duress: true }]);
    const toBio = await bio.poll();
    expect(toBio.map((c) => c.text.split('\tTmp=')[0])).toContainEqual(
      expect.stringMatching(/^DATA UPDATE BIODATA Pin=\S+\tNo=3\tIndex=0\tValid=1\tDuress=1\t/),
    );
    expect(bio.templates.get(`${person.device_pin}:3`)?.duress).toBe(true);
  });

  test('BIODATA Duress=1 is stored as duress and reaches a FINGERTMP terminal with Valid=3; a plain finger stays plain', async () => {
    expect((await bio.uploadTemplate(person.device_pin, 4, syntheticTemplate(), { duress: true })).body).toBe('OK:1');
    expect((await bio.uploadTemplate(person.device_pin, 5)).body).toBe('OK:1');
    expect(await storedFingers()).toEqual([
      { finger: 3, version: 1, duress: true },
      { finger: 4, version: 1, duress: true },
      { finger: 5, version: 1, duress: false },
    ]);
    const toFp = (await fp.poll()).map((c) => c.text.split('\tTMP=')[0]);
    expect(toFp).toContainEqual(expect.stringMatching(/^DATA UPDATE FINGERTMP PIN=\S+\tFID=4\tSize=\d+\tValid=3$/));
    expect(toFp).toContainEqual(expect.stringMatching(/^DATA UPDATE FINGERTMP PIN=\S+\tFID=5\tSize=\d+\tValid=1$/));
    expect(fp.templates.get(`${person.device_pin}:4`)?.duress).toBe(true);
    expect(fp.templates.get(`${person.device_pin}:5`)?.duress).toBe(false);
  });

  test('the same bytes re-marked as a duress finger make a new version; 3.x fingerid+16 is duress too', async () => {
    const same = fp.templates.get(`${person.device_pin}:5`)!.template;
    expect((await fp.uploadTemplate(person.device_pin, 5, same, { duress: true })).body).toBe('OK:1');
    expect((await storedFingers()).find((f) => f.finger === 5)).toEqual({ finger: 5, version: 2, duress: true });
    await drain(bio);
    const acc = await online('V10TERM', { pushver: '3.1.2' });
    const body = `templatev10 pin=${person.device_pin}\tfingerid=22\tvalid=1\ttemplate=${syntheticTemplate()}\n`;
    expect((await acc.post('cdata', { table: 'tabledata', tablename: 'templatev10', count: '1' }, body)).body).toBe('templatev10=1');
    expect((await storedFingers()).find((f) => f.finger === 6)).toEqual({ finger: 6, version: 1, duress: true });
  });
});

describe('DST: sync-device-clocks', () => {
  async function checksOf(serial: string) {
    const device = await deviceRow(serial);
    const rows = await server.fpa.db.orm
      .select()
      .from(deviceCommands)
      .where(and(eq(deviceCommands.deviceId, device.id), eq(deviceCommands.kind, 'check')));
    return rows.map((c) => c.status);
  }

  test('the option block’s offset is recorded; after the change the job queues CHECK once and the re-handshake picks it up', async () => {
    const t = await online('DSTTERM');
    expect(t.options.TimeZone).toBe('1');
    expect((await deviceRow('DSTTERM')).clockOffsetMinutes).toBe(60);
    await jobResult('sync-device-clocks');
    expect(await checksOf('DSTTERM')).toEqual([]);

    now = Date.parse('2025-03-30T12:00:00Z');
    expect((await jobResult('sync-device-clocks')).queued).toBeGreaterThan(0);
    expect(await checksOf('DSTTERM')).toEqual(['pending']);
    // Run again while the CHECK is unanswered: no second one.
    expect(await jobResult('sync-device-clocks')).toMatchObject({ queued: 0 });
    expect(await checksOf('DSTTERM')).toEqual(['pending']);

    const handshakes = t.handshakes;
    expect((await t.poll()).map((c) => c.text)).toEqual(['CHECK']);
    expect(t.handshakes).toBe(handshakes + 1);
    expect(t.options.TimeZone).toBe('120');
    expect((await deviceRow('DSTTERM')).clockOffsetMinutes).toBe(120);
    expect(await checksOf('DSTTERM')).toEqual(['succeeded']);
  });

  test('a terminal with its own zone is compared with that zone; pending terminals are left alone', async () => {
    const t = await online('KOLKATA');
    expect((await server.admin.patch('/devices/KOLKATA/', { time_zone: 'Asia/Kolkata' })).status).toBe(200);
    expect((await t.poll()).map((c) => c.text)).toEqual(['CHECK']);
    expect((await deviceRow('KOLKATA')).clockOffsetMinutes).toBe(330);
    await admsFetch(server.url, '/iclock/cdata?SN=WAITING&options=all');
    await server.fpa.db.write(({ tx }) => tx.update(devices).set({ clockOffsetMinutes: 0 }).where(eq(devices.serialNumber, 'WAITING')));
    // Every other terminal either was told its current offset or still has its CHECK waiting.
    expect(await jobResult('sync-device-clocks')).toMatchObject({ queued: 0 });
    expect(await checksOf('KOLKATA')).toEqual(['succeeded']);
    expect(await checksOf('WAITING')).toEqual([]);
  });
});
