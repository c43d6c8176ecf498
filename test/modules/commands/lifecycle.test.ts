/**
 * Device commands after the reviewers' findings: enroll commands wait for their session, deletes
 * never give up, a newer command takes an unsent one's place in the queue, every end of a
 * command runs the finish handlers, an undecryptable template fails alone, and id lists stay
 * under SQLite's bind-variable limit. In process, on a real libSQL file, with a movable clock.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, asc, eq } from 'drizzle-orm';
import { createFingerprintAttendance, type FingerprintAttendance } from '../../../src/app/create';
import { deviceCommands, employees, enrollmentSessions, punches, templateSync, templates } from '../../../src/app/schema';
import { NEVER_EXPIRES, type NewCommand } from '../../../src/modules/commands/kinds';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { templateAad } from '../../../src/modules/enrollment/aad';
import type { IncomingPunch } from '../../../src/modules/punches/service';
import { generateEncryptionKey, TemplateKeyRing } from '../../../src/platform/crypto/template-cipher';
import type { Logger } from '../../../src/platform/log';
import type { Clock } from '../../../src/platform/runtime';
import type { CommandResult } from '../../../src/protocol/adms';
import { tempDir, testSettings } from '../../support/harness';

const tmp = tempDir();
const by = 'admin@example.com';
let offset = 0;
const clock: Clock = { now: () => Date.now() + offset };
const logged: { message: string; fields?: Record<string, unknown> }[] = [];
const logger: Logger = {
  debug() {},
  info() {},
  warn: (message, fields) => void logged.push({ message, fields }),
  error: (message, fields) => void logged.push({ message, fields }),
};
const finished: { commandId: number; status: string }[] = [];
let fpa: FingerprintAttendance;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function template(size: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

async function device(serial: string, areas?: string[]): Promise<DeviceRow> {
  await fpa.service.devices.registration.touch(serial);
  await fpa.service.devices.administration.updateDevice(serial, { algorithm_version: '10' }, by);
  await fpa.service.approveDevice(serial, { by, areas });
  const d = await fpa.service.devices.get(serial);
  // Approval queues a query of the terminal's users; these tests follow the sync commands alone.
  await fpa.db.write(({ tx }) => tx.delete(deviceCommands).where(and(eq(deviceCommands.deviceId, d.id), eq(deviceCommands.kind, 'query_users'))));
  return d;
}

async function person(id: string, areas?: string[]) {
  await fpa.db.write(({ tx }) => tx.insert(employees).values({ id, name: `Person ${id}`, createdAt: clock.now() }));
  const e = await fpa.service.createEnrollee(id, { areas, by });
  await fpa.service.giveConsent(e.id, { version: 'v1', method: 'paper', by });
  return e;
}

async function commandsOf(deviceId: string) {
  return fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.deviceId, deviceId)).orderBy(asc(deviceCommands.id));
}

/** Queues one command as the services do, in a transaction of its own; returns its id. */
function enqueue(c: NewCommand): Promise<number[]> {
  return fpa.db.write((w) => fpa.service.commands.enqueue(w, [c]));
}

async function command(id: number) {
  return (await fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.id, id)))[0]!;
}

/** Sends the device's due commands and answers each with `code`; returns the ids sent. */
async function exchange(d: DeviceRow, code: (text: string) => number | null): Promise<{ id: string; text: string }[]> {
  fpa.service.commands.polls.markQueued(d.id);
  const body = await fpa.service.terminals.renderer.takeBatch(d);
  const sent = (body ?? '')
    .split('\n')
    .filter((l) => l.startsWith('C:'))
    .map((l) => {
      const [, id, ...rest] = l.split(':');
      return { id: id!, text: rest.join(':') };
    });
  const results: CommandResult[] = [];
  for (const s of sent) {
    const rc = code(s.text);
    if (rc !== null) results.push({ id: s.id, returnCode: rc, cmd: '', fields: {} });
  }
  if (results.length > 0) await fpa.service.commands.applyResults(d.id, results);
  return sent;
}

