/**
 * Scope, deletes and enrollees after the reviewers' findings: terminals that leave an
 * enrollee's scope (or an enrollee that leaves a terminal's; moved to other areas: on the
 * move's date) lose the user, deactivation and
 * reactivation follow, deletes reach terminals whose copy failed, withdrawal closes sessions
 * the one proper way, linked punches lose `unknown_pin`, the spec's startEnrollmentSession,
 * EMPLOYEE_LOOKUP_FIELD and inactive employees. In process, on a real libSQL file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, asc, eq } from 'drizzle-orm';
import { createFingerprintAttendance, type FingerprintAttendance, FpaError } from '../../../src/app/create';
import { deviceCommands, employees, enrollmentSessions, punches, templateSync } from '../../../src/app/schema';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import type { EmployeeDirectory } from '../../../src/modules/employees/directory';
import { ConfigurationError } from '../../../src/platform/config/check';
import { silentLogger } from '../../../src/platform/log';
import type { CommandResult } from '../../../src/protocol/adms';
import { tempDir, testSettings } from '../../support/harness';
import { answerUserQuery } from '../../support/user-query';

const tmp = tempDir();
const by = 'admin@example.com';
const DAY = 24 * 60 * 60_000;
/** The real time, moved on by whole days where a test needs an area move's date to begin. */
let offset = 0;
const clock = { now: () => Date.now() + offset };
const closedSessions: { sessionId: string; status: string }[] = [];
let fpa: FingerprintAttendance;

function template(size: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

async function device(serial: string, areas: string[]): Promise<DeviceRow> {
  await fpa.service.devices.registration.touch(serial);
  await fpa.service.devices.administration.updateDevice(serial, { algorithm_version: '10' }, by);
  await fpa.service.approveDevice(serial, { by, areas });
  const d = await fpa.service.devices.get(serial);
  await answerUserQuery(fpa, d);
  return d;
}

async function employee(id: string, active = true) {
  await fpa.db.write(({ tx }) => tx.insert(employees).values({ id, name: `Person ${id}`, active, createdAt: Date.now() }));
}

async function person(id: string, areas: string[]) {
  await employee(id);
  const e = await fpa.service.createEnrollee(id, { areas, by });
  await fpa.service.giveConsent(e.id, { version: 'v1', method: 'paper', by });
  return e;
}

async function commandsOf(d: DeviceRow, pin: string) {
  const rows = await fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.deviceId, d.id)).orderBy(asc(deviceCommands.id));
  return rows.filter((c) => (c.payload as { pin?: string }).pin === pin);
}

async function syncOf(templateId: string, d: DeviceRow) {
  const [row] = await fpa.db.orm
    .select()
    .from(templateSync)
    .where(and(eq(templateSync.templateId, templateId), eq(templateSync.deviceId, d.id)));
  return row ?? null;
}

/** The terminal runs everything it is sent and answers each command with `code`. */
async function deliver(d: DeviceRow, code = 0): Promise<string[]> {
  fpa.service.commands.polls.markQueued(d.id);
  const body = (await fpa.service.terminals.renderer.takeBatch(d)) ?? '';
  const lines = body.split('\n').filter((l) => l.startsWith('C:'));
  const results: CommandResult[] = lines.map((l) => ({ id: l.split(':')[1]!, returnCode: code, cmd: '', fields: {} }));
  if (results.length > 0) await fpa.service.commands.applyResults(d.id, results);
  return lines.map((l) => l.split(':').slice(2).join(':'));
}

const pendingKinds = async (d: DeviceRow, pin: string) => (await commandsOf(d, pin)).filter((c) => c.status === 'pending').map((c) => c.kind);

beforeAll(async () => {
  fpa = await createFingerprintAttendance({ settings: testSettings(tmp.dir), env: {}, logger: silentLogger, startJobs: false, clock });
  fpa.events.on('enrollment_session_closed', (e) => void closedSessions.push({ sessionId: e.session, status: e.status }));
});
afterAll(async () => {
  await fpa.close();
  tmp.cleanup();
});

