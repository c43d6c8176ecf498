/**
 * store_template: the one operation every enrollment path ends in (docs/spec.md). It checks the
 * finger rules, consent, size and the maximum number of fingers; encrypts and versions the
 * template; stores it; and queues it to every in-scope device that can use its algorithm,
 * marking the others `incompatible`. Also here: what a terminal should hold of an enrollee
 * (backfill, removal, destruction) and template metadata with per-device sync status.
 */
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable, Tx, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import type { Runtime } from '../../platform/runtime';
import type { BiometricType } from '../../protocol/adms';
import { audit } from '../audit';
import type { CommandService, NewCommand } from '../commands';
import { type DeviceRow, type DeviceService, deviceRef } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { EventChannel } from '../events';
import { templateAad } from './aad';
import { hasConsent } from './consent-records';
import type { BiometricEvents } from './events';
import { checkKind, isBiometricType, maxBytes, terminalTakes } from './kinds';
import { sameVersion } from './rules';
import { type TEMPLATE_SOURCES, templateSync, templates } from './tables';

export type TemplateSource = (typeof TEMPLATE_SOURCES)[number];

export interface StoreTemplateInput {
  enrolleeId: string;
  /** Default `fingerprint`. */
  type?: BiometricType;
  /** The body part (BIODATA `No`): finger 0–9, palm 0/1, face 0. */
  fingerIndex: number;
  /** Position in a multi-template set (BIODATA `Index`); default 0. */
  slot?: number;
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
  type: BiometricType;
  fingerIndex: number;
  slot: number;
  algorithmVersion: string;
  version: number;
  queuedTo: number;
  incompatible: number;
}

/** A template opened for a terminal (rendering a command); the bytes are never stored elsewhere. */
export interface OpenedTemplate {
  type: BiometricType;
  fingerIndex: number;
  slot: number;
  algorithmVersion: string;
  duress: boolean;
  plain: Uint8Array;
}

/** An enrollee as far as terminals are concerned: their PIN and the name shown on the terminal. */
export interface TerminalUser {
  id: string;
  devicePin: string;
  displayName: string;
  /** The card number the terminal should know them by, if any. */
  card?: string | null;
}

/** Every finger index a terminal knows (0 left little finger … 9 right little finger). */
const FINGER_INDEXES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/** A template as commands know it: its kind, body part and slot. */
interface TemplateRef {
  id: string;
  type: string;
  fingerIndex: number;
  slot: number;
  version: number;
}

export class TemplateStore {
  constructor(
    private readonly ctx: Runtime,
    private readonly events: EventChannel<BiometricEvents>,
    private readonly enrollees: EnrolleeService,
    private readonly devices: DeviceService,
    private readonly commands: CommandService,
  ) {}

  async storeTemplate(input: StoreTemplateInput): Promise<StoredTemplate> {
    return this.ctx.db.write((w) => this.storeTemplateIn(w, input));
  }