beforeAll(async () => {
  fpa = await createFingerprintAttendance({
    settings: testSettings(tmp.dir, { COMMAND_MAX_RETRIES: 1, ALLOWED_FINGER_INDEXES: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] }),
    env: {},
    logger,
    clock,
    startJobs: false,
  });
  fpa.events.on('device_command_finished', (e) => void finished.push({ commandId: e.command.id, status: e.status }));
});
afterAll(async () => {
  await fpa.close();
  tmp.cleanup();
});

describe('enroll commands', () => {
  test('wait for the person past COMMAND_ACK_TIMEOUT; only the session end expires them, through the handlers', async () => {
    const d = await device('ENROLL-1');
    const e = await person('C-ENROLL');
    const session = await fpa.service.startEnrollmentSession(e.id, { device: d.serialNumber, fingers: [6], by });
    expect(session.kind).toBe('remote');
    const sent = await exchange(d, (text) => (text.startsWith('ENROLL_FP') ? null : 0));
    const enroll = sent.find((s) => s.text.startsWith('ENROLL_FP'))!;
    expect(enroll).toBeDefined();

    // The person is still pressing their finger after the acknowledgement timeout.
    offset += 3 * MINUTE;
    const retry = await fpa.service.commands.retryUnacknowledged();
    expect(retry.failed).toBe(0);
    expect((await command(Number(enroll.id))).status).toBe('sent');
    const open = await fpa.db.orm
      .select()
      .from(enrollmentSessions)
      .where(eq(enrollmentSessions.id, session.id))
      .limit(1)
      .then((r) => r[0]);
    expect(open!.status).toBe('open');

    // The session's end stops it, and the handlers and the event see that.
    offset += fpa.settings.ENROLLMENT_SESSION_TTL;
    const run = await fpa.jobs.run('expire-sessions');
    expect(run.status).toBe('succeeded');
    const closed = await fpa.db.orm
      .select()
      .from(enrollmentSessions)
      .where(eq(enrollmentSessions.id, session.id))
      .limit(1)
      .then((r) => r[0]);
    expect(closed!.status).toBe('expired');
    expect((await command(Number(enroll.id))).status).toBe('expired');
    expect(finished).toContainEqual({ commandId: Number(enroll.id), status: 'expired' });
  });
});

describe('deletes', () => {
  test('never expire, are retried past COMMAND_MAX_RETRIES with a backoff capped at an hour, and Return=-10 ends them as done', async () => {
    const d = await device('DELETE-1');
    const e = await person('C-DELETE');
    await exchange(d, () => 0);
    await fpa.service.deleteEnrollee(e.id, { by });
    const del = (await commandsOf(d.id)).find((c) => c.kind === 'delete_user' && (c.payload as { pin: string }).pin === e.devicePin)!;
    expect(del.expiresAt).toBe(NEVER_EXPIRES);

    for (let round = 0; round < 6; round++) {
      offset += 2 * HOUR;
      const sent = await exchange(d, () => -3); // storage error: transient
      expect(sent.map((s) => Number(s.id))).toContain(del.id);
      const after = await command(del.id);
      expect(after.status).toBe('pending');
      expect(after.notBefore - clock.now()).toBeLessThanOrEqual(HOUR);
    }
    // Unanswered sends are retried too, not failed.
    offset += 2 * HOUR;
    await exchange(d, () => null);
    offset += 2 * HOUR;
    expect((await fpa.service.commands.retryUnacknowledged()).failed).toBe(0);
    expect((await command(del.id)).status).toBe('pending');

    offset += 400 * 24 * HOUR;
    await fpa.service.commands.expireOverdue();
    expect((await command(del.id)).status).toBe('pending');

    await exchange(d, (text) => (text.startsWith('DATA DELETE USERINFO') ? -10 : 0));
    expect((await command(del.id)).status).toBe('succeeded');
  });

  test('a disabled terminal keeps its deletes and gets them after re-approval; its other commands expire through the handlers', async () => {
    const d = await device('DISABLE-1', ['disable-area']);
    const gone = await person('C-GONE', ['disable-area']);
    const stays = await person('C-STAYS', ['disable-area']);
    await exchange(d, () => 0);
    const stored = await fpa.service.storeTemplate(stays.id, 3, template(200), { algorithmVersion: '10', by });
    await fpa.service.deleteEnrollee(gone.id, { by });

    await fpa.service.disableDevice(d.serialNumber, { by });
    const rows = await commandsOf(d.id);
    const update = rows.find((c) => c.kind === 'update_template' && (c.payload as { templateId: string }).templateId === stored.id)!;
    expect(update.status).toBe('expired');
    expect(finished).toContainEqual({ commandId: update.id, status: 'expired' });
    // The template-sync handler ran: the template is not pending on a disabled terminal.
    const [sync] = await fpa.db.orm
      .select()
      .from(templateSync)
      .where(and(eq(templateSync.templateId, stored.id), eq(templateSync.deviceId, d.id)));
    expect(sync!.status).toBe('failed');
    const del = rows.find((c) => c.kind === 'delete_user' && (c.payload as { pin: string }).pin === gone.devicePin)!;
    expect(del.status).toBe('pending');

    await fpa.service.approveDevice(d.serialNumber, { by });
    // Approved again, it is asked who it holds first: the delete of a PIN waits for that answer.
    expect((await exchange(d, () => 0)).map((s) => s.text)).toEqual(['DATA QUERY USERINFO']);
    const sent = await exchange(d, () => 0);
    expect(sent.map((s) => s.text)).toContain(`DATA DELETE USERINFO PIN=${gone.devicePin}`);
    expect((await command(del.id)).status).toBe('succeeded');
  });
});