describe('scope changes', () => {
  test("terminals that come into an enrollee's scope get the user and templates at once; those left get delete_user and lose the sync rows on the move's date", async () => {
    const north = await device('SCOPE-N', ['north']);
    const south = await device('SCOPE-S', ['south']);
    const e = await person('S-MOVE', ['north']);
    const stored = await fpa.service.storeTemplate(e.id, 6, template(200), { algorithmVersion: '10', by });
    await deliver(north);
    expect((await syncOf(stored.id, north))!.status).toBe('present');
    // A newer version is still unsent on the terminal that is about to leave scope.
    await fpa.service.storeTemplate(e.id, 6, template(200, 2), { algorithmVersion: '10', by });

    await fpa.service.enrollees.changes.update(e.id, { areas: ['south'] }, by);
    expect(await pendingKinds(south, e.devicePin)).toEqual(['add_user', 'update_template']);
    expect((await syncOf(stored.id, south))!.status).toBe('pending');
    // The rest of the day is judged under north: its terminal keeps them (and their newer version).
    expect(await pendingKinds(north, e.devicePin)).toEqual(['update_template']);
    expect(await syncOf(stored.id, north)).not.toBeNull();
    // The move's date has begun: north's terminal loses them.
    offset += DAY;
    expect((await fpa.jobs.run('follow-area-moves')).result).toMatchObject({ people: 1, queued: 1 });
    expect(await pendingKinds(north, e.devicePin)).toEqual(['delete_user']);
    expect((await commandsOf(north, e.devicePin)).some((c) => c.kind === 'update_template' && c.status === 'superseded')).toBe(true);
    expect(await syncOf(stored.id, north)).toBeNull();
    // Back in scope before the terminal took the delete: the delete still goes first, so the
    // terminal drops whatever it held before it gets the current record and templates: they wait
    // for its answer (a delete refused and retried later would remove them).
    await fpa.service.enrollees.changes.update(e.id, { areas: ['north'] }, by);
    expect(await pendingKinds(north, e.devicePin)).toEqual(['delete_user', 'add_user', 'update_template']);
    expect(await deliver(north)).toEqual([`DATA DELETE USERINFO PIN=${e.devicePin}`]);
    const sent = await deliver(north);
    expect(sent.map((t) => t.split('\t')[0])).toEqual([`DATA UPDATE USERINFO PIN=${e.devicePin}`, `DATA UPDATE FINGERTMP PIN=${e.devicePin}`]);
    expect(await pendingKinds(south, e.devicePin)).toEqual(['add_user', 'update_template']);
    offset += DAY;
    expect((await fpa.jobs.run('follow-area-moves')).result).toMatchObject({ people: 1, queued: 1 });
    expect(await pendingKinds(south, e.devicePin)).toEqual(['delete_user']);
  });

  test("enrollees that leave a terminal's scope are deleted from it", async () => {
    const both = await device('SCOPE-BOTH', ['east', 'west']);
    const stays = await person('S-EAST', ['east']);
    const leaves = await person('S-WEST', ['west']);
    const stored = await fpa.service.storeTemplate(leaves.id, 2, template(200), { algorithmVersion: '10', by });
    await deliver(both);

    await fpa.service.devices.administration.updateDevice(both.serialNumber, { areas: ['east'] }, by);
    expect(await pendingKinds(both, leaves.devicePin)).toEqual(['delete_user']);
    expect(await pendingKinds(both, stays.devicePin)).toEqual([]);
    expect(await syncOf(stored.id, both)).toBeNull();
  });

  test('deactivation deletes the user from every in-scope terminal; reactivation backfills user and templates', async () => {
    const d = await device('SCOPE-ACTIVE', ['active-area']);
    const e = await person('S-ACTIVE', ['active-area']);
    const stored = await fpa.service.storeTemplate(e.id, 1, template(200), { algorithmVersion: '10', by });
    await deliver(d);

    await fpa.service.enrollees.changes.update(e.id, { active: false }, by);
    expect(await pendingKinds(d, e.devicePin)).toEqual(['delete_user']);
    expect(await syncOf(stored.id, d)).toBeNull();
    await deliver(d);

    await fpa.service.enrollees.changes.update(e.id, { active: true }, by);
    expect(await pendingKinds(d, e.devicePin)).toEqual(['add_user', 'update_template']);
    expect((await syncOf(stored.id, d))!.status).toBe('pending');
  });
});

