/**
 * store_template: the one operation every enrollment path ends in (SPEC). It checks the
 * finger rules, consent, size and the maximum number of fingers; encrypts and versions the
 * template; stores it; and queues it to every in-scope device that can use its algorithm,
 * marking the others `incompatible`.
 */
import { and, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import { devicesInScopeOfEnrollee } from '../areas/service';
import { audit } from '../audit/service';
import { chunks, type CommandService, type NewCommand } from '../commands/service';
import type { Context } from '../../app/context';
import type { Queryable, Tx, WriteContext } from '../../platform/db/client';
import { consents, deviceAreas, deviceCommands, devices, enrolleeAreas, enrollees, templateSync, templates, TEMPLATE_SOURCES } from '../../app/schema';
import { FpaError } from '../../platform/errors';
import { templateAad } from './aad';

export type TemplateSource = (typeof TEMPLATE_SOURCES)[number];

export interface StoreTemplateInput {
  enrolleeId: string;
  fingerIndex: number;
  data: Uint8Array;
  algorithmVersion: string;
  quality?: number | null;
  source: TemplateSource;
  /** The terminal the template came from (walk-up, remote): marked present there. */
  sourceDeviceId?: string | null;
  /** A duress finger (walk-up FP `Valid=3` / BIODATA `Duress=1`); absent keeps the stored flag. */
  duress?: boolean;
  by: string;
}

export interface StoredTemplate {
  id: string;
  enrolleeId: string;
  fingerIndex: number;
  algorithmVersion: string;
  version: number;
  queuedTo: number;
  incompatible: number;
}

type DeviceRow = typeof devices.$inferSelect;

/** Whether a device with algorithm `deviceAlgorithm` can use a template of `templateAlgorithm`. */
export function deviceAccepts(
  map: Record<string, string[]>,
  deviceAlgorithm: string | null,
  templateAlgorithm: string,
): boolean {
  // A terminal that never reported its algorithm gets the template; the result code of
  // the command (-30, -11, -12) marks it failed if it cannot take it.
  if (!deviceAlgorithm) return true;
  if (sameVersion(deviceAlgorithm, templateAlgorithm)) return true;
  return (map[deviceAlgorithm] ?? []).some((v) => sameVersion(v, templateAlgorithm));
}

/** "10" and "10.0" are the same algorithm version. */
export function sameVersion(a: string, b: string): boolean {
  if (a === b) return true;
  const na = Number(a);
  const nb = Number(b);
  return Number.isFinite(na) && Number.isFinite(nb) && na === nb;
}

export class TemplateService {
  constructor(
    private readonly ctx: Context,
    private readonly commands: CommandService,
  ) {}

  async storeTemplate(input: StoreTemplateInput): Promise<StoredTemplate> {
    return this.ctx.db.write((w) => this.storeTemplateIn(w, input));
  }

  /** storeTemplate inside a caller's write transaction (agent completion, walk-up batches). */
  async storeTemplateIn({ tx, afterCommit }: WriteContext, input: StoreTemplateInput): Promise<StoredTemplate> {
    const { settings, clock, keyRing } = this.ctx;
    const now = clock.now();
    const enrollee = await tx.query.enrollees.findFirst({ where: eq(enrollees.id, input.enrolleeId) });
    if (!enrollee || enrollee.status === 'deleted') throw new FpaError('not_found', 'enrollee not found', { enrollee: input.enrolleeId });
    if (enrollee.status !== 'active') throw new FpaError('enrollee_inactive', 'the enrollee is deactivated', { enrollee: enrollee.id });
    this.checkFinger(input.fingerIndex);
    if (settings.ENROLLMENT_REQUIRE_CONSENT && !(await hasConsent(tx, enrollee.id))) {
      throw new FpaError('consent_required', 'consent is required before a template is stored', { enrollee: enrollee.id });
    }
    this.checkSize(input.data.byteLength);
    const algorithmVersion = input.algorithmVersion.trim();
    if (algorithmVersion === '' || algorithmVersion.length > 32) {
      throw new FpaError('validation_error', 'algorithm_version must be 1 to 32 characters', { field: 'algorithm_version' });
    }

    const existing = await tx
      .select({ id: templates.id, fingerIndex: templates.fingerIndex, algorithmVersion: templates.algorithmVersion, version: templates.version })
      .from(templates)
      .where(eq(templates.enrolleeId, enrollee.id));
    const fingers = new Set(existing.map((t) => t.fingerIndex));
    fingers.add(input.fingerIndex);
    if (fingers.size > settings.FINGERS_ALLOWED_MAX) {
      throw new FpaError('too_many_fingers', `an enrollee may have at most ${settings.FINGERS_ALLOWED_MAX} fingers`, {
        max: settings.FINGERS_ALLOWED_MAX,
        fingers: [...fingers].sort((a, b) => a - b),
      });
    }

    const previous = existing.find((t) => t.fingerIndex === input.fingerIndex && sameVersion(t.algorithmVersion, algorithmVersion));
    const id = previous?.id ?? crypto.randomUUID();
    const version = (previous?.version ?? 0) + 1;
    const ciphertext = await keyRing.encrypt(input.data, templateAad(enrollee.id, input.fingerIndex, version));
    const row = {
      id,
      enrolleeId: enrollee.id,
      fingerIndex: input.fingerIndex,
      algorithmVersion,
      version,
      ciphertext: Buffer.from(ciphertext),
      keyId: keyRing.primaryKeyId,
      sizeBytes: input.data.byteLength,
      quality: input.quality ?? null,
      source: input.source,
      sourceDeviceId: input.sourceDeviceId ?? null,
      // undefined is skipped by insert (column default false) and by update (flag kept).
      duress: input.duress,
      createdAt: now,
      updatedAt: now,
    };
    if (previous) {
      await tx.update(templates).set({ ...row, createdAt: undefined }).where(eq(templates.id, id));
    } else {
      await tx.insert(templates).values(row);
    }

    const fanOut = await this.fanOut(tx, afterCommit, enrollee, { id, fingerIndex: input.fingerIndex, algorithmVersion, version }, input.sourceDeviceId ?? null);
    await audit(tx, now, {
      actor: input.by,
      action: 'template.stored',
      targetType: 'enrollee',
      targetId: enrollee.id,
      details: { finger_index: input.fingerIndex, algorithm_version: algorithmVersion, version, source: input.source, device: input.sourceDeviceId ?? null },
    });
    afterCommit(() =>
      this.ctx.events.emit('template_stored', {
        enrolleeId: enrollee.id,
        fingerIndex: input.fingerIndex,
        version,
        source: input.source,
        deviceId: input.sourceDeviceId ?? null,
      }),
    );
    return { id, enrolleeId: enrollee.id, fingerIndex: input.fingerIndex, algorithmVersion, version, ...fanOut };
  }

  checkFinger(fingerIndex: number): void {
    if (!Number.isInteger(fingerIndex) || !this.ctx.settings.ALLOWED_FINGER_INDEXES.includes(fingerIndex)) {
      throw new FpaError('finger_not_allowed', `finger ${fingerIndex} may not be enrolled`, {
        finger_index: fingerIndex,
        allowed: this.ctx.settings.ALLOWED_FINGER_INDEXES,
      });
    }
  }

  checkSize(bytes: number): void {
    if (bytes <= 0) throw new FpaError('invalid_template', 'the template is empty', {});
    if (bytes > this.ctx.settings.TEMPLATE_MAX_BYTES) {
      throw new FpaError('template_too_large', `the template is ${bytes} bytes; the limit is ${this.ctx.settings.TEMPLATE_MAX_BYTES}`, {
        size: bytes,
        max: this.ctx.settings.TEMPLATE_MAX_BYTES,
      });
    }
  }

  /** Queues one template to the in-scope devices (or a given list) and records sync status. */
  private async fanOut(
    tx: Tx,
    afterCommit: (cb: () => void) => void,
    enrollee: { id: string; devicePin: string },
    template: { id: string; fingerIndex: number; algorithmVersion: string; version: number },
    sourceDeviceId: string | null,
  ): Promise<{ queuedTo: number; incompatible: number }> {
    const targets = await devicesInScopeOfEnrollee(tx, enrollee.id);
    const now = this.ctx.clock.now();
    const commands: NewCommand[] = [];
    const syncRows: (typeof templateSync.$inferInsert)[] = [];
    let incompatible = 0;
    for (const device of targets) {
      if (device.id === sourceDeviceId) {
        syncRows.push({ templateId: template.id, deviceId: device.id, status: 'present', templateVersion: template.version, updatedAt: now });
      } else if (deviceAccepts(this.ctx.settings.ALGORITHM_COMPATIBILITY_MAP, device.algorithmVersion, template.algorithmVersion)) {
        commands.push(templateCommand(device.id, enrollee.devicePin, template));
        syncRows.push({ templateId: template.id, deviceId: device.id, status: 'pending', templateVersion: template.version, updatedAt: now });
      } else {
        incompatible++;
        syncRows.push({
          templateId: template.id,
          deviceId: device.id,
          status: 'incompatible',
          templateVersion: template.version,
          detail: `device algorithm ${device.algorithmVersion} does not accept ${template.algorithmVersion}`,
          updatedAt: now,
        });
      }
    }
    // The source terminal may be outside the enrollee's scope; it still holds the template.
    if (sourceDeviceId && !targets.some((d) => d.id === sourceDeviceId)) {
      syncRows.push({ templateId: template.id, deviceId: sourceDeviceId, status: 'present', templateVersion: template.version, updatedAt: now });
    }
    await upsertSync(tx, syncRows);
    const ids = await this.commands.enqueue(tx, commands, afterCommit);
    await linkSyncToCommands(tx, template.id, commands, ids);
    return { queuedTo: commands.length, incompatible };
  }

  /** Backfill: the user record and every compatible template of each enrollee onto one device. */
  async backfillDevice(w: WriteContext, device: DeviceRow, enrolleeRows: { id: string; devicePin: string; displayName: string }[]): Promise<number> {
    const now = this.ctx.clock.now();
    const commands: NewCommand[] = [];
    const syncRows: (typeof templateSync.$inferInsert)[] = [];
    const enrolleeIds = enrolleeRows.map((e) => e.id);
    const pinOf = new Map(enrolleeRows.map((e) => [e.id, e.devicePin]));
    const all: { id: string; enrolleeId: string; fingerIndex: number; algorithmVersion: string; version: number }[] = [];
    for (const ids of chunks(enrolleeIds, 500)) {
      all.push(
        ...(await w.tx
          .select({ id: templates.id, enrolleeId: templates.enrolleeId, fingerIndex: templates.fingerIndex, algorithmVersion: templates.algorithmVersion, version: templates.version })
          .from(templates)
          .where(inArray(templates.enrolleeId, ids))),
      );
    }
    const byEnrollee = new Map<string, typeof all>();
    for (const t of all) byEnrollee.set(t.enrolleeId, [...(byEnrollee.get(t.enrolleeId) ?? []), t]);
    for (const e of enrolleeRows) {
      commands.push(userCommand(device.id, e.devicePin, e.displayName));
      for (const t of byEnrollee.get(e.id) ?? []) {
        if (deviceAccepts(this.ctx.settings.ALGORITHM_COMPATIBILITY_MAP, device.algorithmVersion, t.algorithmVersion)) {
          commands.push(templateCommand(device.id, pinOf.get(t.enrolleeId)!, t));
          syncRows.push({ templateId: t.id, deviceId: device.id, status: 'pending', templateVersion: t.version, updatedAt: now });
        } else {
          syncRows.push({ templateId: t.id, deviceId: device.id, status: 'incompatible', templateVersion: t.version, updatedAt: now, detail: 'algorithm not accepted' });
        }
      }
    }
    await upsertSync(w.tx, syncRows);
    await this.commands.enqueue(w.tx, commands, w.afterCommit);
    return commands.length;
  }

  /**
   * Destroys every template of an enrollee (consent withdrawn, deletion, retention) and queues
   * deletes to the devices that hold or were about to receive them.
   */
  async destroyTemplatesIn(
    w: WriteContext,
    enrollee: { id: string; devicePin: string },
    reason: string,
    by: string,
    options: { deleteUserFromDevices?: boolean } = {},
  ): Promise<number> {
    const { tx, afterCommit } = w;
    const now = this.ctx.clock.now();
    const rows = await tx.select({ id: templates.id, fingerIndex: templates.fingerIndex }).from(templates).where(eq(templates.enrolleeId, enrollee.id));
    const templateIds = rows.map((r) => r.id);
    // Every terminal that may hold a template: `failed` may still hold an older version.
    const holders =
      templateIds.length === 0
        ? []
        : await tx
            .select({ deviceId: templateSync.deviceId, templateId: templateSync.templateId })
            .from(templateSync)
            .where(and(inArray(templateSync.templateId, templateIds), ne(templateSync.status, 'incompatible')));
    const commands: NewCommand[] = [];
    if (options.deleteUserFromDevices) {
      await this.removeFromDevices(w, [enrollee], await devicesThatMayHold(tx, enrollee.id));
    } else {
      const fingerOf = new Map(rows.map((r) => [r.id, r.fingerIndex]));
      const seen = new Set<string>();
      for (const h of holders) {
        const finger = fingerOf.get(h.templateId)!;
        const key = `${h.deviceId}:${finger}`;
        if (seen.has(key)) continue;
        seen.add(key);
        commands.push({
          deviceId: h.deviceId,
          kind: 'delete_template',
          payload: { pin: enrollee.devicePin, fingerIndex: finger },
          supersedeKey: `tpl:${enrollee.devicePin}:${finger}`,
        });
      }
    }
    if (templateIds.length > 0) {
      await tx.delete(templateSync).where(inArray(templateSync.templateId, templateIds));
      await tx.delete(templates).where(inArray(templates.id, templateIds));
    }
    await this.commands.enqueue(tx, commands, afterCommit);
    await audit(tx, now, {
      actor: by,
      action: 'templates.destroyed',
      targetType: 'enrollee',
      targetId: enrollee.id,
      details: { count: templateIds.length, reason },
    });
    afterCommit(() => this.ctx.events.emit('templates_destroyed', { enrolleeId: enrollee.id, count: templateIds.length, reason }));
    return templateIds.length;
  }

  /**
   * Takes enrollees off terminals (they left those terminals' scope, were deactivated or
   * deleted): `delete_user` to every pair, which also removes their templates there; their
   * unsent template commands there are pointless now, and their sync rows there are dropped.
   */
  async removeFromDevices(w: WriteContext, people: { id: string; devicePin: string }[], deviceIds: string[]): Promise<number> {
    if (people.length === 0 || deviceIds.length === 0) return 0;
    const { tx, afterCommit } = w;
    const commands: NewCommand[] = [];
    for (const deviceId of deviceIds) {
      for (const p of people) commands.push({ deviceId, kind: 'delete_user', payload: { pin: p.devicePin }, supersedeKey: `user:${p.devicePin}` });
    }
    await this.commands.enqueue(tx, commands, afterCommit);
    await supersedeTemplateCommands(tx, deviceIds, people.map((p) => p.devicePin), this.ctx.clock.now());
    for (const ids of chunks(people.map((p) => p.id), 500)) {
      const owned = await tx.select({ id: templates.id }).from(templates).where(inArray(templates.enrolleeId, ids));
      for (const templateIds of chunks(owned.map((t) => t.id), 400)) {
        for (const devicesChunk of chunks(deviceIds, 400)) {
          await tx.delete(templateSync).where(and(inArray(templateSync.templateId, templateIds), inArray(templateSync.deviceId, devicesChunk)));
        }
      }
    }
    return commands.length;
  }

  /** Template metadata of an enrollee with per-device sync status; never the bytes. */
  async listTemplates(q: Queryable, enrolleeId: string) {
    const rows = await q
      .select({
        id: templates.id,
        fingerIndex: templates.fingerIndex,
        algorithmVersion: templates.algorithmVersion,
        version: templates.version,
        sizeBytes: templates.sizeBytes,
        quality: templates.quality,
        source: templates.source,
        updatedAt: templates.updatedAt,
      })
      .from(templates)
      .where(eq(templates.enrolleeId, enrolleeId))
      .orderBy(templates.fingerIndex);
    const ids = rows.map((r) => r.id);
    const sync =
      ids.length === 0
        ? []
        : await q
            .select({ templateId: templateSync.templateId, status: templateSync.status, detail: templateSync.detail, serial: devices.serialNumber, updatedAt: templateSync.updatedAt })
            .from(templateSync)
            .innerJoin(devices, eq(devices.id, templateSync.deviceId))
            .where(inArray(templateSync.templateId, ids));
    return rows.map((r) => ({
      id: r.id,
      finger_index: r.fingerIndex,
      algorithm_version: r.algorithmVersion,
      version: r.version,
      size: r.sizeBytes,
      quality: r.quality,
      source: r.source,
      updated_at: new Date(r.updatedAt).toISOString(),
      sync: sync
        .filter((s) => s.templateId === r.id)
        .map((s) => ({ device: s.serial, status: s.status, detail: s.detail, updated_at: new Date(s.updatedAt).toISOString() })),
    }));
  }

  /** Marks a template present on a device after the terminal confirmed it. */
  async markSync(tx: Tx, templateId: string, deviceId: string, status: 'present' | 'failed', detail: string | null): Promise<void> {
    await tx
      .update(templateSync)
      .set({ status, detail, updatedAt: this.ctx.clock.now() })
      .where(and(eq(templateSync.templateId, templateId), eq(templateSync.deviceId, deviceId)));
  }
}

export async function hasConsent(q: Queryable, enrolleeId: string): Promise<boolean> {
  const [row] = await q
    .select({ id: consents.id })
    .from(consents)
    .where(and(eq(consents.enrolleeId, enrolleeId), isNull(consents.withdrawnAt)))
    .limit(1);
  return row !== undefined;
}

export function userCommand(deviceId: string, pin: string, name: string): NewCommand {
  return { deviceId, kind: 'add_user', payload: { pin, name }, supersedeKey: `user:${pin}` };
}

function templateCommand(deviceId: string, pin: string, t: { id: string; fingerIndex: number; version: number }): NewCommand {
  return {
    deviceId,
    kind: 'update_template',
    payload: { pin, fingerIndex: t.fingerIndex, templateId: t.id, templateVersion: t.version },
    supersedeKey: `tpl:${pin}:${t.fingerIndex}`,
  };
}

async function upsertSync(tx: Tx, rows: (typeof templateSync.$inferInsert)[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 400) {
    await tx
      .insert(templateSync)
      .values(rows.slice(i, i + 400))
      .onConflictDoUpdate({
        target: [templateSync.templateId, templateSync.deviceId],
        set: {
          status: sql`excluded.status`,
          templateVersion: sql`excluded.template_version`,
          detail: sql`excluded.detail`,
          commandId: sql`null`,
          updatedAt: sql`excluded.updated_at`,
        },
      });
  }
}

async function linkSyncToCommands(tx: Tx, templateId: string, commands: NewCommand[], ids: number[]): Promise<void> {
  for (let i = 0; i < commands.length; i++) {
    await tx
      .update(templateSync)
      .set({ commandId: ids[i] ?? null })
      .where(and(eq(templateSync.templateId, templateId), eq(templateSync.deviceId, commands[i]!.deviceId)));
  }
}

/** Every finger index a terminal knows (0 left little finger … 9 right little finger). */
const FINGER_INDEXES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/** Marks the unsent template commands (`tpl:<pin>:<finger>`) of these PINs on these devices superseded. */
async function supersedeTemplateCommands(tx: Tx, deviceIds: string[], pins: string[], now: number): Promise<void> {
  const keys = pins.flatMap((pin) => FINGER_INDEXES.map((finger) => `tpl:${pin}:${finger}`));
  for (const devicesChunk of chunks(deviceIds, 100)) {
    for (const keysChunk of chunks(keys, 400)) {
      await tx
        .update(deviceCommands)
        .set({ status: 'superseded', completedAt: now })
        .where(and(inArray(deviceCommands.deviceId, devicesChunk), inArray(deviceCommands.supersedeKey, keysChunk), eq(deviceCommands.status, 'pending')));
    }
  }
}

/** Approved or disabled terminals sharing an area with the enrollee (pending ones never got data). */
export async function devicesSharingArea(q: Queryable, enrolleeId: string): Promise<string[]> {
  const rows = await q
    .select({ id: devices.id })
    .from(devices)
    .where(
      and(
        inArray(devices.status, ['approved', 'disabled']),
        sql`exists (select 1 from ${deviceAreas} da join ${enrolleeAreas} ea on ea.area_id = da.area_id
                    where da.device_id = ${devices.id} and ea.enrollee_id = ${enrolleeId})`,
      ),
    );
  return rows.map((r) => r.id);
}

/**
 * Terminals that may hold an enrollee's user record or templates: those sharing an area, and any
 * terminal with a template of theirs that is not `incompatible` (a walk-up source outside scope).
 */
export async function devicesThatMayHold(q: Queryable, enrolleeId: string): Promise<string[]> {
  const holders = await q
    .selectDistinct({ deviceId: templateSync.deviceId })
    .from(templateSync)
    .innerJoin(templates, eq(templates.id, templateSync.templateId))
    .where(and(eq(templates.enrolleeId, enrolleeId), ne(templateSync.status, 'incompatible')));
  return [...new Set([...(await devicesSharingArea(q, enrolleeId)), ...holders.map((h) => h.deviceId)])];
}

