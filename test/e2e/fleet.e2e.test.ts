/**
 * Rolling out onto a real fleet, through the real server and simulated terminals: terminals
 * that already hold users (made at their menus), conflicts, adoption, walk-up trust, keys, a
 * terminal away longer than its commands live, a full terminal, resync, clear data,
 * pre-registration and removal, DST on an unplugged terminal, clock drift, short Host headers
 * and areas as a resource; a terminal's users listed a page at a time. Each test is one of the failures the fleet issue lists, fixed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { connect } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { Elysia } from 'elysia';
import { createFingerprintAttendance, servePathsWhateverTheHost } from '../../src';
import { deviceCommands, devices, punches } from '../../src/app/schema';
import { encodeCursor } from '../../src/platform/http/cursor';
import { silentLogger } from '../../src/platform/log';
import type { Clock } from '../../src/platform/runtime';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { type ApiResponse, startTestServer, type TestServer, tempDir, testSettings } from '../support/harness';
import { drain } from '../support/terminals';

const DAY = 86_400_000;
let server: TestServer;
/** The server's clock: starts on 20 March 2026 (Berlin on +01:00) and only moves forward. */
let now = Date.parse('2026-03-20T10:00:00Z');
const clock: Clock = { now: () => now };
let ada: { id: string; device_pin: string };

async function person(id: string, options: { consent?: boolean; areas?: string[] } = {}) {
  await server.admin.post('/employees/', { id, name: `Person ${id}` });
  const e = await server.admin.post('/enrollees/', { employee: id, ...(options.areas ? { areas: options.areas } : {}) });
  expect(e.status).toBe(201);
  if (options.consent) await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' });
  return e.body as { id: string; device_pin: string };
}

function terminal(sn: string, options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}) {
  return new SimulatedTerminal({ url: server.url, sn, ...options });
}