  /** storeTemplate inside a caller's write transaction (agent completion, walk-up batches). */
  async storeTemplateIn(w: WriteContext, input: StoreTemplateInput): Promise<StoredTemplate> {
    const { tx } = w;
    const { settings, clock, keyRing } = this.ctx;
    const now = clock.now();
    const enrollee = await this.enrollees.requireActive(tx, input.enrolleeId);
    const type = input.type ?? 'fingerprint';
    const slot = input.slot ?? 0;
    checkKind(settings, type, input.fingerIndex, slot);
    if (settings.ENROLLMENT_REQUIRE_CONSENT && !(await hasConsent(tx, enrollee.id))) {
      throw new FpaError('consent_required', 'consent is required before a template is stored', { enrollee: enrollee.id });
    }
    this.checkSize(input.data.byteLength, type);
    const algorithmVersion = input.algorithmVersion.trim();
    if (algorithmVersion === '' || algorithmVersion.length > 32) {
      throw new FpaError('validation_error', 'algorithm_version must be 1 to 32 characters', { field: 'algorithm_version' });
    }

    const existing = await tx
      .select({
        id: templates.id,
        type: templates.type,
        fingerIndex: templates.fingerIndex,
        slot: templates.slot,
        algorithmVersion: templates.algorithmVersion,
        version: templates.version,
      })
      .from(templates)
      .where(eq(templates.enrolleeId, enrollee.id));
    // FINGERS_ALLOWED_MAX counts fingers; a face or a palm is not a finger.
    const fingers = new Set(existing.filter((t) => t.type === 'fingerprint').map((t) => t.fingerIndex));
    if (type === 'fingerprint') fingers.add(input.fingerIndex);
    if (fingers.size > settings.FINGERS_ALLOWED_MAX) {
      throw new FpaError('too_many_fingers', `an enrollee may have at most ${settings.FINGERS_ALLOWED_MAX} fingers`, {
        max: settings.FINGERS_ALLOWED_MAX,
        fingers: [...fingers].sort((a, b) => a - b),
      });
    }

    const previous = existing.find(
      (t) => t.type === type && t.fingerIndex === input.fingerIndex && t.slot === slot && sameVersion(t.algorithmVersion, algorithmVersion),
    );
    const id = previous?.id ?? crypto.randomUUID();
    const version = (previous?.version ?? 0) + 1;
    const ciphertext = await keyRing.encrypt(input.data, templateAad(enrollee.id, input.fingerIndex, version, { type, slot }));
    const row = {
      id,
      enrolleeId: enrollee.id,
      type,
      fingerIndex: input.fingerIndex,
      slot,
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
      await tx
        .update(templates)
        .set({ ...row, createdAt: undefined })
        .where(eq(templates.id, id));
    } else {
      await tx.insert(templates).values(row);
    }

    const fanOut = await this.fanOut(w, enrollee, { id, type, fingerIndex: input.fingerIndex, slot, algorithmVersion, version }, input.sourceDeviceId ?? null);
    await audit(tx, now, {
      actor: input.by,
      action: 'template.stored',
      targetType: 'enrollee',
      targetId: enrollee.id,
      details: {
        type,
        index: input.fingerIndex,
        part: slot,
        algorithm_version: algorithmVersion,
        version,
        source: input.source,
        device: input.sourceDeviceId ?? null,
      },
    });
    const source = input.sourceDeviceId ? await this.devices.findById(tx, input.sourceDeviceId) : null;
    await this.events.record(w, 'template_stored', {
      enrollee: enrollee.id,
      type,
      index: input.fingerIndex,
      part: slot,
      algorithm_version: algorithmVersion,
      version,
      source: input.source,
      device: source ? deviceRef(source) : null,
    });
    return { id, enrolleeId: enrollee.id, type, fingerIndex: input.fingerIndex, slot, algorithmVersion, version, ...fanOut };
  }

  checkFinger(fingerIndex: number): void {
    if (!Number.isInteger(fingerIndex) || !this.ctx.settings.ALLOWED_FINGER_INDEXES.includes(fingerIndex)) {
      throw new FpaError('finger_not_allowed', `finger ${fingerIndex} may not be enrolled`, {
        finger_index: fingerIndex,
        allowed: this.ctx.settings.ALLOWED_FINGER_INDEXES,
      });
    }
  }

  checkSize(bytes: number, type: BiometricType = 'fingerprint'): void {
    if (bytes <= 0) throw new FpaError('invalid_template', 'the template is empty', {});
    const max = maxBytes(this.ctx.settings, type);
    if (bytes > max) throw new FpaError('template_too_large', `the ${type} template is ${bytes} bytes; the limit is ${max}`, { size: bytes, max, type });
  }

