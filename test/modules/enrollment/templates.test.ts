import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { createFingerprintAttendance, type FingerprintAttendance } from '../../../src/app/create';
import { auditLog, deviceCommands, employees, templateSync, templates } from '../../../src/app/schema';
import { templateAad } from '../../../src/modules/enrollment/aad';
import { generateEncryptionKey, TemplateKeyRing } from '../../../src/platform/crypto/template-cipher';
import { silentLogger } from '../../../src/platform/log';
import { TEST_KEY, tempDir, testSettings } from '../../support/harness';
import { answerUserQuery } from '../../support/user-query';

const tmp = tempDir();
let fpa: FingerprintAttendance;
const by = 'admin@example.com';

function template(size: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

async function device(serial: string, algorithm: string | null, areas?: string[]) {
  const { devices } = fpa.service;
  await devices.registration.touch(serial);
  if (algorithm) await devices.administration.updateDevice(serial, { algorithm_version: algorithm }, by);
  await fpa.service.approveDevice(serial, { by, areas });
  const d = await devices.get(serial);
  await answerUserQuery(fpa, d);
  return d;
}

async function person(id: string, options: { consent?: boolean; areas?: string[] } = {}) {
  await fpa.db.write(({ tx }) => tx.insert(employees).values({ id, name: `Person ${id}`, createdAt: Date.now() }));
  const e = await fpa.service.createEnrollee(id, { areas: options.areas, by });
  if (options.consent !== false) await fpa.service.giveConsent(e.id, { version: 'v1', method: 'paper', by });
  return e;
}

beforeAll(async () => {
  fpa = await createFingerprintAttendance({
    settings: testSettings(tmp.dir, {
      ALGORITHM_COMPATIBILITY_MAP: { '12': ['12', '10'] },
      FINGERS_ALLOWED_MAX: 3,
      ALLOWED_FINGER_INDEXES: [0, 1, 2, 3, 4, 5, 6, 7],
    }),
    env: {},
    logger: silentLogger,
    startJobs: false,
  });
});
afterAll(async () => {
  await fpa.close();
  tmp.cleanup();
});

describe('storeTemplate', () => {
  test('encrypts at rest, versions, fans out to compatible devices and marks the others incompatible', async () => {
    const v10 = await device('DEV-V10', '10');
    const v12 = await device('DEV-V12', '12');
    const v9 = await device('DEV-V9', '9');
    const other = await device('DEV-OTHER-AREA', '10', ['warehouse']);
    const e = await person('T-1');
    const data = template(600);
    const stored = await fpa.service.storeTemplate(e.id, 6, data, { algorithmVersion: '10', by });
    expect(stored.version).toBe(1);
    expect(stored.queuedTo).toBe(2);
    expect(stored.incompatible).toBe(1);

    const row = (await fpa.db.orm.select().from(templates).where(eq(templates.id, stored.id)))[0]!;
    expect(Buffer.from(row.ciphertext).includes(Buffer.from(data.slice(0, 32)))).toBe(false);
    const ring = await TemplateKeyRing.fromKeys([TEST_KEY]);
    expect(await ring.decrypt(new Uint8Array(row.ciphertext), templateAad(e.id, 6, 1))).toEqual(data);
    await expect(ring.decrypt(new Uint8Array(row.ciphertext), templateAad(e.id, 7, 1))).rejects.toThrow();

    const sync = await fpa.db.orm.select().from(templateSync).where(eq(templateSync.templateId, stored.id));
    const statusOf = (id: string) => sync.find((s) => s.deviceId === id)?.status;
    expect(statusOf(v10.id)).toBe('pending');
    expect(statusOf(v12.id)).toBe('pending');
    expect(statusOf(v9.id)).toBe('incompatible');
    expect(statusOf(other.id)).toBeUndefined();

    // The queued command renders the template for the device's poll, and the table never holds the bytes.
    const commands = await fpa.db.orm
      .select()
      .from(deviceCommands)
      .where(and(eq(deviceCommands.deviceId, v10.id), eq(deviceCommands.kind, 'update_template')));
    expect(JSON.stringify(commands[0]!.payload)).not.toContain(Buffer.from(data).toString('base64').slice(0, 20));
    const body = await fpa.service.terminals.renderer.takeBatch(v10);
    expect(body).toContain(`DATA UPDATE FINGERTMP PIN=${e.devicePin}\tFID=6\tSize=800\tValid=1\tTMP=${Buffer.from(data).toString('base64')}`);
    const v12Body = await fpa.service.terminals.renderer.takeBatch(v12);
    expect(v12Body).toContain('DATA UPDATE BIODATA');

    const again = await fpa.service.storeTemplate(e.id, 6, template(600, 2), { algorithmVersion: '10', by });
    expect(again.version).toBe(2);
    expect(again.id).toBe(stored.id);
    const audits = await fpa.db.orm.select().from(auditLog).where(eq(auditLog.action, 'template.stored'));
    expect(audits.length).toBeGreaterThanOrEqual(2);
  });

  test('the rules: finger allowed, consent, size, maximum fingers', async () => {
    const e = await person('T-2');
    const noConsent = await person('T-3', { consent: false });
    const bad = (promise: Promise<unknown>) =>
      promise.then(
        () => 'stored',
        (error: { code?: string }) => error.code,
      );
    expect(await bad(fpa.service.storeTemplate(e.id, 9, template(100), { algorithmVersion: '10', by }))).toBe('finger_not_allowed');
    expect(await bad(fpa.service.storeTemplate(noConsent.id, 1, template(100), { algorithmVersion: '10', by }))).toBe('consent_required');
    expect(await bad(fpa.service.storeTemplate(e.id, 1, template(65537), { algorithmVersion: '10', by }))).toBe('template_too_large');
    expect(await bad(fpa.service.storeTemplate(e.id, 1, new Uint8Array(0), { algorithmVersion: '10', by }))).toBe('invalid_template');
    for (const finger of [0, 1, 2]) await fpa.service.storeTemplate(e.id, finger, template(100, finger), { algorithmVersion: '10', by });
    expect(await bad(fpa.service.storeTemplate(e.id, 3, template(100), { algorithmVersion: '10', by }))).toBe('too_many_fingers');
    // Replacing an existing finger is not a new finger.
    expect(await bad(fpa.service.storeTemplate(e.id, 2, template(100, 9), { algorithmVersion: '10', by }))).toBe('stored');
  });

  test('approval backfills every in-scope enrollee and compatible template', async () => {
    const e = await person('T-4');
    await fpa.service.storeTemplate(e.id, 4, template(300), { algorithmVersion: '10', by });
    const late = await device('DEV-LATE', '10');
    const rows = await fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.deviceId, late.id));
    const pins = rows.filter((r) => r.kind === 'add_user').map((r) => (r.payload as { pin: string }).pin);
    expect(pins).toContain(e.devicePin);
    expect(rows.some((r) => r.kind === 'update_template' && (r.payload as { pin: string }).pin === e.devicePin)).toBe(true);
  });

  test('withdrawing consent destroys the templates and queues deletes', async () => {
    const e = await person('T-5');
    const stored = await fpa.service.storeTemplate(e.id, 5, template(300), { algorithmVersion: '10', by });
    const result = await fpa.service.withdrawConsent(e.id, { by });
    expect(result.templates_destroyed).toBe(1);
    expect(await fpa.db.orm.select().from(templates).where(eq(templates.id, stored.id))).toHaveLength(0);
    const deletes = await fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.kind, 'delete_template'));
    expect(deletes.some((d) => (d.payload as { pin: string }).pin === e.devicePin)).toBe(true);
    // The unsent update for that finger was superseded by the delete.
    const updates = await fpa.db.orm
      .select()
      .from(deviceCommands)
      .where(eq(deviceCommands.supersedeKey, `tpl:${e.devicePin}:5`));
    expect(updates.filter((u) => u.kind === 'update_template').every((u) => u.status === 'superseded')).toBe(true);
  });

  test('rotate-keys re-encrypts under the new first key, resumably', async () => {
    const e = await person('T-6');
    const data = template(256, 7);
    await fpa.service.storeTemplate(e.id, 1, data, { algorithmVersion: '10', by });
    await fpa.close();
    const newKey = generateEncryptionKey();
    fpa = await createFingerprintAttendance({
      settings: testSettings(tmp.dir, {
        TEMPLATE_ENCRYPTION_KEYS: [newKey, TEST_KEY],
        ALGORITHM_COMPATIBILITY_MAP: { '12': ['12', '10'] },
        FINGERS_ALLOWED_MAX: 3,
      }),
      env: {},
      logger: silentLogger,
      startJobs: false,
    });
    const run = await fpa.jobs.run('rotate-keys');
    expect(run.status).toBe('succeeded');
    expect(Number(run.result.templates)).toBeGreaterThan(0);
    const ring = await TemplateKeyRing.fromKeys([newKey]);
    const rows = await fpa.db.orm.select().from(templates);
    for (const row of rows) expect(row.keyId).toBe(ring.primaryKeyId);
    const mine = rows.find((r) => r.enrolleeId === e.id)!;
    expect(await ring.decrypt(new Uint8Array(mine.ciphertext), templateAad(e.id, 1, mine.version))).toEqual(data);
    const second = await fpa.jobs.run('rotate-keys');
    expect(second.result.templates).toBe(0);
  });
});