describe('deletes reach every terminal that may hold the data', () => {
  test('a terminal whose copy failed still gets delete_template on withdrawal', async () => {
    const d = await device('DEL-FAILED', ['failed-area']);
    const e = await person('S-FAILED', ['failed-area']);
    const stored = await fpa.service.storeTemplate(e.id, 4, template(200), { algorithmVersion: '10', by });
    await deliver(d, -1);
    expect((await syncOf(stored.id, d))!.status).toBe('failed');

    await fpa.service.withdrawConsent(e.id, { by });
    const deletes = (await commandsOf(d, e.devicePin)).filter((c) => c.kind === 'delete_template' && c.status === 'pending');
    expect(deletes.map((c) => c.payload)).toEqual([{ pin: e.devicePin, fingerIndex: 4, type: 'fingerprint' }]);
  });

  test('a late answer taking an earlier version: held there, though a later version refused there is the status; withdrawal deletes it', async () => {
    const d = await device('DEL-LATE', ['late-area']);
    const e = await person('S-LATE', ['late-area']);
    const v1 = await fpa.service.storeTemplate(e.id, 5, template(200), { algorithmVersion: '10', by });
    // The user and version 1 go out, unanswered; version 2 is queued behind them.
    fpa.service.commands.polls.markQueued(d.id);
    const sent = ((await fpa.service.terminals.renderer.takeBatch(d)) ?? '').split('\n').filter((l) => l.startsWith('C:'));
    expect(sent.filter((l) => l.includes('FINGERTMP'))).toHaveLength(1);
    await fpa.service.storeTemplate(e.id, 5, template(200, 2), { algorithmVersion: '10', by });
    // Then the terminal answers: it took version 1.
    await fpa.service.commands.applyResults(
      d.id,
      sent.map((l) => ({ id: l.split(':')[1]!, returnCode: 0, cmd: 'DATA', fields: {} })),
    );
    expect(await syncOf(v1.id, d)).toMatchObject({ status: 'pending', templateVersion: 2, heldVersion: 1 });
    expect(await deliver(d, -30)).toEqual([expect.stringContaining(`DATA UPDATE FINGERTMP PIN=${e.devicePin}\tFID=5\t`)]);
    expect(await syncOf(v1.id, d)).toMatchObject({ status: 'incompatible', templateVersion: 2, heldVersion: 1 });

    await fpa.service.withdrawConsent(e.id, { by });
    const deletes = (await commandsOf(d, e.devicePin)).filter((c) => c.kind === 'delete_template' && c.status === 'pending');
    expect(deletes.map((c) => c.payload)).toEqual([{ pin: e.devicePin, fingerIndex: 5, type: 'fingerprint' }]);
  });

  test('a terminal whose only copy failed, then judged unable to take the next version, stays a holder: withdrawal deletes there', async () => {
    const d = await device('DEL-FAILED-ALG', ['failed-alg-area']);
    const e = await person('S-FAILED-ALG', ['failed-alg-area']);
    const stored = await fpa.service.storeTemplate(e.id, 7, template(200), { algorithmVersion: '10', by });
    await deliver(d, -9);
    // A firmware update: another algorithm; the next version is not sent there.
    await fpa.service.devices.administration.updateDevice(d.serialNumber, { algorithm_version: '12' }, by);
    await fpa.service.storeTemplate(e.id, 7, template(200, 2), { algorithmVersion: '10', by });
    expect(await syncOf(stored.id, d)).toMatchObject({ status: 'failed', templateVersion: 1, heldVersion: null });

    await fpa.service.withdrawConsent(e.id, { by });
    const deletes = (await commandsOf(d, e.devicePin)).filter((c) => c.kind === 'delete_template' && c.status === 'pending');
    expect(deletes.map((c) => c.payload)).toEqual([{ pin: e.devicePin, fingerIndex: 7, type: 'fingerprint' }]);
  });

  test('withdrawal and deletion close open sessions through closeSession: enroll commands expire, the event fires', async () => {
    const d = await device('DEL-SESSION', ['session-area']);
    const e = await person('S-SESSION', ['session-area']);
    await deliver(d);
    const session = await fpa.service.startEnrollmentSession(e.id, { device: d.serialNumber, fingers: [6], by });
    const enroll = (await commandsOf(d, e.devicePin)).find((c) => c.kind === 'ENROLL_FP')!;
    expect(enroll.status).toBe('pending');

    await fpa.service.withdrawConsent(e.id, { by });
    const row = await fpa.db.orm
      .select()
      .from(enrollmentSessions)
      .where(eq(enrollmentSessions.id, session.id))
      .limit(1)
      .then((r) => r[0]);
    expect(row!.status).toBe('cancelled');
    expect(closedSessions).toContainEqual({ sessionId: session.id, status: 'cancelled' });
    const [after] = await fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.id, enroll.id));
    expect(after!.status).toBe('expired');

    const other = await person('S-SESSION-2', ['session-area']);
    await deliver(d);
    const second = await fpa.service.startEnrollmentSession(other.id, { device: d.serialNumber, fingers: [7], by });
    await fpa.service.deleteEnrollee(other.id, { by });
    expect(closedSessions).toContainEqual({ sessionId: second.id, status: 'cancelled' });
    expect((await commandsOf(d, other.devicePin)).filter((c) => c.kind === 'ENROLL_FP').map((c) => c.status)).toEqual(['expired']);
  });
});

