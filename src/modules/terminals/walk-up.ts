/**
 * Walk-up enrollment: templates a terminal uploads (OPERLOG `FP`, `BIODATA` Type=1, 3.x
 * `templatev10`) are matched to an enrollee by PIN and go through store_template, marked
 * present on the uploading terminal and queued to the other in-scope ones. A template that
 * breaks a rule (unknown PIN, no consent, disallowed finger, too large, too many fingers) is
 * rejected and logged — a device event and a `template_rejected` event — and, with
 * DELETE_REJECTED_DEVICE_TEMPLATES, deleted from that terminal. No HTTP error either way.
 *
 * A duress finger stays one: the flag is stored with the template and sent to the other
 * terminals with it.
 *
 * Each template is stored in its own small write, so one rejection never rolls back another.
 * A re-upload of the bytes already stored (a resent batch, or a terminal echoing a template
 * the server sent it) only marks the template present there: it never makes a new version,
 * which would otherwise bounce between terminals for ever.
 */
import { and, eq, ne, sql } from 'drizzle-orm';
import type { Core } from '../../app/core';
import type { WriteContext } from '../../platform/db/client';
import { enrollees, templates, templateSync } from '../../app/schema';
import { logEvent, type DeviceRow } from '../devices/service';
import type { RemoteEnrollment } from '../enrollment/remote-sessions';
import { FpaError, type ErrorCode } from '../../platform/errors';
import { templateAad } from '../biometrics/aad';
import { sameVersion } from '../biometrics/service';

export interface TemplateUpload {
  pin: string;
  fingerIndex: number;
  /** Base64 as sent (already checked to be base64 by the parser). */
  template: string;
  algorithmVersion: string;
  /** A duress finger (FP `Valid=3`, BIODATA `Duress=1`, `templatev10` fingerid ≥ 16). */
  duress: boolean;
  /** The record kind it came in (`FP`, `BIODATA`, `templatev10`), for the logs. */
  origin: string;
}

export type UploadOutcome = 'stored' | 'unchanged' | 'rejected';

/** store_template refusals that reject the upload; anything else is a server failure. */
const REJECTIONS = new Set<ErrorCode>([
  'not_found',
  'enrollee_inactive',
  'consent_required',
  'finger_not_allowed',
  'template_too_large',
  'too_many_fingers',
  'invalid_template',
  'validation_error',
]);

class UnknownPin extends Error {}

export class WalkUpEnrollment {
  constructor(
    private readonly core: Core,
    private readonly remote: RemoteEnrollment,
  ) {}

  async accept(device: DeviceRow, upload: TemplateUpload): Promise<UploadOutcome> {
    const data = new Uint8Array(Buffer.from(upload.template, 'base64'));
    try {
      return await this.core.ctx.db.write((w) => this.store(w, device, upload, data));
    } catch (error) {
      if (error instanceof UnknownPin) {
        await this.reject(device, upload, 'unknown_pin', 'no enrollee has this PIN');
        return 'rejected';
      }
      if (error instanceof FpaError && REJECTIONS.has(error.code)) {
        const reason = error.code === 'not_found' ? 'unknown_pin' : error.code;
        await this.reject(device, upload, reason, error.message);
        return 'rejected';
      }
      throw error;
    }
  }

  private async store(w: WriteContext, device: DeviceRow, upload: TemplateUpload, data: Uint8Array): Promise<UploadOutcome> {
    const { tx } = w;
    const person = await tx.query.enrollees.findFirst({ where: and(eq(enrollees.devicePin, upload.pin), ne(enrollees.status, 'deleted')) });
    if (!person) throw new UnknownPin();
    const session = await this.remote.openSessionFor(tx, device.id, person.id);
    const requested = session?.fingersRequested.includes(upload.fingerIndex) ?? false;
    if (await this.alreadyStored(w, device, person.id, upload, data)) {
      if (session && requested) await this.remote.recordCapture(w, session, upload.fingerIndex);
      return 'unchanged';
    }
    await this.core.templates.storeTemplateIn(w, {
      enrolleeId: person.id,
      fingerIndex: upload.fingerIndex,
      data,
      algorithmVersion: upload.algorithmVersion,
      duress: upload.duress,
      source: requested ? 'remote' : 'device',
      sourceDeviceId: device.id,
      by: `device:${device.serialNumber}`,
    });
    if (session && requested) await this.remote.recordCapture(w, session, upload.fingerIndex);
    return 'stored';
  }

  /** True (and the template marked present on this terminal) when these bytes are the stored ones. */
  private async alreadyStored(w: WriteContext, device: DeviceRow, enrolleeId: string, upload: TemplateUpload, data: Uint8Array): Promise<boolean> {
    const rows = await w.tx.select().from(templates).where(and(eq(templates.enrolleeId, enrolleeId), eq(templates.fingerIndex, upload.fingerIndex)));
    const current = rows.find((t) => sameVersion(t.algorithmVersion, upload.algorithmVersion));
    // A finger that became (or stopped being) a duress finger is a new version, sent to the others.
    if (!current || current.sizeBytes !== data.byteLength || current.duress !== upload.duress) return false;
    let plain: Uint8Array;
    try {
      plain = await this.core.ctx.keyRing.decrypt(new Uint8Array(current.ciphertext), templateAad(current.enrolleeId, current.fingerIndex, current.version));
    } catch {
      // Unreadable (a key removed too early): store the upload as a new version instead.
      return false;
    }
    if (!Buffer.from(plain).equals(Buffer.from(data))) return false;
    const now = this.core.ctx.clock.now();
    await w.tx
      .insert(templateSync)
      .values({ templateId: current.id, deviceId: device.id, status: 'present', templateVersion: current.version, updatedAt: now })
      .onConflictDoUpdate({
        target: [templateSync.templateId, templateSync.deviceId],
        set: { status: 'present', templateVersion: sql`excluded.template_version`, detail: null, updatedAt: sql`excluded.updated_at` },
      });
    return true;
  }

  /** Logs a rejection (never the template bytes) and queues the delete when configured. */
  private async reject(device: DeviceRow, upload: TemplateUpload, reason: string, message: string): Promise<void> {
    const { ctx, commands } = this.core;
    const now = ctx.clock.now();
    const deleting = ctx.settings.DELETE_REJECTED_DEVICE_TEMPLATES;
    await ctx.db.write(async (w) => {
      const { tx, afterCommit } = w;
      await logEvent(
        tx,
        device.id,
        'template_rejected',
        `template of PIN ${upload.pin}, finger ${upload.fingerIndex} rejected: ${message}`,
        { pin: upload.pin, finger_index: upload.fingerIndex, reason, origin: upload.origin, delete_queued: deleting },
        now,
      );
      if (deleting) {
        await commands.enqueue(
          tx,
          [{ deviceId: device.id, kind: 'delete_template', payload: { pin: upload.pin, fingerIndex: upload.fingerIndex }, supersedeKey: `tpl:${upload.pin}:${upload.fingerIndex}` }],
          afterCommit,
        );
      }
      const person = await tx.query.enrollees.findFirst({ where: and(eq(enrollees.devicePin, upload.pin), ne(enrollees.status, 'deleted')) });
      const session = person ? await this.remote.openSessionFor(tx, device.id, person.id) : null;
      if (session) await this.remote.failOnRejection(w, session, upload.fingerIndex, message);
      afterCommit(() => ctx.events.emit('template_rejected', { deviceId: device.id, pin: upload.pin, fingerIndex: upload.fingerIndex, reason }));
    });
    ctx.log.info('walk-up template rejected', { device: device.serialNumber, pin: upload.pin, finger: upload.fingerIndex, reason });
  }
}
