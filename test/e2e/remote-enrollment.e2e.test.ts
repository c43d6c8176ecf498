/**
 * Remote enrollment end to end: the administrator starts a session on a terminal, the
 * simulated terminal runs the ENROLL_FP commands one at a time and uploads the templates; the
 * session completes, fails on a failed enroll command, or expires.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { deviceCommands, devices, enrollmentSessions } from '../../src/app/schema';
import type { Clock } from '../../src/platform/runtime';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { deviceLog } from '../support/terminals';

let server: TestServer;
let offset = 0;
const clock: Clock = { now: () => Date.now() + offset };
const closed: { status: string; sessionId: string }[] = [];
let enrollReturn = 0;
let terminal: SimulatedTerminal;
let other: SimulatedTerminal;
let ada: { id: string; device_pin: string };

async function person(id: string, name: string, options: { consent?: boolean; areas?: string[] } = {}) {
  await server.admin.post('/employees/', { id, name });
  const e = await server.admin.post('/enrollees/', { employee: id, ...(options.areas ? { areas: options.areas } : {}) });
  if (options.consent !== false) await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' });
  return e.body as { id: string; device_pin: string };
}

async function online(sn: string, options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}) {
  const t = new SimulatedTerminal({ url: server.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  await server.admin.post(`/devices/${sn}/approve/`);
  for (let i = 0; i < 5 && (await t.poll()).length > 0; i++);
  return t;
}

async function session(id: string) {
  return (await server.fpa.db.orm
    .select()
    .from(enrollmentSessions)
    .where(eq(enrollmentSessions.id, id))
    .limit(1)
    .then((r) => r[0]))!;
}

beforeAll(async () => {
  server = await startTestServer({}, { clock });
  server.fpa.events.on('enrollment_session_closed', (e) => void closed.push({ status: e.status, sessionId: e.session }));
  ada = await person('E-ADA', 'Ada Obi');
  terminal = await online('REMOTE1', { enrollReturn: () => enrollReturn });
  other = await online('REMOTE2');
});
afterAll(async () => {
  await server.close();
});

describe('a remote session that completes', () => {
  test('add_user, then one ENROLL_FP per finger, one at a time; completes when every finger arrived', async () => {
    const res = await server.admin.post(`/enrollees/${ada.id}/remote-enrollment/`, { device: 'REMOTE1', fingers: [7, 6] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'remote', status: 'open', device: 'REMOTE1', fingers_requested: [6, 7], fingers_captured: [] });
    expect(res.body.enrollee).toMatchObject({ id: ada.id, display_name: 'Ada Obi', device_pin: ada.device_pin });
    const id = res.body.id as string;

    const first = await terminal.poll();
    expect(first.map((c) => c.text)).toEqual([
      expect.stringMatching(new RegExp(`^DATA UPDATE USERINFO PIN=${ada.device_pin}\\t`)),
      `ENROLL_FP PIN=${ada.device_pin}\tFID=6\tRETRY=3\tOVERWRITE=1`,
    ]);
    expect((await session(id)).fingersCaptured).toEqual([6]);
    const second = await terminal.poll();
    expect(second.map((c) => c.text)).toEqual([`ENROLL_FP PIN=${ada.device_pin}\tFID=7\tRETRY=3\tOVERWRITE=1`]);
    const done = await session(id);
    expect(done.status).toBe('completed');
    expect(done.fingersCaptured).toEqual([6, 7]);
    expect(closed).toContainEqual({ status: 'completed', sessionId: id });

    const stored = (await server.admin.get(`/enrollees/${ada.id}/templates/`)).body.results;
    expect(stored.map((t: { finger_index: number; source: string }) => [t.finger_index, t.source])).toEqual([
      [6, 'remote'],
      [7, 'remote'],
    ]);
    // The other in-scope terminal receives both templates.
    const toOther = await other.poll();
    expect(toOther.filter((c) => c.text.startsWith('DATA UPDATE FINGERTMP')).length).toBe(2);
    expect(other.templates.get(`${ada.device_pin}:7`)!.template).toBe(terminal.templates.get(`${ada.device_pin}:7`)!.template);
  });
});

describe('a remote session that fails', () => {
  test('ENROLL_FP answered Return=6 fails the session with the meaning of the code', async () => {
    const bo = await person('E-BO', 'Bo Li');
    enrollReturn = 6;
    try {
      const res = await server.admin.post(`/enrollees/${bo.id}/remote-enrollment/`, { device: 'REMOTE1', fingers: [1, 2] });
      expect(res.status).toBe(201);
      const polled = await terminal.poll();
      expect(polled.find((c) => c.text.startsWith('ENROLL_FP'))!.returnCode).toBe(6);
      const failed = await session(res.body.id);
      expect(failed.status).toBe('failed');
      expect(failed.reason).toContain('Return=6');
      expect(failed.reason).toContain('cancelled on the terminal');
      expect(closed).toContainEqual({ status: 'failed', sessionId: res.body.id });
      expect(await terminal.poll()).toHaveLength(0);
    } finally {
      enrollReturn = 0;
    }
  });
});

describe('refusals', () => {
  test('each with a clear code', async () => {
    const noConsent = await person('E-NC', 'No Consent', { consent: false });
    const elsewhere = await person('E-EW', 'Else Where', { areas: ['north'] });
    const pending = new SimulatedTerminal({ url: server.url, sn: 'PENDING1' });
    await pending.handshake();
    const post = (enrollee: string, body: unknown) => server.admin.post(`/enrollees/${enrollee}/remote-enrollment/`, body);
    const cases: [unknown, string, number, string][] = [
      [{ device: 'PENDING1', fingers: [1] }, ada.id, 409, 'device_not_approved'],
      [{ device: 'NOSUCH', fingers: [1] }, ada.id, 404, 'not_found'],
      [{ device: 'REMOTE1', fingers: [1] }, noConsent.id, 422, 'consent_required'],
      [{ device: 'REMOTE1', fingers: [1] }, elsewhere.id, 422, 'not_in_scope'],
      [{ device: 'REMOTE1', fingers: [1] }, crypto.randomUUID(), 404, 'not_found'],
      [{ device: 'REMOTE1', fingers: [] }, ada.id, 400, 'validation_error'],
      [{ device: 'REMOTE1' }, ada.id, 400, 'validation_error'],
    ];
    for (const [body, enrollee, status, code] of cases) {
      const res = await post(enrollee, body);
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status, code });
    }
    const anonymous = await fetch(`${server.url}/api/fingerprint/v1/enrollees/${ada.id}/remote-enrollment/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"device":"REMOTE1","fingers":[1]}',
    });
    expect(anonymous.status).toBe(401);
  });

  test('a second session on a busy terminal is refused', async () => {
    const cy = await person('E-CY', 'Cy Doe');
    expect((await server.fpa.service.startRemoteEnrollment(cy.device_pin, { device: 'REMOTE2', fingers: [3], by: 'ops' })).status).toBe('open');
    const busy = await server.admin.post(`/enrollees/${ada.id}/remote-enrollment/`, { device: 'REMOTE2', fingers: [1] });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('device_busy');
  });
});

describe('expiry and BIODATA terminals', () => {
  test('a session past ENROLLMENT_SESSION_TTL expires with its unsent enroll command', async () => {
    const open = await server.fpa.db.orm
      .select()
      .from(enrollmentSessions)
      .where(
        eq(
          enrollmentSessions.deviceId,
          (await server.fpa.db.orm
            .select()
            .from(devices)
            .where(eq(devices.serialNumber, 'REMOTE2'))
            .limit(1)
            .then((r) => r[0]))!.id,
        ),
      );
    const id = open.find((s) => s.status === 'open')!.id;
    offset += 11 * 60_000;
    try {
      const run = await server.admin.post('/jobs/expire-sessions/run/');
      expect(run.body.status).toBe('succeeded');
      expect((await session(id)).status).toBe('expired');
      const commands = await server.fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.sessionId, id));
      expect(commands.map((c) => [c.kind, c.status])).toEqual([['ENROLL_FP', 'expired']]);
    } finally {
      offset = 0;
    }
  });

  test('a BIODATA terminal gets ENROLL_BIO and its BIODATA upload completes the session', async () => {
    const bio = await online('REMOTEBIO', { biodata: true });
    const dee = await person('E-DEE', 'Dee Ray');
    const started = await server.fpa.service.startRemoteEnrollment(dee.id, { device: 'REMOTEBIO', fingers: [4], by: 'ops' });
    const polled = await bio.poll();
    expect(polled.map((c) => c.text)).toContain(`ENROLL_BIO TYPE=1\tPIN=${dee.device_pin}\tNO=4\tCardNo=\tRETRY=3\tOVERWRITE=1`);
    expect((await session(started.id)).status).toBe('completed');
  });
});

/** A terminal that registered and was approved, and has not polled since: its user query is still to answer. */
async function approvedJustNow(sn: string, options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}) {
  const t = new SimulatedTerminal({ url: server.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  await server.admin.post(`/devices/${sn}/approve/`);
  return t;
}

async function drain(t: SimulatedTerminal) {
  for (let i = 0; i < 8 && (await t.poll()).length > 0; i++);
}

describe('a terminal approved a moment ago (its users not reported yet)', () => {
  test('the fingers of a remote session are the enrollee’s: stored, fanned out, and the session completes', async () => {
    const fresh = await approvedJustNow('REMOTEFRESH', { biodata: true });
    const eve = await person('E-EVE', 'Eve Tan');
    const res = await server.admin.post(`/enrollees/${eve.id}/remote-enrollment/`, { device: 'REMOTEFRESH', fingers: [1, 2] });
    expect(res.status).toBe(201);
    // Its first poll carries the user query alone: the user record and the enroll command wait
    // for its answer (the PIN might be its own user's), then go out together.
    const kinds = (commands: { text: string }[]) => commands.map((c) => c.text.split(' ')[0] + (c.text.includes('QUERY') ? ' QUERY' : ''));
    expect(kinds(await fresh.poll())).toEqual(['DATA QUERY']);
    const next = await fresh.poll();
    expect(kinds(next).slice(0, 2)).toEqual(['DATA', 'ENROLL_BIO']);
    expect(next[0]!.text).toStartWith(`DATA UPDATE USERINFO PIN=${eve.device_pin}\t`);
    await drain(fresh);
    const done = await session(res.body.id);
    expect({ status: done.status, captured: done.fingersCaptured, reason: done.reason }).toEqual({ status: 'completed', captured: [1, 2], reason: null });
    const stored = (await server.admin.get(`/enrollees/${eve.id}/templates/`)).body.results;
    expect(stored.map((t: { finger_index: number; source: string }) => [t.finger_index, t.source])).toEqual([
      [1, 'remote'],
      [2, 'remote'],
    ]);
    expect(await deviceLog(server.fpa, 'REMOTEFRESH', 'terminal_user_template')).toEqual([]);
    const users = (await server.admin.get('/devices/REMOTEFRESH/users/')).body.results as {
      pin: string;
      enrollee: string | null;
      biometrics: Record<string, number>;
    }[];
    expect(users.find((u) => u.pin === eve.device_pin)).toMatchObject({ enrollee: eve.id, biometrics: { fingerprint: 2 } });
    await drain(other);
    expect(other.templates.get(`${eve.device_pin}:1`)?.template).toBe(fresh.templates.get(`${eve.device_pin}:1`)!.template);
  });

  test('a PIN the service did not hand out: a finger of the terminal’s own user under it, in the window, is never taken as the enrollee’s', async () => {
    // Ham kept PIN 77 from another terminal when adopted there (not handed out by the service);
    // this terminal has its own user 77, with finger 6 enrolled.
    const hal = { body: await person('E-HAM', 'Ham Moss') };
    await server.fpa.db.client.execute({ sql: "update fpa_enrollees set device_pin = '77', pin_allocated = 0 where id = ?", args: [hal.body.id] });
    const theirs = await approvedJustNow('REMOTEOWN', { biodata: true, existingUsers: [{ pin: '77', fingers: [6] }] });
    const res = await server.admin.post(`/enrollees/${hal.body.id}/remote-enrollment/`, { device: 'REMOTEOWN', fingers: [6] });
    expect(res.status).toBe(201);
    await drain(theirs);
    expect((await server.admin.get(`/enrollees/${hal.body.id}/templates/`)).body.results).toEqual([]);
    expect((await session(res.body.id)).status).not.toBe('completed');
  });

  test('a template the terminal sends unasked before answering stays its own user’s', async () => {
    const early = await approvedJustNow('REMOTEEARLY');
    const fay = await person('E-FAY', 'Fay Orr');
    // Under an enrollee's PIN, with no session asking for it: its backlog, perhaps a user it held before.
    await early.enrollFinger(fay.device_pin, 3);
    await drain(early);
    expect((await server.admin.get(`/enrollees/${fay.id}/templates/`)).body.results).toEqual([]);
    expect((await deviceLog(server.fpa, 'REMOTEEARLY', 'terminal_user_template')).length).toBe(1);
  });
});

describe('a remote session whose finger does not come back as the enrollee’s', () => {
  test('a terminal user held under the PIN keeps the finger; the session fails at once and frees the terminal', async () => {
    const gus = await person('E-GUS', 'Gus Hay');
    // The terminal held that PIN before the service knew it: a conflict (its inventory says so).
    const held = await online('REMOTEHELD', { biodata: true, existingUsers: [{ pin: gus.device_pin, fingers: [6] }] });
    const res = await server.admin.post(`/enrollees/${gus.id}/remote-enrollment/`, { device: 'REMOTEHELD', fingers: [5] });
    expect(res.status).toBe(201);
    await drain(held);
    const failed = await session(res.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.reason).toContain('is its own user');
    expect((await server.admin.get(`/enrollees/${gus.id}/templates/`)).body.results).toEqual([]);
    const next = await server.admin.post(`/enrollees/${ada.id}/remote-enrollment/`, { device: 'REMOTEHELD', fingers: [1] });
    expect(next.status).toBe(201);
    await drain(held);
    expect((await session(next.body.id)).status).toBe('completed');
  });

  test('an enrolled finger whose template never arrives: the session says so and does not hold the terminal', async () => {
    let mute = true;
    const quiet = await online('REMOTEMUTE', { respond: (c) => (mute && c.text.startsWith('ENROLL') ? 0 : undefined) });
    const hal = await person('E-HAL', 'Hal Ng');
    const res = await server.admin.post(`/enrollees/${hal.id}/remote-enrollment/`, { device: 'REMOTEMUTE', fingers: [2, 3] });
    await drain(quiet);
    const waiting = await session(res.body.id);
    expect(waiting.status).toBe('open');
    expect(waiting.reason).toBe('finger 2, finger 3: the terminal answered the enroll command as done but the template has not arrived');
    mute = false;
    const next = await server.admin.post(`/enrollees/${ada.id}/remote-enrollment/`, { device: 'REMOTEMUTE', fingers: [4] });
    expect(next.status).toBe(201);
    const superseded = await session(res.body.id);
    expect(superseded.status).toBe('failed');
    expect(superseded.reason).toBe(
      'finger 2, finger 3: the terminal answered the enroll command as done but the template never arrived; another remote enrollment was started on the terminal',
    );
    await drain(quiet);
    expect((await session(next.body.id)).status).toBe('completed');

    // Left alone, it expires saying what it was waiting for.
    mute = true;
    const last = await server.admin.post(`/enrollees/${hal.id}/remote-enrollment/`, { device: 'REMOTEMUTE', fingers: [8] });
    await drain(quiet);
    offset += 11 * 60_000;
    try {
      expect((await server.admin.post('/jobs/expire-sessions/run/')).body.status).toBe('succeeded');
    } finally {
      offset = 0;
    }
    expect(await session(last.body.id)).toMatchObject({
      status: 'expired',
      reason: 'session lifetime ended; finger 8: the terminal answered the enroll command as done but the template has not arrived',
    });
  });
});
