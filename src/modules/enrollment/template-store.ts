/**
 * store_template: the one operation every enrollment path ends in (docs/spec.md). It checks the
 * finger rules, consent, size and the maximum number of fingers; encrypts and versions the
 * template; stores it; and hands it to the fan-out (fan-out.ts), which queues it to every
 * in-scope device that can use its algorithm, marking the others `incompatible`. Also here: the
 * destruction of a person's templates, and template metadata with per-device sync status. The
 * bytes are encrypted at rest, never logged and never returned, but opened for a terminal.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable, Tx, WriteContext } from '../../platform/db/client';
import { emptyWal } from '../../platform/db/erase';
import { FpaError } from '../../platform/errors';
import type { BiometricType } from '../../protocol/adms';
import { audit } from '../audit';
import { type DeviceService, deviceRef } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { EventChannel } from '../events';
import { templateAad } from './aad';
import { hasConsent } from './consent-records';
import type { EnrollmentEvents } from './events';
import type { FanOut } from './fan-out';
import { checkKind, isBiometricType, maxBytes } from './kinds';
import { sameVersion } from './rules';
import type { EnrollmentRuntime } from './runtime';
import { type TEMPLATE_SOURCES, templateIdentity, templateSync, templates } from './tables';
import { holdsSome, upsertSync } from './template-sync';

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

/** Told in the destroying transaction of every destruction, one that found nothing included (a deletion proof opens on it). */
export type TemplatesDestroyed = (w: WriteContext, destroyed: { enrollee: string; count: number; reason: string; at: number }) => Promise<void>;

/** What storing is about once the input is checked: the kind, body part, slot and algorithm. */
type Part = Pick<StoredTemplate, 'type' | 'fingerIndex' | 'slot' | 'algorithmVersion'>;

export class TemplateStore {
  private readonly destroyedHooks: TemplatesDestroyed[] = [];
  constructor(
    private readonly ctx: EnrollmentRuntime,
    private readonly events: EventChannel<EnrollmentEvents>,
    private readonly enrollees: EnrolleeService,
    private readonly devices: DeviceService,
    private readonly fanOut: FanOut,
  ) {}

  async storeTemplate(input: StoreTemplateInput): Promise<StoredTemplate> {
    return this.ctx.db.write((w) => this.storeTemplateIn(w, input));
  }

  /** storeTemplate inside a caller's write transaction (agent completion, walk-up batches). */
  async storeTemplateIn(w: WriteContext, input: StoreTemplateInput): Promise<StoredTemplate> {
    const { tx } = w;
    const now = this.ctx.clock.now();
    const enrollee = await this.enrollees.requireActive(tx, input.enrolleeId);
    const part = await this.checked(tx, enrollee.id, input);
    const { id, version } = await this.write(tx, enrollee.id, part, input, now);
    const fanOut = await this.fanOut.template(w, enrollee, { id, ...part, version }, input.sourceDeviceId ?? null);
    await audit(tx, now, {
      actor: input.by,
      action: 'template.stored',
      targetType: 'enrollee',
      targetId: enrollee.id,
      details: {
        type: part.type,
        index: part.fingerIndex,
        part: part.slot,
        algorithm_version: part.algorithmVersion,
        version,
        source: input.source,
        device: input.sourceDeviceId ?? null,
      },
    });
    const source = input.sourceDeviceId ? await this.devices.findById(tx, input.sourceDeviceId) : null;
    await this.events.record(w, 'template_stored', {
      enrollee: enrollee.id,
      type: part.type,
      index: part.fingerIndex,
      part: part.slot,
      algorithm_version: part.algorithmVersion,
      version,
      source: input.source,
      device: source ? deviceRef(source) : null,
    });
    return { id, enrolleeId: enrollee.id, ...part, version, ...fanOut };
  }

