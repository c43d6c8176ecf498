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
import type { WriteContext } from '../../platform/db/client';
import { type ErrorCode, FpaError } from '../../platform/errors';
import type { Runtime } from '../../platform/runtime';
import type { Biometrics } from '../biometrics';
import type { CommandService } from '../commands';
import { type DeviceRow, deviceRef, noteOnDevice } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { Enrollment } from '../enrollment';
import type { EventChannel } from '../events';
import type { TerminalEvents } from './events';

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
    private readonly ctx: Runtime,
    private readonly events: EventChannel<TerminalEvents>,
    private readonly deps: { enrollees: EnrolleeService; biometrics: Biometrics; enrollment: Enrollment; commands: CommandService },
  ) {}

  async accept(device: DeviceRow, upload: TemplateUpload): Promise<UploadOutcome> {
    const data = new Uint8Array(Buffer.from(upload.template, 'base64'));
    try {
      return await this.ctx.db.write((w) => this.store(w, device, upload, data));
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
    const { enrollees, biometrics, enrollment } = this.deps;
    const person = await enrollees.findByPin(w.tx, upload.pin);
    if (!person) throw new UnknownPin();
    const session = await enrollment.remote.openSessionFor(w.tx, device.id, person.id);
    const requested = session?.fingersRequested.includes(upload.fingerIndex) ?? false;
    const same = await biometrics.templates.markPresentIfSame(w, device.id, {
      enrolleeId: person.id,
      fingerIndex: upload.fingerIndex,
      algorithmVersion: upload.algorithmVersion,
      duress: upload.duress,
      data,
    });
    if (!same) {
      await biometrics.templates.storeTemplateIn(w, {
        enrolleeId: person.id,
        fingerIndex: upload.fingerIndex,
        data,
        algorithmVersion: upload.algorithmVersion,
        duress: upload.duress,
        source: requested ? 'remote' : 'device',
        sourceDeviceId: device.id,
        by: `device:${device.serialNumber}`,
      });
    }
    if (session && requested) await enrollment.remote.recordCapture(w, session, upload.fingerIndex);
    return same ? 'unchanged' : 'stored';
  }

  /** Logs a rejection (never the template bytes) and queues the delete when configured. */
  private async reject(device: DeviceRow, upload: TemplateUpload, reason: string, message: string): Promise<void> {
    const { ctx } = this;
    const { commands, enrollees, enrollment } = this.deps;
    const now = ctx.clock.now();
    const deleting = ctx.settings.DELETE_REJECTED_DEVICE_TEMPLATES;
    await ctx.db.write(async (w) => {
      const { tx } = w;
      await noteOnDevice(
        tx,
        device.id,
        'template_rejected',
        `template of PIN ${upload.pin}, finger ${upload.fingerIndex} rejected: ${message}`,
        { pin: upload.pin, finger_index: upload.fingerIndex, reason, origin: upload.origin, delete_queued: deleting },
        now,
      );
      if (deleting) {
        await commands.enqueue(w, [
          {
            deviceId: device.id,
            kind: 'delete_template',
            payload: { pin: upload.pin, fingerIndex: upload.fingerIndex },
            supersedeKey: `tpl:${upload.pin}:${upload.fingerIndex}`,
          },
        ]);
      }
      const person = await enrollees.findByPin(tx, upload.pin);
      const session = person ? await enrollment.remote.openSessionFor(tx, device.id, person.id) : null;
      if (session) await enrollment.remote.failOnRejection(w, session, upload.fingerIndex, message);
      await this.events.record(w, 'template_rejected', { device: deviceRef(device), pin: upload.pin, index: upload.fingerIndex, type: 'fingerprint', reason });
    });
    ctx.log.info('walk-up template rejected', { device: device.serialNumber, pin: upload.pin, finger: upload.fingerIndex, reason });
  }
}
