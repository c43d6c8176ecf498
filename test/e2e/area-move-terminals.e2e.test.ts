/**
 * Terminals follow an area move on its effective date: a person moved from one site's area to
 * another's is on the new site's terminal at once, stays on the old site's terminal (user, card,
 * templates) for the rest of the day the move is made (a day judged under the old areas), and is
 * taken off it by job `follow-area-moves` once the move's effective date has begun. A move back
 * before then removes nothing; deactivation, withdrawal and deletion stay immediate; a full
 * resync of the old terminal before then keeps them. Through the real server, simulated
 * terminals and the test clock.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

const ZONE = 'Europe/Berlin';
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
let now = berlin('2026-03-01', '12:00');
let server: TestServer;
let siteA: SimulatedTerminal;
let siteB: SimulatedTerminal;

async function terminal(sn: string, area: string): Promise<SimulatedTerminal> {
  const t = new SimulatedTerminal({ url: server.url, sn, timeZone: ZONE, now: () => now });
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${sn}/approve/`, { areas: [area] })).status).toBe(200);
  await drain(t);
  return t;
}

/**
 * A person of `site-a` sent to site A's terminal, consenting with fingerprint 3; `cardOnly`: no
 * consent, no fingerprint, not sent yet (site A's terminal has not polled since).
 */