/** Handshake, parameters, approval. */
async function connected(t: SimulatedTerminal, body: Record<string, unknown> = {}) {
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${t.sn}/approve/`, body)).status).toBe(200);
  return t;
}

async function usersOf(sn: string) {
  const res = await server.admin.get(`/devices/${sn}/users/`);
  expect(res.status).toBe(200);
  return res.body.results as {
    pin: string;
    name: string | null;
    enrollee: string | null;
    conflict: { enrollee: string } | null;
    biometrics: Record<string, number>;
  }[];
}

async function commandsOf(sn: string) {
  const [d] = await server.fpa.db.orm.select().from(devices).where(eq(devices.serialNumber, sn));
  return server.fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.deviceId, d!.id)).orderBy(deviceCommands.id);
}

async function rawRequest(head: string, port = server.port): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let data = '';
    socket.on('data', (chunk) => (data += chunk));
    socket.on('end', () => resolve({ status: Number(data.split(' ')[1]), body: data.split('\r\n\r\n').slice(1).join('\r\n\r\n') }));
    socket.on('error', reject);
  });
}

beforeAll(async () => {
  server = await startTestServer(
    { TIME_ZONE: 'Europe/Berlin', ATTENDANCE_TIME_ZONE: 'Europe/Berlin', COMMAND_EXPIRY: '1d', DEVICE_CLOCK_CORRECTION: true },
    { clock },
  );
  // An enrollee from before the rollout, with a fingerprint on file.
  ada = await person('E-ADA', { consent: true });
  await server.fpa.service.storeTemplate(ada.id, 3, new Uint8Array(Buffer.from(syntheticTemplate(200), 'base64')), { algorithmVersion: '10', by: 'test' });
});
afterAll(async () => {
  await server.close();
});

describe('a terminal that already holds users', () => {
  let t: SimulatedTerminal;

  test('is asked who it holds before the backfill; its users are listed and left as they are', async () => {
    t = terminal('FLEET1', { existingUsers: [1, 2, 3, 4, 5].map((n) => ({ pin: String(n), name: `Menu ${n}`, fingers: [6] })) });
    await connected(t);
    expect(ada.device_pin).toBe('10000');
    const first = await t.poll();
    expect(first.map((c) => c.text)).toEqual(['DATA QUERY USERINFO']);
    const backfill = await drain(t);
    expect(backfill.map((c) => c.split('\t')[0])).toEqual(['DATA UPDATE USERINFO PIN=10000', 'DATA UPDATE FINGERTMP PIN=10000']);
    for (const n of [1, 2, 3, 4, 5]) expect(t.users.get(String(n))!.name).toBe(`Menu ${n}`);
    const users = await usersOf('FLEET1');
    expect(users.map((u) => [u.pin, u.enrollee, u.biometrics.fingerprint ?? 0])).toEqual([
      // In numeric PIN order (issue 26), not text order.
      ['1', null, 0],
      ['2', null, 0],
      ['3', null, 0],
      ['4', null, 0],
      ['5', null, 0],
      ['10000', ada.id, 1],
    ]);
    expect(users.every((u) => u.conflict === null)).toBe(true);
  });

  test("a new enrollee's PIN is none a terminal holds", async () => {
    const other = terminal('FLEET2', { existingUsers: [{ pin: '10001', name: 'Someone else' }] });
    await connected(other);
    await drain(other);
    const bo = await person('E-BO');
    expect(bo.device_pin).toBe('10002');
    await drain(other);
    await drain(t);
    expect(other.users.get('10001')!.name).toBe('Someone else');
  });

  test("the terminal's own users' punches are theirs: flagged, never an enrollee's", async () => {
    expect((await t.punch([{ pin: '1', at: new Date(now - 3_600_000) }])).body).toBe('OK:1');
    const [row] = await server.fpa.db.orm
      .select()
      .from(punches)
      .where(and(eq(punches.deviceSerial, 'FLEET1'), eq(punches.devicePin, '1')));
    expect(row).toMatchObject({ enrolleeId: null });
    expect(row!.flags).toContain('unknown_pin');
  });

  test("a walk-up template of the terminal's own user is counted there, neither stored nor deleted", async () => {
    expect((await t.uploadTemplate('2', 1)).body).toBe('OK:1');
    expect(await t.poll()).toHaveLength(0);
    expect((await usersOf('FLEET1')).find((u) => u.pin === '2')!.biometrics).toEqual({ fingerprint: 1 });
  });

  test('adopting a user keeps the PIN people type; their punches and, after consent, their fingerprints become the enrollee’s', async () => {
    await server.admin.post('/employees/', { id: 'E-ONE', name: 'Menu One' });
    const adopted = await server.admin.post('/devices/FLEET1/users/1/adopt/', { employee: 'E-ONE' });
    expect(adopted.status).toBe(201);
    expect(adopted.body).toMatchObject({ employee: 'E-ONE', device_pin: '1' });
    const own = await server.admin.get('/punches/?employee=E-ONE');
    expect(own.body.results).toHaveLength(1);
    expect(own.body.results[0].flags).not.toContain('unknown_pin');
    expect((await usersOf('FLEET1')).find((u) => u.pin === '1')!.enrollee).toBe(adopted.body.id);
    // The log names the person before what follows from them: a reaction comes after its cause.
    const log = await server.admin.get('/events/?type=enrollee_created,punches_attributed,terminal_user_adopted,terminal_user_conflict&limit=1000');
    const about = (log.body.results as { type: string; data: unknown }[]).filter((e) => JSON.stringify(e.data).includes(adopted.body.id)).map((e) => e.type);
    expect(about).toEqual(['enrollee_created', 'punches_attributed', 'terminal_user_adopted']);
    // Adopted twice, or a PIN the terminal does not hold: refused.
    expect((await server.admin.post('/devices/FLEET1/users/1/adopt/', { employee: 'E-ONE' })).status).toBe(409);
    expect((await server.admin.post('/devices/FLEET1/users/77/adopt/', { employee: 'E-ONE' })).status).toBe(404);

    await drain(t);
    await server.admin.post(`/enrollees/${adopted.body.id}/consent/`, { version: 'v1', method: 'paper' });
    const fetched = await drain(t);
    expect(fetched).toContain('DATA QUERY FINGERTMP PIN=1');
    const templates = await server.admin.get(`/enrollees/${adopted.body.id}/templates/`);
    expect(templates.body.results.map((r: { finger_index: number; source: string }) => [r.finger_index, r.source])).toEqual([[6, 'device']]);
  });

  test('a PIN not every terminal can hold (not 1 to 9 digits) is not adopted: 422 invalid_pin, nothing created, the user still listed', async () => {
    const odd = terminal('FLEET9', {
      existingUsers: [
        { pin: '123456789012345', name: 'Long PIN' },
        { pin: 'AB-12', name: 'Letters' },
        { pin: '999999999', name: 'Nine digits' },
      ],
    });
    await connected(odd);
    await drain(odd);
    await server.admin.post('/employees/', { id: 'E-ODD', name: 'Odd PIN' });
    for (const [pin, reason] of [
      ['123456789012345', 'too_long'],
      ['AB-12', 'not_digits'],
    ] as const) {
      const refused = await server.admin.post(`/devices/FLEET9/users/${pin}/adopt/`, { employee: 'E-ODD' });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ code: 'invalid_pin', details: { pin, reason, max_digits: 9 } });
      expect(refused.body.error.message).toContain('new PIN');
      expect(refused.body.error.message).toContain("terminal's menu");
    }
    expect((await server.admin.get('/enrollees/?employee=E-ODD')).body.results).toEqual([]);
    const own = (await usersOf('FLEET9')).filter((u) => u.enrollee === null);
    expect(own.map((u) => u.pin).sort()).toEqual(['123456789012345', '999999999', 'AB-12']);
    // Nine digits is a PIN every terminal holds (an area of its own: the other tests' terminals do not get them).
    const nine = await server.admin.post('/devices/FLEET9/users/999999999/adopt/', { employee: 'E-ODD', areas: ['odd-pins'] });
    expect(nine.status).toBe(201);
    expect((await server.admin.get('/enrollees/?device_pin=999999999')).body.results.map((e: { id: string }) => e.id)).toEqual([nine.body.id]);
  });
});

describe("a terminal's users, a page at a time", () => {
  test('501 users: ?limit=10 answers the first 10 and a cursor; the cursors list each user once, in numeric PIN order; a tampered cursor is 400', async () => {
    expect((await server.admin.post('/areas/', { name: 'paging' })).status).toBe(201);
    const numbered = Array.from({ length: 497 }, (_, i) => String(i + 1));
    // A PIN with leading zeros (its place beside 7), one too long for a JavaScript number, two with letters.
    const pins = [...numbered, '007', 'B2', 'A1', '12345678901234567890'];
    const t = terminal('MANY1', { existingUsers: pins.map((pin) => ({ pin, name: `Menu ${pin}` })) });
    await connected(t, { areas: ['paging'] });
    await drain(t);
    const inOrder = [...numbered.slice(0, 6), '007', ...numbered.slice(6), '12345678901234567890', 'A1', 'B2'];

    const first = await server.admin.get('/devices/MANY1/users/?limit=10');
    expect(first.status).toBe(200);
    expect(first.body.results.map((u: { pin: string }) => u.pin)).toEqual(inOrder.slice(0, 10));
    expect(first.body.next_cursor).toEqual(expect.any(String));
    // The default page is 100.
    const byDefault = await server.admin.get('/devices/MANY1/users/');
    expect(byDefault.body.results).toHaveLength(100);
    expect(byDefault.body.next_cursor).toEqual(expect.any(String));

    const listed: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: ApiResponse<{ results: { pin: string }[]; next_cursor: string | null }> = await server.admin.get(
        `/devices/MANY1/users/?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      listed.push(...res.body.results.map((u) => u.pin));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(6);
    expect(listed).toEqual(inOrder);
    // One page of 1000 holds them all: no cursor.
    const whole = await server.admin.get('/devices/MANY1/users/?limit=1000');
    expect(whole.body.results.map((u: { pin: string }) => u.pin)).toEqual(inOrder);
    expect(whole.body.next_cursor).toBeNull();

    for (const tampered of [first.body.next_cursor.slice(0, -2), encodeCursor([5]), 'not-a-cursor']) {
      const res = await server.admin.get(`/devices/MANY1/users/?limit=10&cursor=${tampered}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
    expect((await server.admin.get('/devices/MANY1/users/?limit=1001')).status).toBe(400);
  });
});

describe('conflicts are shown and resolved, never merged', () => {
  test("a terminal holding an enrollee's PIN for someone else keeps them; removing that user lets the enrollee in", async () => {
    const t = await connected(terminal('FLEET3', { existingUsers: [{ pin: '10000', name: 'Not Ada', fingers: [1] }] }));
    const sent = await drain(t);
    expect(sent[0]).toBe('DATA QUERY USERINFO');
    expect(sent.filter((c) => c.includes('PIN=10000'))).toEqual([]);
    expect(t.users.get('10000')!.name).toBe('Not Ada');
    const user = (await usersOf('FLEET3')).find((u) => u.pin === '10000');
    expect(user).toMatchObject({ pin: '10000', enrollee: null, conflict: { enrollee: ada.id } });
    const types = (await server.admin.get('/events/?type=terminal_user_conflict')).body.results.map((e: { data: { pin: string } }) => e.data.pin);
    expect(types).toContain('10000');

    const removal = await server.admin.delete('/devices/FLEET3/users/10000/');
    expect(removal.status).toBe(202);
    const after = await drain(t);
    expect(after[0]).toBe('DATA DELETE USERINFO PIN=10000');
    expect(after.map((c) => c.split('\t')[0])).toContain('DATA UPDATE USERINFO PIN=10000');
    expect(t.users.get('10000')!.name).not.toBe('Not Ada');
    expect((await usersOf('FLEET3')).find((u) => u.pin === '10000')).toMatchObject({ enrollee: ada.id, conflict: null });
  });
});

describe('walk-up trust and communication keys', () => {
  test("a template from outside the enrollee's areas is rejected, unless the terminal is an enrollment station", async () => {
    const cy = await person('E-CY', { consent: true, areas: ['north'] });
    const t = terminal('FLEET1');
    expect((await t.uploadTemplate(cy.device_pin, 2)).body).toBe('OK:1');
    expect((await server.admin.get(`/enrollees/${cy.id}/templates/`)).body.results).toHaveLength(0);
    expect((await server.admin.patch('/devices/FLEET1/', { enrollment_station: true })).body.enrollment_station).toBe(true);
    expect((await t.uploadTemplate(cy.device_pin, 2)).body).toBe('OK:1');
    expect((await server.admin.get(`/enrollees/${cy.id}/templates/`)).body.results).toHaveLength(1);
    await server.admin.patch('/devices/FLEET1/', { enrollment_station: false });
  });

  test('a key, once issued, must be presented; a revoked one no longer works', async () => {
    const issued = await server.admin.post('/devices/FLEET2/keys/');
    expect(issued.status).toBe(201);
    expect(issued.body.key).toMatch(/^\d{12}$/);
    expect(JSON.stringify((await server.admin.get('/devices/FLEET2/keys/')).body)).not.toContain(issued.body.key);
    const handshake = (t: SimulatedTerminal) => t.get('cdata', { options: 'all', pushver: '2.4.1' });
    expect((await handshake(terminal('FLEET2'))).status).toBe(403);
    const keyed = terminal('FLEET2', { pushCommKey: issued.body.key });
    expect((await handshake(keyed)).body).toStartWith('GET OPTION FROM: FLEET2');
    expect((await server.admin.delete(`/devices/FLEET2/keys/${issued.body.id}/`)).status).toBe(204);
    expect((await handshake(keyed)).status).toBe(403);
  });
});

describe('terminals and server agree again', () => {
  test('a terminal away longer than its commands live ends up, unattended, with exactly its in-scope users and templates', async () => {
    const t = await connected(terminal('FLEET4', { existingUsers: [{ pin: '7', name: 'Menu Seven' }] }));
    await drain(t);
    // Unplugged for two days: what was queued for it meanwhile expires.
    const dee = await person('E-DEE', { consent: true });
    await server.fpa.service.storeTemplate(dee.id, 4, new Uint8Array(Buffer.from(syntheticTemplate(180), 'base64')), { algorithmVersion: '10', by: 'test' });
    now += 2 * DAY;
    await server.admin.post('/jobs/expire-commands/run/');
    expect((await commandsOf('FLEET4')).filter((c) => c.status === 'pending')).toHaveLength(0);
    await drain(t);
    // Its own user, and the default area's enrollees (not E-CY, who is in `north`).
    expect([...t.users.keys()].sort()).toEqual(['1', '10000', '10002', dee.device_pin, '7'].sort());
    expect(t.templates.has(`${dee.device_pin}:4`)).toBe(true);
    expect(t.templates.has(`${ada.device_pin}:3`)).toBe(true);
    const detail = (await server.admin.get('/devices/FLEET4/')).body;
    expect(detail.sync_check.users.expected).toBe(t.users.size);
  });

  test('a full terminal: the template fails (−1001), and the periodic job sends it again once there is room', async () => {
    const t = await connected(terminal('FLEET5', { capacity: { templates: 0 } }));
    await drain(t);
    const [sync] = (await server.admin.get(`/enrollees/${ada.id}/templates/`)).body.results[0].sync.filter((s: { device: string }) => s.device === 'FLEET5');
    expect(sync.status).toBe('failed');
    t.capacity.templates = 100;
    const run = await server.admin.post('/jobs/reconcile-devices/run/');
    expect(run.body.result.queued).toBeGreaterThan(0);
    await drain(t);
    const [again] = (await server.admin.get(`/enrollees/${ada.id}/templates/`)).body.results[0].sync.filter((s: { device: string }) => s.device === 'FLEET5');
    expect(again.status).toBe('present');
  });

  test('a full resync removes what is outside the scope, its own users included', async () => {
    const t = terminal('FLEET1');
    for (const u of await usersOf('FLEET1')) t.users.set(u.pin, { pin: u.pin, name: u.name ?? '', fields: {} });
    const res = await server.admin.post('/devices/FLEET1/resync/', { full: true });
    expect(res.status).toBe(200);
    expect(res.body.queued).toBeGreaterThan(0);
    const sent = await drain(t);
    for (const pin of ['2', '3', '4', '5']) expect(sent).toContain(`DATA DELETE USERINFO PIN=${pin}`);
    expect(sent).not.toContain('DATA DELETE USERINFO PIN=1');
    expect((await usersOf('FLEET1')).map((u) => u.pin).sort()).toEqual(['1', '10000', '10002', '10004'].sort());
  });

  test('clear data (confirmed with the serial) empties the terminal, which then gets its in-scope users again', async () => {
    const t = terminal('FLEET5');
    expect((await server.admin.post('/devices/FLEET5/commands/', { kind: 'clear_data', confirm: 'FLEET4' })).status).toBe(422);
    expect((await server.admin.post('/devices/FLEET5/commands/', { kind: 'clear_data', confirm: 'FLEET5' })).status).toBe(201);
    const sent = await drain(t);
    expect(sent[0]).toBe('CLEAR DATA');
    expect(sent.map((c) => c.split('\t')[0])).toContain('DATA UPDATE USERINFO PIN=10000');
    expect(t.users.has('10000')).toBe(true);
  });

  test('a pre-registered terminal is served at once; a removed one gets nothing more, its punches stay', async () => {
    const created = await server.admin.post('/devices/', { serial_number: 'PRE1', name: 'Gate 2' });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('approved');
    const t = terminal('PRE1');
    await t.handshake();
    const sent = await drain(t);
    expect(sent[0]).toBe('DATA QUERY USERINFO');
    expect(sent.map((c) => c.split('\t')[0])).toContain('DATA UPDATE USERINFO PIN=10000');
    expect((await t.punch([{ pin: '10000', at: new Date(now - 60_000) }])).body).toBe('OK:1');

    await server.admin.patch('/enrollees/' + ada.id + '/', { display_name: 'Ada Renamed' });
    expect((await server.admin.delete('/devices/PRE1/')).status).toBe(204);
    expect((await server.admin.get('/devices/PRE1/')).status).toBe(404);
    const stayed = await server.fpa.db.orm.select().from(punches).where(eq(punches.deviceSerial, 'PRE1'));
    expect(stayed).toHaveLength(1);
    const cancelled = (await server.admin.get('/events/?type=device_command_finished&limit=1000')).body.results.filter(
      (e: { data: { device: { serial_number: string }; status: string } }) => e.data.device.serial_number === 'PRE1' && e.data.status === 'cancelled',
    );
    expect(cancelled.length).toBeGreaterThan(0);
  });
});

describe('clocks', () => {
  test('punches of a terminal that has not heard of the DST change yet are read with the offset it runs on', async () => {
    const t = await connected(terminal('DST1'));
    await drain(t);
    // Berlin moves to +02:00 on 29 March; the terminal keeps +01:00 until its next handshake.
    now = Date.parse('2026-03-30T08:00:00Z');
    expect((await t.punch([{ pin: '10000', localTime: '2026-03-30 09:00:00' }])).body).toBe('OK:1');
    const [row] = await server.fpa.db.orm.select().from(punches).where(eq(punches.deviceSerial, 'DST1'));
    expect(new Date(row!.punchedAt).toISOString()).toBe('2026-03-30T08:00:00.000Z');
    expect(row!.flags).toContain('stale_offset');
    // After the handshake it runs on +02:00.
    await t.handshake();
    now += 3_600_000;
    expect((await t.punch([{ pin: '10000', localTime: '2026-03-30 11:00:00' }])).body).toBe('OK:1');
    const rows = await server.fpa.db.orm.select().from(punches).where(eq(punches.deviceSerial, 'DST1')).orderBy(punches.punchedAt);
    expect(new Date(rows[1]!.punchedAt).toISOString()).toBe('2026-03-30T09:00:00.000Z');
    expect(rows[1]!.flags).not.toContain('stale_offset');
  });

  test('a clock running ahead is flagged on the device and set again (DEVICE_CLOCK_CORRECTION)', async () => {
    const t = terminal('DST1', { timeZone: 'Europe/Berlin' });
    expect((await t.punch([{ pin: '10000', at: new Date(now + 5 * 60_000) }])).status).toBe(200);
    const detail = (await server.admin.get('/devices/DST1/')).body;
    expect(detail.clock_drifting).toBe(true);
    expect(Math.abs(detail.clock_drift_seconds)).toBeGreaterThan(120);
    expect((await commandsOf('DST1')).some((c) => c.kind === 'set_time' && c.status === 'pending')).toBe(true);
  });

  test('a clock started over (2000-01-01) or set a year ahead is flagged too, and the installer told', async () => {
    const reset = await connected(terminal('RESET1'));
    await drain(reset);
    expect((await reset.punch([{ pin: '10000', localTime: '2000-01-01 00:05:00' }])).body).toBe('OK:1');
    const ahead = await connected(terminal('AHEAD1'));
    await drain(ahead);
    expect((await ahead.punch([{ pin: '10000', at: new Date(now + 400 * DAY) }])).body).toBe('OK:1');
    const detail = async (sn: string) => (await server.admin.get(`/devices/${sn}/`)).body as { clock_drifting: boolean; clock_drift_seconds: number };
    expect(await detail('RESET1')).toMatchObject({ clock_drifting: true });
    expect((await detail('RESET1')).clock_drift_seconds).toBeLessThan(-25 * 365 * 86_400);
    expect(await detail('AHEAD1')).toMatchObject({ clock_drifting: true });
    expect((await detail('AHEAD1')).clock_drift_seconds).toBeGreaterThan(399 * 86_400);
    const found = (await server.admin.get('/diagnostics/')).body.results as { kind: string; device: string; message: string; fix: string }[];
    const resetDiag = found.find((d) => d.device === 'RESET1' && d.kind === 'clock_drift');
    expect(resetDiag?.message).toContain('about 26 years behind');
    expect(resetDiag?.fix).toContain('battery');
    expect(found.find((d) => d.device === 'AHEAD1' && d.kind === 'clock_drift')?.message).toContain('400 days ahead');
  });

  test('a backlog of impossible records (a mended battery failure re-uploaded) says nothing of the clock', async () => {
    const t = await connected(terminal('BACKLOG1'));
    await drain(t);
    const old = Array.from({ length: 20 }, (_, i) => ({ pin: '10000', localTime: `2000-01-0${1 + (i % 9)} 0${i % 10}:00:00` }));
    expect((await t.punch(old)).body).toStartWith('OK:');
    const detail = (await server.admin.get('/devices/BACKLOG1/')).body as { clock_drifting: boolean; clock_drift_seconds: number | null };
    expect(detail).toMatchObject({ clock_drifting: false, clock_drift_seconds: null });
  });

  test('one corrupt record beside real-time ones says nothing of the clock', async () => {
    const t = await connected(terminal('MIXED1'));
    await drain(t);
    const res = await t.punch([
      { pin: '10000', at: new Date(now - 60_000) },
      { pin: '10000', localTime: '2099-05-05 05:05:05' },
    ]);
    expect(res.body).toBe('OK:2');
    const detail = (await server.admin.get('/devices/MIXED1/')).body as { clock_drifting: boolean; clock_drift_seconds: number };
    expect(detail.clock_drifting).toBe(false);
    expect(Math.abs(detail.clock_drift_seconds)).toBeLessThan(120);
  });
});

describe('terminals reach us by any name', () => {
  test('a Host of three characters or fewer, and none at all, reach the terminal endpoints', async () => {
    for (const host of ['Host: fpa\r\n', 'Host: abc:80\r\n']) {
      const res = await rawRequest(`GET /iclock/cdata?SN=FLEET1&options=all HTTP/1.1\r\n${host}Connection: close\r\n\r\n`);
      expect(res.status).toBe(200);
      expect(res.body).toStartWith('GET OPTION FROM: FLEET1');
    }
    const old = await rawRequest('GET /iclock/cdata?SN=FLEET1&options=all HTTP/1.0\r\n\r\n');
    expect(old.status).toBe(200);
    expect(old.body).toStartWith('GET OPTION FROM: FLEET1');
    const api = await rawRequest('GET /healthz HTTP/1.1\r\nHost: fpa\r\nConnection: close\r\n\r\n');
    expect(api.status).toBe(200);
    // The rebuilt request keeps the address it came from (the server knows only the original's).
    const shortHost = await rawRequest('GET /iclock/cdata?SN=SHORTHOST1&options=all HTTP/1.1\r\nHost: fpa\r\nConnection: close\r\n\r\n');
    expect(shortHost.status).toBe(200);
    expect((await server.admin.get('/devices/SHORTHOST1/')).body.ip_address).toBe('127.0.0.1');
  });

  test("a host's own app, given servePathsWhateverTheHost, is reached by a short Host too", async () => {
    const tmp = tempDir('fpa-host-');
    const fpa = await createFingerprintAttendance({ settings: testSettings(tmp.dir), env: {}, logger: silentLogger, startJobs: false });
    const app = new Elysia().use(fpa.plugin).get('/', () => 'host');
    servePathsWhateverTheHost(app);
    app.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      const port = app.server!.port!;
      const res = await rawRequest('GET /iclock/cdata?SN=HOSTED1&options=all HTTP/1.1\r\nHost: fpa\r\nConnection: close\r\n\r\n', port);
      expect(res.status).toBe(200);
      expect(res.body).toStartWith('GET OPTION FROM: HOSTED1');
      expect((await rawRequest('GET / HTTP/1.0\r\n\r\n', port)).body).toBe('host');
    } finally {
      await app.stop(true);
      await fpa.close();
      tmp.cleanup();
    }
  });

  test('only GET, HEAD and POST are terminal requests', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const res = await fetch(`${server.url}/iclock/cdata?SN=FLEET1&table=ATTLOG`, {
        method,
        body: method === 'OPTIONS' ? undefined : '1\t2026-03-30 09:00:00\t0\t1\t0\n',
      });
      expect({ method, status: res.status }).toEqual({ method, status: 405 });
      expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    }
  });
});

describe('areas as a resource', () => {
  test('created with a description, renamed, and deleted only when nothing is in it', async () => {
    const created = await server.admin.post('/areas/', { name: 'south', description: 'South gate' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'south', description: 'South gate', usage: { devices: 0, enrollees: 0 } });
    expect((await server.admin.post('/areas/', { name: 'south' })).status).toBe(409);
    const north = await server.admin.get('/areas/north/');
    expect(north.body.usage).toEqual({ devices: 0, enrollees: 1, users: 0, api_keys: 0, agents: 0 });
    expect((await server.admin.delete('/areas/north/')).status).toBe(409);
    const renamed = await server.admin.patch('/areas/south/', { name: 'south-gate' });
    expect(renamed.body.name).toBe('south-gate');
    expect((await server.admin.delete('/areas/south-gate/')).status).toBe(204);
    expect((await server.admin.get('/areas/south-gate/')).status).toBe(404);
  });
});