  /** Queues one template to the in-scope devices and records sync status. */
  private async fanOut(
    w: WriteContext,
    enrollee: { id: string; devicePin: string; displayName: string },
    template: TemplateRef & { type: BiometricType; algorithmVersion: string },
    sourceDeviceId: string | null,
  ): Promise<{ queuedTo: number; incompatible: number }> {
    const { tx } = w;
    const targets = await this.withoutConflicts(w, await this.devicesInScope(tx, enrollee.id), {
      id: enrollee.id,
      devicePin: enrollee.devicePin,
      displayName: enrollee.displayName,
    });
    const now = this.ctx.clock.now();
    const commands: NewCommand[] = [];
    const syncRows: (typeof templateSync.$inferInsert)[] = [];
    let incompatible = 0;
    for (const device of targets) {
      const takes = terminalTakes(this.ctx.settings.ALGORITHM_COMPATIBILITY_MAP, device, template.type, template.algorithmVersion);
      if (device.id === sourceDeviceId) {
        syncRows.push({ templateId: template.id, deviceId: device.id, status: 'present', templateVersion: template.version, updatedAt: now });
      } else if (takes.ok) {
        commands.push(templateCommand(device.id, enrollee, template));
        syncRows.push({ templateId: template.id, deviceId: device.id, status: 'pending', templateVersion: template.version, updatedAt: now });
      } else {
        incompatible++;
        syncRows.push({
          templateId: template.id,
          deviceId: device.id,
          status: 'incompatible',
          templateVersion: template.version,
          detail: takes.detail,
          updatedAt: now,
        });
      }
    }
    // The source terminal may be outside the enrollee's scope; it still holds the template.
    if (sourceDeviceId && !targets.some((d) => d.id === sourceDeviceId)) {
      syncRows.push({ templateId: template.id, deviceId: sourceDeviceId, status: 'present', templateVersion: template.version, updatedAt: now });
    }
    await upsertSync(tx, syncRows);
    const ids = await this.commands.enqueue(w, commands);
    await linkSyncToCommands(tx, template.id, commands, ids);
    return { queuedTo: commands.length, incompatible };
  }

  /**
   * Of these terminals, those where the enrollee may be written: a terminal whose own user (or
   * another enrollee's) has the enrollee's PIN is left alone — writing there would make that
   * person the enrollee — and the conflict is announced for an administrator to resolve.
   */
  async withoutConflicts(w: WriteContext, targets: readonly DeviceRow[], person: TerminalUser): Promise<DeviceRow[]> {
    if (targets.length === 0) return [];
    const others = await this.devices.users.heldByOthers(
      w.tx,
      targets.map((d) => d.id),
      person.devicePin,
      person.id,
    );
    for (const device of targets) if (others.has(device.id)) await this.conflict(w, device, person);
    return targets.filter((d) => !others.has(d.id));
  }

  /** Conflicts found when a command was about to be sent (terminals/render.ts): announced like the others. */
  async recordConflicts(device: DeviceRow, found: readonly { pin: string; enrollee: string }[]): Promise<void> {
    if (found.length === 0) return;
    await this.ctx.db.write(async (w) => {
      for (const c of found) await this.events.record(w, 'terminal_user_conflict', { device: deviceRef(device), pin: c.pin, enrollee: c.enrollee });
    });
  }

  private async conflict(w: WriteContext, device: DeviceRow, person: TerminalUser): Promise<void> {
    await this.events.record(w, 'terminal_user_conflict', { device: deviceRef(device), pin: person.devicePin, enrollee: person.id });
  }

  /** Backfill: the user record and every compatible template of each enrollee onto one device. */
  async backfillDevice(w: WriteContext, device: DeviceRow, people: readonly TerminalUser[]): Promise<number> {
    const now = this.ctx.clock.now();
    const commands: NewCommand[] = [];
    const syncRows: (typeof templateSync.$inferInsert)[] = [];
    const pinOf = new Map(people.map((e) => [e.id, e.devicePin]));
    const all: (TemplateRef & { enrolleeId: string; algorithmVersion: string })[] = [];
    for (const ids of chunks(
      people.map((e) => e.id),
      500,
    )) {
      all.push(
        ...(await w.tx
          .select({
            id: templates.id,
            enrolleeId: templates.enrolleeId,
            type: templates.type,
            fingerIndex: templates.fingerIndex,
            slot: templates.slot,
            algorithmVersion: templates.algorithmVersion,
            version: templates.version,
          })
          .from(templates)
          .where(inArray(templates.enrolleeId, ids))),
      );
    }
    const byEnrollee = new Map<string, typeof all>();
    for (const t of all) byEnrollee.set(t.enrolleeId, [...(byEnrollee.get(t.enrolleeId) ?? []), t]);
    const held = await this.devices.users.enrolleesOf(
      w.execute,
      device.id,
      people.map((p) => p.devicePin),
    );
    for (const e of people) {
      if (held.has(e.devicePin) && held.get(e.devicePin) !== e.id) {
        await this.conflict(w, device, e);
        continue;
      }
      commands.push(userCommand(device.id, e));
      for (const t of byEnrollee.get(e.id) ?? []) {
        const takes = isBiometricType(t.type)
          ? terminalTakes(this.ctx.settings.ALGORITHM_COMPATIBILITY_MAP, device, t.type, t.algorithmVersion)
          : { ok: false as const, detail: `unknown kind ${t.type}` };
        if (takes.ok) {
          commands.push(templateCommand(device.id, { id: t.enrolleeId, devicePin: pinOf.get(t.enrolleeId)! }, t));
          syncRows.push({ templateId: t.id, deviceId: device.id, status: 'pending', templateVersion: t.version, updatedAt: now });
        } else {
          syncRows.push({ templateId: t.id, deviceId: device.id, status: 'incompatible', templateVersion: t.version, updatedAt: now, detail: takes.detail });
        }
      }
    }
    await upsertSync(w.tx, syncRows);
    await this.commands.enqueue(w, commands);
    return commands.length;
  }

