/**
 * The service driven by simulated terminals through whole flows: registration → approval →
 * backfill, punches kept while pending and resent, deletes after consent withdrawal and
 * enrollee deletion, command retries (transient failure, lost result), expiry, CHECK and INFO,
 * and the `simulate-device` command.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { runCli } from '../../src/cli/run';
import '../../src/cli/commands-terminals';
import { deviceCommands, devices, punches } from '../../src/app/schema';
import type { Clock } from '../../src/platform/runtime';
import { parseUsbAttlog } from '../../src/protocol/adms';
import { runFor } from '../../src/simulator/run';
import { type CommandResponder, SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { runCli as runScript } from '../support/cli';
import { startTestServer, type TestServer, tempDir } from '../support/harness';

const usbDir = tempDir('fpa-usb-file-');

let server: TestServer;
let offset = 0;
const clock: Clock = { now: () => Date.now() + offset };
let ada: { id: string; device_pin: string };
let bo: { id: string; device_pin: string };
const adaTemplate = syntheticTemplate(200);
let respond: CommandResponder | undefined;

async function person(id: string, name: string, consent: boolean) {
  await server.admin.post('/employees/', { id, name });
  const e = await server.admin.post('/enrollees/', { employee: id });
  if (consent) await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' });
  return e.body as { id: string; device_pin: string };
}

function terminal(sn: string, options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}) {
  return new SimulatedTerminal({ url: server.url, sn, respond: (c) => respond?.(c), ...options });
}

async function commandsOf(sn: string) {
  const d = (await server.fpa.db.orm
    .select()
    .from(devices)
    .where(eq(devices.serialNumber, sn))
    .limit(1)
    .then((r) => r[0]))!;
  return server.fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.deviceId, d.id)).orderBy(deviceCommands.id);
}

async function punchCount(sn: string) {
  return (await server.fpa.db.orm.select().from(punches).where(eq(punches.deviceSerial, sn))).length;
}

beforeAll(async () => {
  server = await startTestServer({ COMMAND_ACK_TIMEOUT: '1m', COMMAND_RETRY_BACKOFF: '30s', COMMAND_EXPIRY: '1h' }, { clock });
  ada = await person('E-ADA', 'Ada Obi', true);
  bo = await person('E-BO', 'Bo Li', true);
  await server.fpa.service.storeTemplate(ada.id, 3, new Uint8Array(Buffer.from(adaTemplate, 'base64')), { algorithmVersion: '10', by: 'test' });
});
afterAll(async () => {
  await server.close();
  usbDir.cleanup();
});

describe('registration → approval → backfill', () => {
  const t = () => terminal('FLOW1', { timeZone: 'Asia/Kolkata' });
  let flow: SimulatedTerminal;

  test('a new terminal is pending: polls answered with no commands, punches refused and kept', async () => {
    flow = t();
    const options = await flow.handshake();
    expect(options._header).toBe('GET OPTION FROM: FLOW1');
    expect((await flow.postOptions()).body).toBe('OK');
    expect(await flow.poll()).toHaveLength(0);
    // As the terminal's clock shows it (recorded before it was told a zone: read with the zone's rules).
    const refused = await flow.punch([{ pin: ada.device_pin, localTime: '2024-03-11 08:59:12' }]);
    expect(refused.status).toBe(403);
    expect(flow.pendingPunches).toBe(1);
    expect(await punchCount('FLOW1')).toBe(0);
  });

  test('approval backfills USERINFO and FINGERTMP; kept punches go through afterwards', async () => {
    await server.admin.patch('/devices/FLOW1/', { time_zone: 'Asia/Kolkata' });
    expect((await server.admin.post('/devices/FLOW1/approve/')).status).toBe(200);
    // First who the terminal already holds, so that no backfilled user replaces one of them;
    // the backfill follows the answer.
    expect((await flow.poll()).map((c) => c.text)).toEqual(['DATA QUERY USERINFO']);
    const received = await flow.poll();
    const kinds = received.map((c) => c.text.split('\t')[0]);
    expect(kinds).toEqual([
      `DATA UPDATE USERINFO PIN=${ada.device_pin}`,
      `DATA UPDATE FINGERTMP PIN=${ada.device_pin}`,
      `DATA UPDATE USERINFO PIN=${bo.device_pin}`,
    ]);
    expect(flow.users.get(ada.device_pin)!.name).toBe('Ada Obi');
    expect(flow.templates.get(`${ada.device_pin}:3`)).toMatchObject({ template: adaTemplate, via: 'FINGERTMP' });
    const sync = (await server.admin.get(`/enrollees/${ada.id}/templates/`)).body.results[0].sync;
    expect(sync).toContainEqual(expect.objectContaining({ device: 'FLOW1', status: 'present' }));

    const flushed = await flow.flushPunches();
    expect(flushed.body).toBe('OK:1');
    const [row] = await server.fpa.db.orm.select().from(punches).where(eq(punches.deviceSerial, 'FLOW1'));
    expect(row!.localTime).toBe('2024-03-11 08:59:12');
    expect(new Date(row!.punchedAt).toISOString()).toBe('2024-03-11T03:29:12.000Z');
    expect(row!.enrolleeId).toBe(ada.id);
  });

  test('punches resent and duplicated: OK:n both times, stored once', async () => {
    const records = [
      { pin: ada.device_pin, localTime: '2024-03-12 09:00:00' },
      { pin: bo.device_pin, localTime: '2024-03-12 09:01:00', state: 1 },
    ];
    const first = await flow.punch(records);
    expect(first.body).toBe('OK:2');
    const body = records.map((r) => `${r.pin}\t${r.localTime}\t${r.state ?? 0}\t1\t0\t0\t0`).join('\n');
    expect((await flow.sendAttlog(`${body}\n`)).body).toBe('OK:2');
    expect(await punchCount('FLOW1')).toBe(3);
  });

  test('a BIODATA terminal is backfilled with DATA UPDATE BIODATA', async () => {
    const bio = terminal('FLOWBIO', { biodata: true });
    await bio.handshake();
    await bio.postOptions();
    await server.admin.post('/devices/FLOWBIO/approve/');
    await bio.poll();
    const received = await bio.poll();
    expect(received.map((c) => c.text.split(' ').slice(0, 3).join(' '))).toContain('DATA UPDATE BIODATA');
    expect(bio.templates.get(`${ada.device_pin}:3`)).toMatchObject({ template: adaTemplate, via: 'BIODATA' });
  });
});

describe('deletes reach the terminal', () => {
  test('consent withdrawal: DATA DELETE FINGERTMP; enrollee deletion: DATA DELETE USERINFO', async () => {
    const flow = terminal('FLOW1');
    // Same serial: this terminal object starts with empty tables, so give it the backfilled state.
    flow.users.set(ada.device_pin, { pin: ada.device_pin, name: 'Ada Obi', fields: {} });
    await server.admin.delete(`/enrollees/${ada.id}/consent/`);
    const deletes = await flow.poll();
    expect(deletes.map((c) => c.text)).toEqual([`DATA DELETE FINGERTMP PIN=${ada.device_pin}\tFID=3`]);
    await server.admin.delete(`/enrollees/${ada.id}`);
    const removed = await flow.poll();
    expect(removed.map((c) => c.text)).toEqual([`DATA DELETE USERINFO PIN=${ada.device_pin}`]);
    expect(flow.users.has(ada.device_pin)).toBe(false);
  });
});

describe('device commands end to end', () => {
  let t: SimulatedTerminal;
  beforeAll(async () => {
    t = terminal('CMD1');
    await t.handshake();
    await server.admin.post('/devices/CMD1/approve/');
    // The query of its users that approval sends; the backfill is queued when it is answered.
    expect((await t.poll()).map((c) => [c.text, c.returnCode])).toEqual([['DATA QUERY USERINFO', 0]]);
  });

  test('a transient failure (-1005 busy) is retried after the backoff', async () => {
    respond = (c) => (c.text.startsWith('DATA UPDATE USERINFO') ? -1005 : undefined);
    const first = await t.poll();
    expect(first.map((c) => c.returnCode)).toEqual([-1005]);
    respond = undefined;
    expect(await t.poll()).toHaveLength(0);
    offset += 31_000;
    const again = await t.poll();
    expect(again.map((c) => [c.id, c.returnCode])).toEqual([[first[0]!.id, 0]]);
    const [, command] = await commandsOf('CMD1');
    expect(command).toMatchObject({ kind: 'add_user', status: 'succeeded', attempts: 2, returnCode: 0 });
  });

  test('an unanswered command is resent by retry-commands after COMMAND_ACK_TIMEOUT', async () => {
    await server.admin.patch(`/enrollees/${bo.id}/`, { display_name: 'Bo Li-Chen' });
    respond = () => 'ignore';
    const lost = await t.poll();
    expect(lost).toHaveLength(1);
    respond = undefined;
    expect((await commandsOf('CMD1')).at(-1)!.status).toBe('sent');
    offset += 61_000;
    const run = await server.admin.post('/jobs/retry-commands/run/');
    expect(run.body.result).toMatchObject({ retried: 1 });
    offset += 31_000;
    const resent = await t.poll();
    expect(resent.map((c) => [c.id, c.text.includes('Name=Bo Li-Chen')])).toEqual([[lost[0]!.id, true]]);
    expect((await commandsOf('CMD1')).at(-1)).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(t.users.get(bo.device_pin)!.name).toBe('Bo Li-Chen');
  });

  test('a command past its expiry is expired by expire-commands', async () => {
    const silent = terminal('SILENT1');
    await silent.handshake();
    await server.admin.post('/devices/SILENT1/approve/');
    offset += 61 * 60_000;
    const run = await server.admin.post('/jobs/expire-commands/run/');
    expect(run.body.status).toBe('succeeded');
    const commands = await commandsOf('SILENT1');
    expect(commands.length).toBeGreaterThan(0);
    expect(commands.every((c) => c.status === 'expired')).toBe(true);
    // Nothing expired is sent; back after longer than commands live, it is asked for its users
    // and resynced (fleet reconciliation).
    expect((await silent.poll()).map((c) => c.text)).toEqual(['DATA QUERY USERINFO']);
  });

  test('CHECK makes the terminal handshake again; INFO updates the device facts', async () => {
    const before = t.handshakes;
    await server.admin.patch('/devices/CMD1/', { time_zone: 'Europe/Berlin' });
    // (Silent for longer than commands live in the tests before: it is also asked for its users.)
    expect((await t.poll()).map((c) => c.text)).toEqual(['CHECK', 'DATA QUERY USERINFO']);
    expect(t.handshakes).toBe(before + 1);
    expect(['60', '1', '120', '2']).toContain(t.options.TimeZone!);
    // The resync that followed the answer.
    while ((await t.poll()).length > 0);
    const device = (await server.fpa.db.orm
      .select()
      .from(devices)
      .where(eq(devices.serialNumber, 'CMD1'))
      .limit(1)
      .then((r) => r[0]))!;
    await server.fpa.db.write((w) => server.fpa.service.commands.enqueue(w, [{ deviceId: device.id, kind: 'info', payload: {} }]));
    expect((await t.poll()).map((c) => [c.text, c.returnCode])).toEqual([['INFO', 0]]);
    const after = (await server.fpa.db.orm
      .select()
      .from(devices)
      .where(eq(devices.serialNumber, 'CMD1'))
      .limit(1)
      .then((r) => r[0]))!;
    expect(after.parameters?.['~SerialNumber']).toBe('CMD1');
    expect(after.firmware).toBe('FPA-SIM-Ver1.0.0');
  });
});

describe('device health', () => {
  test('a silent terminal goes offline with check-devices and comes back with its next request', async () => {
    const t = terminal('HEALTH1');
    await t.handshake();
    expect((await server.admin.get('/devices/HEALTH1/')).body.online).toBe(true);
    offset += 6 * 60_000;
    const run = await server.admin.post('/jobs/check-devices/run/');
    expect(run.body.status).toBe('succeeded');
    expect((await server.admin.get('/devices/HEALTH1/')).body.online).toBe(false);
    await t.poll();
    const back = (await server.admin.get('/devices/HEALTH1/')).body;
    expect(back.online).toBe(true);
    expect(back.firmware).toBe('FPA-SIM-Ver1.0.0');
    expect(back.recent_events.map((e: { kind: string }) => e.kind)).toEqual(expect.arrayContaining(['offline', 'online']));
  });
});

describe('runFor and the simulate-device command', () => {
  test('runFor handshakes, polls and delivers every punch', async () => {
    const t = terminal('RUN1');
    await t.handshake();
    await server.admin.post('/devices/RUN1/approve/');
    const summary = await runFor(t, 600, { punches: 4, pins: ['7', '8'], pollIntervalMs: 100 });
    expect(summary.punchesSent).toBe(4);
    expect(summary.polls).toBeGreaterThan(1);
    expect(t.pendingPunches).toBe(0);
    expect(await punchCount('RUN1')).toBe(4);
  });

  test('bun run fpa:simulate-device delivers its punches to an approved terminal, and writes its USB file', async () => {
    const usbFile = join(usbDir.dir, '1_attlog.dat');
    await terminal('CLI1').handshake();
    await server.admin.post('/devices/CLI1/approve/');
    const code = await runCli([
      'simulate-device',
      '--url',
      server.url,
      '--sn',
      'CLI1',
      '--punches',
      '3',
      '--pins',
      '11,12',
      '--duration',
      '500ms',
      '--poll-interval',
      '100ms',
      '--usb-file',
      usbFile,
      '--quiet',
    ]);
    expect(code).toBe(0);
    expect(await punchCount('CLI1')).toBe(3);
    // Its log as the USB file a terminal saves: the three punches, in the file's order of fields.
    const saved = parseUsbAttlog(readFileSync(usbFile, 'utf8'));
    expect(saved.errors).toEqual([]);
    expect(saved.records.map((r) => r.pin)).toEqual(['11', '12', '11']);
    expect(await runCli(['simulate-device', '--url', server.url])).toBe(2);
    // A value it cannot read is a typo to fix (exit 2), like an unknown option, before any request.
    for (const bad of [
      ['--duration', 'banana'],
      ['--punches', 'abc'],
      ['--capacity', 'x'],
      ['--existing-users', 'many'],
      ['--poll-interval', 'zz'],
      ['--scenario', 'nope'],
      ['--time-zone', 'Mars/Base'],
    ])
      expect({ bad, code: await runCli(['simulate-device', '--url', server.url, '--sn', 'CLI9', ...bad]) }).toEqual({ bad, code: 2 });
    expect((await server.admin.get('/devices/CLI9/')).status).toBe(404);
  });

  test('npm run fpa:simulate-device without --sn (or --url) names what is missing, exit 2, as the other scripts do', async () => {
    // It once printed only the usage line, which names every option: nothing said which one was missing.
    const noSerial = await runScript(['simulate-device', '--url', server.url, '--duration', '1s'], join(usbDir.dir, 'unused.db'));
    expect({ code: noSerial.code, out: noSerial.out }).toEqual({ code: 2, out: '' });
    expect(noSerial.err.split('\n')[0]).toBe('fpa:simulate-device: --sn (the serial number the terminal reports) is required');
    expect(noSerial.err).toContain('usage: npm run fpa:simulate-device -- --url <base url> --sn <serial>');
    const neither = await runScript(['simulate-device'], join(usbDir.dir, 'unused.db'));
    expect({ code: neither.code, first: neither.err.split('\n')[0] }).toEqual({
      code: 2,
      first: 'fpa:simulate-device: --url (the server’s base URL, e.g. http://127.0.0.1:3000) and --sn (the serial number the terminal reports) are required',
    });
  });
});