describe('supersede in place', () => {
  test("a rename's add_user keeps the unsent record's place, ahead of that user's template", async () => {
    const d = await device('ORDER-1', ['order-area']);
    const e = await person('C-ORDER', ['order-area']);
    await fpa.service.storeTemplate(e.id, 1, template(200), { algorithmVersion: '10', by });
    await fpa.service.enrollees.changes.update(e.id, { display_name: 'Renamed Person' }, by);

    const rows = (await commandsOf(d.id)).filter((c) => (c.payload as { pin?: string }).pin === e.devicePin);
    expect(rows.map((c) => [c.kind, c.status])).toEqual([
      ['add_user', 'pending'],
      ['update_template', 'pending'],
    ]);
    expect((rows[0]!.payload as { name: string }).name).toBe('Renamed Person');

    const sent = (await exchange(d, () => 0)).map((s) => s.text);
    const user = sent.findIndex((t) => t.startsWith(`DATA UPDATE USERINFO PIN=${e.devicePin}\t`));
    const finger = sent.findIndex((t) => t.startsWith(`DATA UPDATE FINGERTMP PIN=${e.devicePin}\t`));
    expect(sent[user]).toContain('Name=Renamed Person');
    expect(user).toBeGreaterThanOrEqual(0);
    expect(finger).toBeGreaterThan(user);
  });

  test('a sent command is not replaced: the newer one queues behind it', async () => {
    const d = await device('ORDER-2', ['order-2']);
    const e = await person('C-ORDER-2', ['order-2']);
    fpa.service.commands.polls.markQueued(d.id);
    expect(await fpa.service.terminals.renderer.takeBatch(d)).toContain(`PIN=${e.devicePin}`);
    await fpa.service.enrollees.changes.update(e.id, { display_name: 'Second Name' }, by);
    const rows = await commandsOf(d.id);
    expect(rows.map((c) => c.status)).toEqual(['sent', 'pending']);
  });

  test('a command that went out keeps its id for its content: the same content again is it, other content a new command', async () => {
    const d = await device('ORDER-3', ['order-3']);
    const e = await person('C-ORDER-3', ['order-3']);
    await exchange(d, () => 0);
    await fpa.service.enrollees.changes.update(e.id, { display_name: 'Sent Once' }, by);
    const [lost] = await exchange(d, () => null);
    offset += 3 * MINUTE;
    await fpa.service.commands.retryUnacknowledged();
    const requeued = await command(Number(lost!.id));
    expect(requeued).toMatchObject({ kind: 'add_user', status: 'pending', attempts: 1 });
    // The same record (its payload's keys in another order): that very command, untouched.
    const same: NewCommand = {
      deviceId: d.id,
      kind: 'add_user',
      payload: Object.fromEntries(Object.entries(requeued.payload).reverse()),
      supersedeKey: requeued.supersedeKey,
    };
    expect(await enqueue(same)).toEqual([requeued.id]);
    expect(await command(requeued.id)).toEqual(requeued);

    // Renamed again: a new command; the one that went out is superseded, and its late answer closes nothing.
    await fpa.service.enrollees.changes.update(e.id, { display_name: 'Sent Twice' }, by);
    expect((await command(requeued.id)).status).toBe('superseded');
    const renamed = (await commandsOf(d.id)).at(-1)!;
    expect(renamed).toMatchObject({ kind: 'add_user', status: 'pending', attempts: 0, payload: { name: 'Sent Twice' } });
    expect(await fpa.service.commands.applyResults(d.id, [{ id: String(requeued.id), returnCode: 0, cmd: 'DATA', fields: {} }])).toEqual({
      applied: 0,
      unknown: [],
    });
    expect((await command(requeued.id)).status).toBe('superseded');
    expect((await command(renamed.id)).status).toBe('pending');
    offset += HOUR;
    const sent = await exchange(d, () => 0);
    expect(sent.map((s) => [Number(s.id), s.text.includes('Name=Sent Twice')])).toEqual([[renamed.id, true]]);
  });

  test('a delete that went out is never superseded: a different delete of its key queues behind it', async () => {
    const d = await device('ORDER-4', ['order-4']);
    const e = await person('C-ORDER-4', ['order-4']);
    await exchange(d, () => 0);
    await fpa.service.deleteEnrollee(e.id, { by });
    await exchange(d, () => null);
    offset += 3 * MINUTE;
    await fpa.service.commands.retryUnacknowledged();
    const del = (await commandsOf(d.id)).find((c) => c.kind === 'delete_user' && c.status === 'pending')!;
    expect(del.attempts).toBe(1);
    const [other] = await enqueue({ deviceId: d.id, kind: 'delete_user', payload: { pin: e.devicePin, resolves: true }, supersedeKey: `user:${e.devicePin}` });
    expect(other).not.toBe(del.id);
    expect(await command(del.id)).toEqual(del);
    offset += HOUR;
    const sent = await exchange(d, () => 0);
    expect(sent.map((s) => Number(s.id))).toEqual([del.id, other!]);
  });

  test('an unsent delete queued behind one that went out is never closed: the same content again never reuses the sent one, and both stay owed', async () => {
    const d = await device('ORDER-4B', ['order-4b']);
    const e = await person('C-ORDER-4B', ['order-4b']);
    await exchange(d, () => 0);
    await fpa.service.deleteEnrollee(e.id, { by });
    await exchange(d, () => null);
    offset += 3 * MINUTE;
    await fpa.service.commands.retryUnacknowledged();
    const del = (await commandsOf(d.id)).find((c) => c.kind === 'delete_user' && c.status === 'pending')!;
    const [other] = await enqueue({ deviceId: d.id, kind: 'delete_user', payload: { pin: e.devicePin, resolves: true }, supersedeKey: `user:${e.devicePin}` });
    // The sent delete's content again is not that command (a late answer to it would stand for the new one):
    // it rewrites the unsent delete behind it in place, and the sent one stays (a deletion proof may wait for it).
    expect(await enqueue({ deviceId: d.id, kind: 'delete_user', payload: { pin: e.devicePin }, supersedeKey: `user:${e.devicePin}` })).toEqual([other!]);
    expect(await command(other!)).toMatchObject({ status: 'pending', payload: { pin: e.devicePin } });
    expect((await command(del.id)).status).toBe('pending');
    offset += HOUR;
    const sent = await exchange(d, () => 0);
    expect(sent.map((s) => Number(s.id))).toEqual([del.id, other!]);
  });

  test("an operator's retry keeps sent_at: the command is never rewritten in place afterwards", async () => {
    const d = await device('ORDER-5', ['order-5']);
    const e = await person('C-ORDER-5', ['order-5']);
    const [record] = await exchange(d, () => -1002);
    expect((await command(Number(record!.id))).status).toBe('failed');
    const sentAt = (await command(Number(record!.id))).sentAt;
    expect(sentAt).not.toBeNull();
    await fpa.service.commands.operator.retry(d, Number(record!.id), by);
    expect(await command(Number(record!.id))).toMatchObject({ status: 'pending', attempts: 0, sentAt });
    await fpa.service.enrollees.changes.update(e.id, { display_name: 'After Retry' }, by);
    expect(await command(Number(record!.id))).toMatchObject({ status: 'superseded', payload: { name: 'Person C-ORDER-5' } });
    const renamed = (await commandsOf(d.id)).at(-1)!;
    expect(renamed).toMatchObject({ kind: 'add_user', status: 'pending', payload: { name: 'After Retry' } });
  });
});