  /**
   * Destroys every template of an enrollee (consent withdrawn, deletion, retention) and queues
   * deletes to the devices that hold or were about to receive them; with `deleteUserFromDevices`
   * the whole user goes from every terminal that may hold them.
   */
  async destroyTemplatesIn(
    w: WriteContext,
    enrollee: { id: string; devicePin: string },
    reason: string,
    by: string,
    options: { deleteUserFromDevices?: boolean } = {},
  ): Promise<number> {
    const { tx } = w;
    const now = this.ctx.clock.now();
    const rows = await tx
      .select({ id: templates.id, type: templates.type, fingerIndex: templates.fingerIndex, slot: templates.slot })
      .from(templates)
      .where(eq(templates.enrolleeId, enrollee.id));
    const templateIds = rows.map((r) => r.id);
    if (options.deleteUserFromDevices) {
      await this.removeFromDevices(w, [enrollee], await this.devicesThatMayHold(tx, enrollee.id));
    } else {
      // Every terminal that may hold a template: `failed` may still hold an older version.
      const holders =
        templateIds.length === 0
          ? []
          : await tx
              .select({ deviceId: templateSync.deviceId, templateId: templateSync.templateId })
              .from(templateSync)
              .where(and(inArray(templateSync.templateId, templateIds), ne(templateSync.status, 'incompatible')));
      const byId = new Map(rows.map((r) => [r.id, r]));
      const commands = new Map<string, NewCommand>();
      for (const h of holders) {
        const t = byId.get(h.templateId)!;
        // One delete per body part: it removes every slot of it on the terminal.
        commands.set(`${h.deviceId}:${t.type}:${t.fingerIndex}`, {
          deviceId: h.deviceId,
          kind: 'delete_template',
          payload: { pin: enrollee.devicePin, fingerIndex: t.fingerIndex, type: t.type },
          supersedeKey: deleteKey(enrollee.devicePin, t),
        });
      }
      // Unsent writes of the other slots of those parts are pointless now.
      const devicesHolding = [...new Set(holders.map((h) => h.deviceId))];
      await this.commands.supersedeKeys(
        tx,
        devicesHolding,
        rows.filter((r) => r.type !== 'fingerprint').map((r) => templateKey(enrollee.devicePin, r)),
      );
      await this.commands.enqueue(w, [...commands.values()]);
    }
    if (templateIds.length > 0) {
      await tx.delete(templateSync).where(inArray(templateSync.templateId, templateIds));
      await tx.delete(templates).where(inArray(templates.id, templateIds));
    }
    await audit(tx, now, {
      actor: by,
      action: 'templates.destroyed',
      targetType: 'enrollee',
      targetId: enrollee.id,
      details: { count: templateIds.length, reason },
    });
    await this.events.record(w, 'templates_destroyed', { enrollee: enrollee.id, count: templateIds.length, reason });
    return templateIds.length;
  }