describe('enrollees', () => {
  test("a terminal's own user's punches, adopted, become the enrollee's and lose the unknown_pin flag; a new enrollee's do not", async () => {
    const d = await device('PUNCH-LINK', ['punch-area']);
    const own = '31';
    await fpa.service.punches.ingest(d, [
      {
        pin: own,
        localTime: '2024-03-01 08:00:00',
        punchedAt: Date.UTC(2024, 2, 1, 8),
        utcOffsetMinutes: 0,
        state: 0,
        verifyType: 1,
        workCode: '0',
        extra: [],
        raw: `${own}\t2024-03-01 08:00:00`,
        flags: ['clock_skew'],
      },
    ]);
    const [before] = await fpa.db.orm.select().from(punches).where(eq(punches.devicePin, own));
    expect(before!.flags).toEqual(['clock_skew', 'unknown_pin']);

    const unrelated = await person('S-PUNCH-1', ['punch-area']);
    expect(unrelated.devicePin).not.toBe(own);
    expect((await fpa.db.orm.select().from(punches).where(eq(punches.devicePin, own)))[0]!.enrolleeId).toBeNull();

    await employee('S-PUNCH-2', true);
    const adopted = await fpa.service.fleet.adopt(d.serialNumber, own, { employee: 'S-PUNCH-2' }, by);
    expect(adopted.devicePin).toBe(own);
    const [after] = await fpa.db.orm.select().from(punches).where(eq(punches.devicePin, own));
    expect(after!.enrolleeId).toBe(adopted.id);
    expect(after!.flags).toEqual(['clock_skew']);
  });

  test('an inactive employee is not enrolled (422 employee_inactive)', async () => {
    await employee('S-LEFT', false);
    const error = await fpa.service.createEnrollee('S-LEFT', { by }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FpaError);
    expect((error as FpaError).code).toBe('employee_inactive');
    expect((error as FpaError).status).toBe(422);
  });

  test('startEnrollmentSession starts a remote or an agent session, and wants exactly one of device and agent', async () => {
    const d = await device('START-1', ['start-area']);
    const e = await person('S-START', ['start-area']);
    const remote = await fpa.service.startEnrollmentSession(e.id, { device: d.serialNumber, fingers: [1], by });
    expect(remote).toMatchObject({ kind: 'remote', device: d.serialNumber, fingers_requested: [1] });

    const { agent } = await fpa.service.createAgent('Front desk', { algorithmVersion: '10', by });
    const viaAgent = await fpa.service.startEnrollmentSession(e.devicePin, { agent: agent.id, fingers: [2, 3], by });
    expect(viaAgent).toMatchObject({ kind: 'agent', agent: agent.id, fingers_requested: [2, 3] });

    for (const options of [{}, { device: d.serialNumber, agent: agent.id }]) {
      const error = await fpa.service.startEnrollmentSession(e.id, { ...options, fingers: [1], by }).then(
        () => null,
        (x: unknown) => x,
      );
      expect((error as FpaError).code).toBe('validation_error');
    }
  });
});

describe('EMPLOYEE_LOOKUP_FIELD', () => {
  test('the built-in directory knows only `id`: anything else refuses to start with fpa.E014', async () => {
    const dir = tempDir();
    try {
      const error = await createFingerprintAttendance({
        settings: testSettings(dir.dir, { EMPLOYEE_LOOKUP_FIELD: 'email' }),
        env: {},
        logger: silentLogger,
        startJobs: false,
      }).then(
        async (started) => {
          await started.close();
          return null;
        },
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).issues.map((i) => i.code)).toContain('fpa.E014');
    } finally {
      dir.cleanup();
    }
  });

  test('a host directory that declares the field starts', async () => {
    const dir = tempDir();
    const byEmail: EmployeeDirectory = {
      model: 'host.Person',
      lookupFields: ['email'],
      find: async (key) => (key === 'ada@example.com' ? { key, displayName: 'Ada', active: true } : null),
    };
    try {
      const started = await createFingerprintAttendance({
        settings: testSettings(dir.dir, { EMPLOYEE_LOOKUP_FIELD: 'email' }),
        env: {},
        logger: silentLogger,
        startJobs: false,
        employees: byEmail,
      });
      expect(started.warnings.map((w) => w.code)).not.toContain('fpa.E014');
      const e = await started.service.createEnrollee('ada@example.com', { by });
      expect(e.employeeKey).toBe('ada@example.com');
      await started.close();
    } finally {
      dir.cleanup();
    }
  });
});