describe('an undecryptable template', () => {
  test('fails its own command without its text, and the rest of the queue still goes out', async () => {
    const d = await device('CIPHER-1', ['cipher']);
    const e = await person('C-CIPHER', ['cipher']);
    const data = template(300, 5);
    const stored = await fpa.service.storeTemplate(e.id, 2, data, { algorithmVersion: '10', by });
    // As if its key had been dropped from TEMPLATE_ENCRYPTION_KEYS: sealed under a key the ring lacks.
    const foreign = await TemplateKeyRing.fromKeys([generateEncryptionKey()]);
    const sealed = await foreign.encrypt(data, templateAad(e.id, 2, stored.version));
    await fpa.db.write(({ tx }) =>
      tx
        .update(templates)
        .set({ ciphertext: Buffer.from(sealed) })
        .where(eq(templates.id, stored.id)),
    );
    const later = await person('C-CIPHER-2', ['cipher']);

    const sent = (await exchange(d, () => 0)).map((s) => s.text);
    expect(sent.some((t) => t.startsWith(`DATA UPDATE USERINFO PIN=${later.devicePin}\t`))).toBe(true);
    expect(sent.some((t) => t.includes('FINGERTMP'))).toBe(false);

    const failed = (await commandsOf(d.id)).find((c) => c.kind === 'update_template')!;
    expect(failed.status).toBe('failed');
    expect(failed.result).toEqual({ reason: 'template cannot be decrypted', failed_by: 'service' });
    expect(finished).toContainEqual({ commandId: failed.id, status: 'failed' });
    const [sync] = await fpa.db.orm
      .select()
      .from(templateSync)
      .where(and(eq(templateSync.templateId, stored.id), eq(templateSync.deviceId, d.id)));
    expect(sync!.status).toBe('failed');
    const warning = logged.find((l) => l.message.includes('cannot be decrypted'));
    expect(warning).toBeDefined();
    expect(JSON.stringify(warning)).not.toContain(Buffer.from(data).toString('base64').slice(0, 16));
  });
});