  /**
   * Takes enrollees off terminals (they left those terminals' scope, were deactivated or
   * deleted): `delete_user` to every pair, which also removes their templates there; their
   * unsent template commands there are pointless now, and their sync rows there are dropped.
   */
  async removeFromDevices(w: WriteContext, people: readonly { id: string; devicePin: string }[], deviceIds: readonly string[]): Promise<number> {
    if (people.length === 0 || deviceIds.length === 0) return 0;
    const { tx } = w;
    const commands: NewCommand[] = [];
    for (const deviceId of deviceIds) {
      for (const p of people) commands.push({ deviceId, kind: 'delete_user', payload: { pin: p.devicePin }, supersedeKey: `user:${p.devicePin}` });
    }
    await this.commands.enqueue(w, commands);
    await this.commands.supersedeKeys(
      tx,
      deviceIds,
      people.flatMap((p) => FINGER_INDEXES.map((finger) => `tpl:${p.devicePin}:${finger}`)),
    );
    const pinOf = new Map(people.map((p) => [p.id, p.devicePin]));
    for (const ids of chunks(
      people.map((p) => p.id),
      500,
    )) {
      const owned = await tx
        .select({ id: templates.id, enrolleeId: templates.enrolleeId, type: templates.type, fingerIndex: templates.fingerIndex, slot: templates.slot })
        .from(templates)
        .where(inArray(templates.enrolleeId, ids));
      await this.commands.supersedeKeys(
        tx,
        deviceIds,
        owned.filter((t) => t.type !== 'fingerprint').map((t) => templateKey(pinOf.get(t.enrolleeId)!, t)),
      );
      for (const templateIds of chunks(
        owned.map((t) => t.id),
        400,
      )) {
        for (const devicesChunk of chunks(deviceIds, 400)) {
          await tx.delete(templateSync).where(and(inArray(templateSync.templateId, templateIds), inArray(templateSync.deviceId, devicesChunk)));
        }
      }
    }
    return commands.length;
  }

  /** Template metadata of an enrollee with per-device sync status; never the bytes. */
  async listTemplates(enrolleeId: string, q: Queryable = this.ctx.db.orm) {
    const rows = await q
      .select({
        id: templates.id,
        type: templates.type,
        fingerIndex: templates.fingerIndex,
        slot: templates.slot,
        algorithmVersion: templates.algorithmVersion,
        version: templates.version,
        sizeBytes: templates.sizeBytes,
        quality: templates.quality,
        source: templates.source,
        updatedAt: templates.updatedAt,
      })
      .from(templates)
      .where(eq(templates.enrolleeId, enrolleeId))
      .orderBy(templates.type, templates.fingerIndex, templates.slot);
    const ids = rows.map((r) => r.id);
    const sync = ids.length === 0 ? [] : await q.select().from(templateSync).where(inArray(templateSync.templateId, ids));
    const devices = new Map<string, string>();
    for (const id of new Set(sync.map((s) => s.deviceId))) {
      const device = await this.devices.findById(q, id);
      if (device) devices.set(id, device.serialNumber);
    }
    return rows.map((r) => ({
      id: r.id,
      type: r.type,
      index: r.fingerIndex,
      part: r.slot,
      finger_index: r.fingerIndex,
      algorithm_version: r.algorithmVersion,
      version: r.version,
      size: r.sizeBytes,
      quality: r.quality,
      source: r.source,
      updated_at: new Date(r.updatedAt).toISOString(),
      sync: sync
        .filter((s) => s.templateId === r.id && devices.has(s.deviceId))
        .map((s) => ({ device: devices.get(s.deviceId)!, status: s.status, detail: s.detail, updated_at: new Date(s.updatedAt).toISOString() })),
    }));
  }