  /** The rules a template must meet before it is stored: its kind and body part, consent, size, algorithm. */
  private async checked(tx: Tx, enrolleeId: string, input: StoreTemplateInput): Promise<Part> {
    const { settings } = this.ctx;
    const type = input.type ?? 'fingerprint';
    const slot = input.slot ?? 0;
    checkKind(settings, type, input.fingerIndex, slot);
    if (settings.ENROLLMENT_REQUIRE_CONSENT && !(await hasConsent(tx, enrolleeId))) {
      throw new FpaError('consent_required', 'consent is required before a template is stored', { enrollee: enrolleeId });
    }
    this.checkSize(input.data.byteLength, type);
    const algorithmVersion = input.algorithmVersion.trim();
    if (algorithmVersion === '' || algorithmVersion.length > 32) {
      throw new FpaError('validation_error', 'algorithm_version must be 1 to 32 characters', { field: 'algorithm_version' });
    }
    return { type, fingerIndex: input.fingerIndex, slot, algorithmVersion };
  }

  /** Encrypts and stores the template: a new version of the same part and algorithm, or a new one (within FINGERS_ALLOWED_MAX). */
  private async write(tx: Tx, enrolleeId: string, part: Part, input: StoreTemplateInput, now: number): Promise<{ id: string; version: number }> {
    const { settings, keyRing } = this.ctx;
    const existing = await tx
      .select({
        ...templateIdentity,
      })
      .from(templates)
      .where(eq(templates.enrolleeId, enrolleeId));
    // FINGERS_ALLOWED_MAX counts fingers; a face or a palm is not a finger.
    const fingers = new Set(existing.filter((t) => t.type === 'fingerprint').map((t) => t.fingerIndex));
    if (part.type === 'fingerprint') fingers.add(part.fingerIndex);
    if (fingers.size > settings.FINGERS_ALLOWED_MAX) {
      throw new FpaError('too_many_fingers', `an enrollee may have at most ${settings.FINGERS_ALLOWED_MAX} fingers`, {
        max: settings.FINGERS_ALLOWED_MAX,
        fingers: [...fingers].sort((a, b) => a - b),
      });
    }

    const previous = existing.find(
      (t) => t.type === part.type && t.fingerIndex === part.fingerIndex && t.slot === part.slot && sameVersion(t.algorithmVersion, part.algorithmVersion),
    );
    const id = previous?.id ?? crypto.randomUUID();
    const version = (previous?.version ?? 0) + 1;
    const ciphertext = await keyRing.encrypt(input.data, templateAad(enrolleeId, part.fingerIndex, version, { type: part.type, slot: part.slot }));
    const row = {
      id,
      enrolleeId,
      ...part,
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
    return { id, version };
  }

  checkSize(bytes: number, type: BiometricType = 'fingerprint'): void {
    if (bytes <= 0) throw new FpaError('invalid_template', 'the template is empty', {});
    const max = maxBytes(this.ctx.settings, type);
    if (bytes > max) throw new FpaError('template_too_large', `the ${type} template is ${bytes} bytes; the limit is ${max}`, { size: bytes, max, type });
  }

  /**
   * Walk-up: when a terminal uploads exactly the bytes already stored for this finger and
   * algorithm (a resend, or the terminal echoing what the server sent it), the template is
   * only marked present there and returned (else null): no new version, which would otherwise
   * bounce between terminals for ever.
   */
  async markPresentIfSame(
    w: WriteContext,
    deviceId: string,
    upload: { enrolleeId: string; type: BiometricType; fingerIndex: number; slot: number; algorithmVersion: string; duress: boolean; data: Uint8Array },
  ): Promise<{ id: string; version: number } | null> {
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
    if (!current || current.sizeBytes !== upload.data.byteLength || current.duress !== upload.duress) return null;
    let plain: Uint8Array;
    try {
      plain = await this.ctx.keyRing.decrypt(new Uint8Array(current.ciphertext), aadOf(current));
    } catch {
      // Unreadable (a key removed too early): store the upload as a new version instead.
      return null;
    }
    if (!Buffer.from(plain).equals(Buffer.from(upload.data))) return null;
    await upsertSync(w.tx, [{ templateId: current.id, deviceId, status: 'present', templateVersion: current.version, updatedAt: this.ctx.clock.now() }]);
    return { id: current.id, version: current.version };
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
   * Destroys every template of an enrollee (consent withdrawn, deletion, retention) and queues
   * deletes to the devices that hold or were about to receive them; with `deleteUserFromDevices`
   * the whole user goes from every terminal that may hold them (and the parts refused as theirs
   * elsewhere, one by one: fan-out.ts `takeOffEveryTerminal`).
   */
  async destroyTemplatesIn(
    w: WriteContext,
    enrollee: { id: string; devicePin: string },
    reason: string,
    by: string,
    options: { deleteUserFromDevices?: boolean; at?: number } = {},
  ): Promise<number> {
    const { tx } = w;
    // The instant of the withdrawal or deletion that asked for it, when there is one: its audit
    // entries, its consent record and the deletion proof (onDestroyed) all say it.
    const now = options.at ?? this.ctx.clock.now();
    const rows = await tx
      .select({ id: templates.id, type: templates.type, fingerIndex: templates.fingerIndex, slot: templates.slot })
      .from(templates)
      .where(eq(templates.enrolleeId, enrollee.id));
    const templateIds = rows.map((r) => r.id);
    if (options.deleteUserFromDevices) {
      await this.fanOut.takeOffEveryTerminal(w, enrollee);
    } else {
      await this.fanOut.deleteFromHolders(w, enrollee, rows);
      await this.fanOut.clearWhatWasNotStored(w, enrollee.id, rows);
    }
    if (templateIds.length > 0) {
      await tx.delete(templateSync).where(inArray(templateSync.templateId, templateIds));
      // Zeroed in the database's pages (secure delete, platform/db/client.ts); the WAL's older
      // frames still hold them until it is emptied, once this has committed.
      await tx.delete(templates).where(inArray(templates.id, templateIds));
      w.afterCommit(() => void this.eraseOldFrames());
    }
    await audit(tx, now, {
      actor: by,
      action: 'templates.destroyed',
      targetType: 'enrollee',
      targetId: enrollee.id,
      details: { count: templateIds.length, reason },
    });
    // Announced when something was destroyed; the audit entry above is the record that nothing was held.
    if (templateIds.length > 0) await this.events.record(w, 'templates_destroyed', { enrollee: enrollee.id, count: templateIds.length, reason }, { at: now });
    for (const hook of this.destroyedHooks) await hook(w, { enrollee: enrollee.id, count: templateIds.length, reason, at: now });
    return templateIds.length;
  }

  onDestroyed(hook: TemplatesDestroyed): void {
    this.destroyedHooks.push(hook);
  }

  /** Empties the WAL after templates were destroyed (platform/db/erase.ts); says so when it cannot yet. */
  private async eraseOldFrames(): Promise<void> {
    if (await emptyWal(this.ctx.db)) return;
    this.ctx.log.warn('templates destroyed, but the WAL could not be emptied yet: its older frames hold their encrypted bytes until the next checkpoints');
  }

  /** Whether anything of the enrollee's is left to destroy: a stored template, or their data on a terminal (fan-out.ts `holdsAnythingOf`). */
  async anythingLeftOf(q: Queryable, enrolleeId: string): Promise<boolean> {
    const [stored] = await q.select({ id: templates.id }).from(templates).where(eq(templates.enrolleeId, enrolleeId)).limit(1);
    return stored !== undefined || (await this.fanOut.holdsAnythingOf(q, enrolleeId));
  }

  /**
   * Template metadata of an enrollee with per-device sync status; never the bytes. Each terminal's
   * `status` is about its `version` (the template's, or an earlier one a later version did not
   * replace there), and `held_version` is the version it confirmed it holds.
   */
  async listTemplates(enrolleeId: string, q: Queryable = this.ctx.db.orm) {
    const rows = await q
      .select({
        ...templateIdentity,
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
        .map((s) => ({
          device: devices.get(s.deviceId)!,
          status: s.status,
          version: s.templateVersion,
          held_version: s.heldVersion,
          detail: s.detail,
          updated_at: new Date(s.updatedAt).toISOString(),
        })),
    }));
  }

  /**
   * The kinds of biometric (`fingerprint`, `face`…) each terminal holds for each person (a version
   * of their templates it confirmed, the newest or not), keyed `enrollee device`: what a punch
   * there could have been verified with.
   */
  async kindsHeldOn(q: Queryable, pairs: readonly { enrolleeId: string; deviceId: string }[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    const wanted = new Set(pairs.map((p) => `${p.enrolleeId} ${p.deviceId}`));
    const deviceIds = [...new Set(pairs.map((p) => p.deviceId))];
    for (const ids of chunks([...new Set(pairs.map((p) => p.enrolleeId))], 500)) {
      const rows = await q
        .selectDistinct({ enrolleeId: templates.enrolleeId, deviceId: templateSync.deviceId, type: templates.type })
        .from(templates)
        .innerJoin(templateSync, eq(templateSync.templateId, templates.id))
        .where(and(inArray(templates.enrolleeId, ids), inArray(templateSync.deviceId, deviceIds), holdsSome));
      for (const r of rows) {
        const key = `${r.enrolleeId} ${r.deviceId}`;
        if (wanted.has(key)) out.set(key, [...(out.get(key) ?? []), r.type].sort());
      }
    }
    return out;
  }

  /** Finger indexes stored per enrollee. */
  async fingersOf(q: Queryable, enrolleeIds: readonly string[]): Promise<Map<string, number[]>> {
    const parts = await this.partsOf(q, enrolleeIds);
    return new Map([...parts].flatMap(([id, p]) => (p.fingerprint ? [[id, p.fingerprint] as const] : [])));
  }

  /** Body parts stored per enrollee and kind (a palm of five templates is one part), for those who have any. */
  async partsOf(q: Queryable, enrolleeIds: readonly string[]): Promise<Map<string, Partial<Record<BiometricType, number[]>>>> {
    const out = new Map<string, Partial<Record<BiometricType, number[]>>>();
    for (const ids of chunks(enrolleeIds, 500)) {
      const rows = await q
        .selectDistinct({ enrolleeId: templates.enrolleeId, type: templates.type, index: templates.fingerIndex })
        .from(templates)
        .where(inArray(templates.enrolleeId, ids));
      for (const r of rows) {
        const of = out.get(r.enrolleeId) ?? {};
        of[r.type] = [...(of[r.type] ?? []), r.index].sort((a, b) => a - b);
        out.set(r.enrolleeId, of);
      }
    }
    return out;
  }

  /**
   * Retention: destroys the templates of enrollees deactivated before `deactivatedBefore`
   * (deletes are queued to the terminals), a few enrollees per transaction.
   */
  async destroyOfDeactivated(deactivatedBefore: number): Promise<number> {
    const q = this.ctx.db.orm;
    const owners = (await q.selectDistinct({ id: templates.enrolleeId }).from(templates)).map((r) => r.id);
    const due = await this.enrollees.retention.deactivatedBefore(q, deactivatedBefore, owners);
    let total = 0;
    for (const batch of chunks(due, TEMPLATE_BATCH)) {
      total += await this.ctx.db.write(async (w) => {
        let n = 0;
        for (const enrollee of batch) {
          // Re-checked inside the transaction: the enrollee may have been reactivated meanwhile.
          const current = await this.enrollees.find(w.tx, enrollee.id);
          if (current?.status !== 'deactivated' || current.deactivatedAt === null || current.deactivatedAt >= deactivatedBefore) continue;
          n += await this.destroyTemplatesIn(w, current, 'retention: deactivated enrollee', 'system');
        }
        return n;
      });
    }
    return total;
  }
}

/** Enrollees whose templates are destroyed per transaction (each queues device commands). */
const TEMPLATE_BATCH = 50;

/** The AAD of a stored row (its kind and slot are bound in for every kind but fingerprints). */
function aadOf(row: { enrolleeId: string; type: string; fingerIndex: number; slot: number; version: number }) {
  return templateAad(row.enrolleeId, row.fingerIndex, row.version, { type: row.type, slot: row.slot });
}