describe("SQLite's bind-variable limit", () => {
  test('a batch with more distinct PINs than bind variables is ingested; results with as many ids are applied', async () => {
    const d = await device('MANY-PINS', ['many']);
    const base = Date.UTC(2024, 0, 1);
    const lines: IncomingPunch[] = Array.from({ length: 33_000 }, (_, i) => ({
      pin: String(500_000 + i),
      localTime: '2024-01-01 08:00:00',
      punchedAt: base,
      utcOffsetMinutes: 0,
      state: 0,
      verifyType: 1,
      workCode: '0',
      extra: [],
      raw: `${500_000 + i}\t2024-01-01 08:00:00\t0\t1\t0`,
    }));
    const result = await fpa.service.punches.ingest(d, lines);
    expect(result.inserted).toBe(33_000);
    const [count] = await fpa.db.orm.select({ n: punches.id }).from(punches).where(eq(punches.devicePin, '532999'));
    expect(count).toBeDefined();

    const results: CommandResult[] = Array.from({ length: 33_000 }, (_, i) => ({ id: String(900_000_000 + i), returnCode: 0, cmd: '', fields: {} }));
    const applied = await fpa.service.commands.applyResults(d.id, results);
    expect(applied.applied).toBe(0);
    expect(applied.unknown).toHaveLength(33_000);
  });
});