  /** The kinds of biometric stored per enrollee (`fingerprint`, `face`…), for those who have any. */
  async kindsOf(q: Queryable, enrolleeIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const ids of chunks([...new Set(enrolleeIds)], 500)) {
      const rows = await q.selectDistinct({ enrolleeId: templates.enrolleeId, type: templates.type }).from(templates).where(inArray(templates.enrolleeId, ids));
      for (const r of rows) out.set(r.enrolleeId, [...(out.get(r.enrolleeId) ?? []), r.type].sort());
    }
    return out;
  }

  /** Finger indexes stored per enrollee. */
  async fingersOf(q: Queryable, enrolleeIds: readonly string[]): Promise<Map<string, number[]>> {
    const out = new Map<string, number[]>();
    for (const ids of chunks(enrolleeIds, 500)) {
      const rows = await q
        .select({ enrolleeId: templates.enrolleeId, fingerIndex: templates.fingerIndex })
        .from(templates)
        .where(and(inArray(templates.enrolleeId, ids), eq(templates.type, 'fingerprint')));
      for (const r of rows)
        out.set(
          r.enrolleeId,
          [...new Set([...(out.get(r.enrolleeId) ?? []), r.fingerIndex])].sort((a, b) => a - b),
        );
    }
    return out;
  }

  /** The stored version of a template, decrypted for a terminal; null when it no longer exists in that version. */
  async openForDevice(templateId: string, version: number): Promise<OpenedTemplate | null> {
    const [template] = await this.ctx.db.orm.select().from(templates).where(eq(templates.id, templateId)).limit(1);
    if (!template || template.version !== version) return null;
    if (!isBiometricType(template.type)) return null;
    const plain = await this.ctx.keyRing.decrypt(new Uint8Array(template.ciphertext), aadOf(template));
    return {
      type: template.type,
      fingerIndex: template.fingerIndex,
      slot: template.slot,
      algorithmVersion: template.algorithmVersion,
      duress: template.duress,
      plain,
    };
  }

  /**
   * Walk-up: when a terminal uploads exactly the bytes already stored for this finger and
   * algorithm (a resend, or the terminal echoing what the server sent it), the template is
   * only marked present there and true is returned: no new version, which would otherwise
   * bounce between terminals for ever.
   */
  async markPresentIfSame(
    w: WriteContext,
    deviceId: string,
    upload: { enrolleeId: string; type: BiometricType; fingerIndex: number; slot: number; algorithmVersion: string; duress: boolean; data: Uint8Array },
  ): Promise<boolean> {
    const rows = await w.tx
      .select()
      .from(templates)
      .where(
        and(
          eq(templates.enrolleeId, upload.enrolleeId),
          eq(templates.type, upload.type),
          eq(templates.fingerIndex, upload.fingerIndex),
          eq(templates.slot, upload.slot),
        ),
      );
    const current = rows.find((t) => sameVersion(t.algorithmVersion, upload.algorithmVersion));
    // A finger that became (or stopped being) a duress finger is a new version, sent to the others.
    if (!current || current.sizeBytes !== upload.data.byteLength || current.duress !== upload.duress) return false;
    let plain: Uint8Array;
    try {
      plain = await this.ctx.keyRing.decrypt(new Uint8Array(current.ciphertext), aadOf(current));
    } catch {
      // Unreadable (a key removed too early): store the upload as a new version instead.
      return false;
    }
    if (!Buffer.from(plain).equals(Buffer.from(upload.data))) return false;
    await upsertSync(w.tx, [{ templateId: current.id, deviceId, status: 'present', templateVersion: current.version, updatedAt: this.ctx.clock.now() }]);
    return true;
  }

  /** Enrollees who have at least one template. */
  async owners(q: Queryable): Promise<string[]> {
    const rows = await q.selectDistinct({ id: templates.enrolleeId }).from(templates);
    return rows.map((r) => r.id);
  }

  /** A terminal was removed: nothing is held there any more. */
  async forgetDevice(tx: Tx, deviceId: string): Promise<void> {
    await tx.delete(templateSync).where(eq(templateSync.deviceId, deviceId));
  }

  /** Enrollees with a template that did not reach this terminal (`failed`, `incompatible`): the reconciliation sends them again. */
  async unsyncedOn(q: Queryable, deviceId: string): Promise<string[]> {
    const rows = await q
      .selectDistinct({ enrolleeId: templates.enrolleeId })
      .from(templateSync)
      .innerJoin(templates, eq(templates.id, templateSync.templateId))
      .where(and(eq(templateSync.deviceId, deviceId), inArray(templateSync.status, ['failed', 'incompatible'])));
    return rows.map((r) => r.enrolleeId);
  }

  /** Templates this terminal should hold: every sync row but the ones its algorithm cannot take. */
  async countExpected(q: Queryable, deviceId: string): Promise<number> {
    const [row] = await q
      .select({ n: sql<number>`count(*)` })
      .from(templateSync)
      .where(and(eq(templateSync.deviceId, deviceId), ne(templateSync.status, 'incompatible')));
    return row?.n ?? 0;
  }

  /** Templates marked present on a device. */
  async countPresent(q: Queryable, deviceId: string): Promise<number> {
    const [row] = await q
      .select({ n: sql<number>`count(*)` })
      .from(templateSync)
      .where(and(eq(templateSync.deviceId, deviceId), eq(templateSync.status, 'present')));
    return row?.n ?? 0;
  }

  /** Records what a terminal answered to a template command (only for the version it carried). */
  async recordSync(
    tx: Tx,
    templateId: string,
    deviceId: string,
    version: number,
    status: 'present' | 'failed' | 'incompatible',
    detail: string | null,
  ): Promise<void> {
    await tx
      .update(templateSync)
      .set({ status, detail, updatedAt: this.ctx.clock.now() })
      .where(and(eq(templateSync.templateId, templateId), eq(templateSync.deviceId, deviceId), eq(templateSync.templateVersion, version)));
  }

  // ---------------------------------------------------------------- scope

  /** Approved devices sharing an area with the enrollee. */
  async devicesInScope(q: Queryable, enrolleeId: string): Promise<DeviceRow[]> {
    return this.devices.inAreas(q, await this.enrollees.membership.areaIdsOf(q, enrolleeId));
  }

  /** Approved or disabled terminals sharing an area with the enrollee (pending ones never got data). */
  async devicesSharingArea(q: Queryable, enrolleeId: string): Promise<string[]> {
    const rows = await this.devices.inAreas(q, await this.enrollees.membership.areaIdsOf(q, enrolleeId), ['approved', 'disabled']);
    return rows.map((r) => r.id);
  }

  /**
   * Terminals that may hold an enrollee's user record or templates: those sharing an area, any
   * terminal with a template of theirs that is not `incompatible` (a walk-up source outside scope),
   * and any terminal whose user is linked to them. Removed terminals included: what they held is
   * kept under their id, and the deletes wait for them (devices/service.ts `remove`).
   */
  async devicesThatMayHold(q: Queryable, enrolleeId: string): Promise<string[]> {
    const holders = await q
      .selectDistinct({ deviceId: templateSync.deviceId })
      .from(templateSync)
      .innerJoin(templates, eq(templates.id, templateSync.templateId))
      .where(and(eq(templates.enrolleeId, enrolleeId), ne(templateSync.status, 'incompatible')));
    const linked = await this.devices.users.linkedTo(q, enrolleeId);
    return [...new Set([...(await this.devicesSharingArea(q, enrolleeId)), ...holders.map((h) => h.deviceId), ...linked.map((u) => u.deviceId)])];
  }
}