async function person(employee: string, options: { cardOnly?: boolean } = {}): Promise<{ id: string; device_pin: string }> {
  expect((await server.admin.post('/employees/', { id: employee, name: `Person ${employee}` })).status).toBe(201);
  const e = await server.admin.post('/enrollees/', { employee, areas: ['site-a'] });
  expect(e.status).toBe(201);
  if (options.cardOnly) return e.body;
  expect((await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  await server.fpa.service.storeTemplate(e.body.id, 3, new Uint8Array(Buffer.from(syntheticTemplate(183), 'base64')), { algorithmVersion: '10', by: 'test' });
  await drain(siteA);
  expect(siteA.users.has(e.body.device_pin)).toBe(true);
  expect(siteA.templates.has(`${e.body.device_pin}:3`)).toBe(true);
  return e.body;
}

async function moveTo(id: string, area: string): Promise<void> {
  expect((await server.admin.patch(`/enrollees/${id}/`, { areas: [area] })).status).toBe(200);
}

async function followMoves(): Promise<Record<string, unknown>> {
  const run = await server.admin.post('/jobs/follow-area-moves/run/');
  expect(run.status).toBe(200);
  expect(run.body.status).toBe('succeeded');
  return run.body.result;
}

async function punchAt(t: SimulatedTerminal, pin: string, date: string, time: string): Promise<void> {
  now = berlin(date, time);
  expect((await t.punch([{ pin, localTime: `${date} ${time}:00` }])).status).toBe(200);
}

const userDelete = (pin: string) => `DATA DELETE USERINFO PIN=${pin}`;
const userWrites = (sent: string[], pin: string) => sent.filter((c) => c.startsWith(`DATA UPDATE USERINFO PIN=${pin}\t`));

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  for (const name of ['site-a', 'site-b']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
  expect((await server.admin.post('/work-schedules/', { name: 'day', start: '08:00', end: '17:00', grace_in: '5m', grace_out: '5m' })).status).toBe(201);
  for (const area of ['site-a', 'site-b']) {
    expect((await server.admin.post('/shift-assignments/', { schedule: 'day', area, from: '2026-03-01' })).status).toBe(201);
  }
  siteA = await terminal('MOVE-A', 'site-a');
  siteB = await terminal('MOVE-B', 'site-b');
});
afterAll(async () => {
  await server.close();
});

describe('a person moved from site A to site B at 10:00', () => {
  const MONDAY = '2026-03-02';
  const TUESDAY = '2026-03-03';
  let p: { id: string; device_pin: string };

  test('is on B’s terminal at once and stays on A’s for the day: their 17:00 punch-out at A counts for them that day', async () => {
    now = berlin(MONDAY, '07:30');
    p = await person('MOVE-1');
    const expectedOnA = (await server.admin.get('/devices/MOVE-A/')).body.sync_check.users.expected;
    await punchAt(siteA, p.device_pin, MONDAY, '08:00');

    now = berlin(MONDAY, '10:00');
    await moveTo(p.id, 'site-b');
    // A's terminal is sent nothing: the person, their card and fingerprint stay there.
    expect(await drain(siteA)).toEqual([]);
    expect(siteA.users.has(p.device_pin)).toBe(true);
    expect(siteA.templates.has(`${p.device_pin}:3`)).toBe(true);
    // B's terminal gets them, with their fingerprint, at once.
    expect(userWrites(await drain(siteB), p.device_pin)).toHaveLength(1);
    expect(siteB.templates.has(`${p.device_pin}:3`)).toBe(true);
    // The fleet counts them on A still: no drift to repair.
    expect((await server.admin.get('/devices/MOVE-A/')).body.sync_check.users.expected).toBe(expectedOnA);
    expect((await server.admin.post('/jobs/reconcile-devices/run/')).status).toBe(200);
    expect(await drain(siteA)).toEqual([]);

    await punchAt(siteA, p.device_pin, MONDAY, '17:00');
    const panel = await server.admin.get<{ results: { local_time: string }[] }>(`/attendance-days/${p.id}/${MONDAY}/punches/`);
    expect(panel.body.results.map((r) => r.local_time.slice(0, 16))).toEqual([`${MONDAY} 17:00`, `${MONDAY} 08:00`]);
    const day = await server.admin.get(`/attendance-days/?employee=MOVE-1&from=${MONDAY}&to=${MONDAY}`);
    expect(day.body.results).toMatchObject([{ date: MONDAY, status: 'present', punch_count: 2 }]);
  });

  test('a template enrolled meanwhile reaches A’s terminal too', async () => {
    now = berlin(MONDAY, '18:00');
    await server.fpa.service.storeTemplate(p.id, 5, new Uint8Array(Buffer.from(syntheticTemplate(183), 'base64')), { algorithmVersion: '10', by: 'test' });
    await drain(siteA);
    await drain(siteB);
    expect(siteA.templates.has(`${p.device_pin}:5`)).toBe(true);
    expect(siteB.templates.has(`${p.device_pin}:5`)).toBe(true);
  });

  test('before midnight the job takes nobody off; once Tuesday has begun A’s terminal gets the delete, once', async () => {
    now = berlin(MONDAY, '23:59');
    expect(await followMoves()).toMatchObject({ people: 0, queued: 0 });
    expect(await drain(siteA)).toEqual([]);

    // Two runs at once (two instances, each past its own lease): the move is followed once.
    now = berlin(TUESDAY, '00:03');
    const [one, other] = await Promise.all([followMoves(), server.fpa.service.fleet.areaMoves.followDue()]);
    expect([one.people, other.people].sort()).toEqual([0, 1]);
    expect(Number(one.queued) + other.queued).toBe(1);
    expect(await drain(siteA)).toEqual([userDelete(p.device_pin)]);
    expect(siteA.users.has(p.device_pin)).toBe(false);
    expect(siteA.templates.has(`${p.device_pin}:3`)).toBe(false);
    // B keeps them; the terminal's log says why A lost them.
    expect(await drain(siteB)).toEqual([]);
    expect(siteB.users.has(p.device_pin)).toBe(true);
    const log = (await server.admin.get('/devices/MOVE-A/')).body.recent_events as { kind: string; message: string; details: Record<string, unknown> }[];
    expect(log.find((e) => e.kind === 'area_move')).toMatchObject({ details: { pin: p.device_pin, enrollee: p.id, effective_from: TUESDAY } });

    // Run again (another instance, a schedule firing twice): nothing more.
    now = berlin(TUESDAY, '00:08');
    expect(await followMoves()).toMatchObject({ people: 0, queued: 0 });
    expect(await drain(siteA)).toEqual([]);
  });
});

describe('other moves', () => {
  test('a move back before the effective date removes nothing from A; B, which they left, loses them when the job next runs (here two days late)', async () => {
    const WEDNESDAY = '2026-03-04';
    now = berlin(WEDNESDAY, '09:00');
    const p = await person('MOVE-2');
    now = berlin(WEDNESDAY, '10:00');
    await moveTo(p.id, 'site-b');
    expect(userWrites(await drain(siteB), p.device_pin)).toHaveLength(1);
    now = berlin(WEDNESDAY, '14:00');
    await moveTo(p.id, 'site-a');
    expect(await drain(siteA)).toEqual([]);
    expect(await drain(siteB)).toEqual([]);

    // The server was down over the night: the next run catches up.
    now = berlin('2026-03-06', '09:00');
    expect(await followMoves()).toMatchObject({ people: 1, queued: 1 });
    expect(await drain(siteA)).toEqual([]);
    expect(siteA.users.has(p.device_pin)).toBe(true);
    expect(await drain(siteB)).toEqual([userDelete(p.device_pin)]);
  });

  test('deactivation still takes them off every terminal at once, the one they are leaving too', async () => {
    now = berlin('2026-03-09', '09:00');
    const p = await person('MOVE-3');
    now = berlin('2026-03-09', '10:00');
    await moveTo(p.id, 'site-b');
    await drain(siteB);
    now = berlin('2026-03-09', '11:00');
    expect((await server.admin.patch(`/enrollees/${p.id}/`, { active: false })).status).toBe(200);
    expect(await drain(siteA)).toEqual([userDelete(p.device_pin)]);
    expect(await drain(siteB)).toEqual([userDelete(p.device_pin)]);
  });

  test('a full resync of A before the effective date keeps them there', async () => {
    now = berlin('2026-03-10', '09:00');
    const p = await person('MOVE-4');
    now = berlin('2026-03-10', '10:00');
    await moveTo(p.id, 'site-b');
    await drain(siteB);
    expect((await server.admin.post('/devices/MOVE-A/resync/', { full: true })).status).toBe(200);
    const sent = await drain(siteA);
    expect(sent).not.toContain(userDelete(p.device_pin));
    expect(userWrites(sent, p.device_pin)).toHaveLength(1);
    expect(siteA.users.has(p.device_pin)).toBe(true);
    expect(siteA.templates.has(`${p.device_pin}:3`)).toBe(true);
  });

  test('withdrawal deletes the fingerprint from A at once; their user stays there until the effective date', async () => {
    now = berlin('2026-03-11', '09:00');
    const p = await person('MOVE-5');
    now = berlin('2026-03-11', '10:00');
    await moveTo(p.id, 'site-b');
    await drain(siteB);
    expect((await server.admin.delete(`/enrollees/${p.id}/consent/`)).status).toBe(200);
    expect(await drain(siteA)).toEqual([`DATA DELETE FINGERTMP PIN=${p.device_pin}\tFID=3`]);
    expect(siteA.templates.has(`${p.device_pin}:3`)).toBe(false);
    expect(siteA.users.has(p.device_pin)).toBe(true);
    expect((await server.admin.get(`/enrollees/${p.id}/deletion-proof/`)).body.terminals.map((t: { serial_number: string }) => t.serial_number).sort()).toEqual(
      ['MOVE-A', 'MOVE-B'],
    );
  });

  test('deleted before the effective date: A’s terminal, which had not taken them yet (no fingerprint either), gets the delete and never the person', async () => {
    now = berlin('2026-03-12', '09:00');
    const p = await person('MOVE-6', { cardOnly: true });
    now = berlin('2026-03-12', '10:00');
    await moveTo(p.id, 'site-b');
    await drain(siteB);
    expect((await server.admin.delete(`/enrollees/${p.id}/`)).status).toBe(204);
    const sent = await drain(siteA);
    expect(sent).toContain(userDelete(p.device_pin));
    expect(userWrites(sent, p.device_pin)).toEqual([]);
    expect(siteA.users.has(p.device_pin)).toBe(false);
    expect(await drain(siteB)).toEqual([userDelete(p.device_pin)]);
  });
});