/** The user record of an enrollee for one terminal; `enrollee` lets the terminal's answer link its user to them. */
export function userCommand(deviceId: string, person: TerminalUser): NewCommand {
  return {
    deviceId,
    kind: 'add_user',
    payload: { pin: person.devicePin, name: person.displayName, enrollee: person.id, ...(person.card ? { card: person.card } : {}) },
    supersedeKey: `user:${person.devicePin}`,
  };
}

/** One template for one terminal; `enrollee` lets the renderer check the terminal's user with that PIN is them. */
function templateCommand(deviceId: string, enrollee: { id: string; devicePin: string }, t: TemplateRef): NewCommand {
  const pin = enrollee.devicePin;
  return {
    deviceId,
    kind: 'update_template',
    payload: { pin, fingerIndex: t.fingerIndex, type: t.type, slot: t.slot, templateId: t.id, templateVersion: t.version, enrollee: enrollee.id },
    supersedeKey: templateKey(pin, t),
  };
}

/**
 * The supersede key of a template command: a newer write or a delete of the same template takes
 * an unsent one's place. Fingerprints keep the first release's keys.
 */
function templateKey(pin: string, t: { type: string; fingerIndex: number; slot: number }): string {
  return t.type === 'fingerprint' ? `tpl:${pin}:${t.fingerIndex}` : `tpl:${pin}:${t.type}:${t.fingerIndex}:${t.slot}`;
}

/** A delete removes a whole body part: for a fingerprint, the key of its only template. */
function deleteKey(pin: string, t: { type: string; fingerIndex: number }): string {
  return t.type === 'fingerprint' ? `tpl:${pin}:${t.fingerIndex}` : `tpl:${pin}:${t.type}:${t.fingerIndex}`;
}

/** The AAD of a stored row (its kind and slot are bound in for every kind but fingerprints). */
function aadOf(row: { enrolleeId: string; type: string; fingerIndex: number; slot: number; version: number }) {
  return templateAad(row.enrolleeId, row.fingerIndex, row.version, { type: row.type, slot: row.slot });
}

async function upsertSync(tx: Tx, rows: (typeof templateSync.$inferInsert)[]): Promise<void> {
  for (const chunk of chunks(rows, 400)) {
    await tx
      .insert(templateSync)
      .values(chunk)
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
