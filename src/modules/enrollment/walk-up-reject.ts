/**
 * A walk-up upload refused (walk-up.ts): logged on the terminal and as `template_rejected`
 * (never the bytes), and deleted from the terminal with DELETE_REJECTED_DEVICE_TEMPLATES, or else
 * noted on its user there. A part refused as the part of a person whose deletion was asked
 * (consent withdrawn and not given again, or the person deleted) is deleted whatever that
 * setting: it is their data come back on a terminal after its delete, which no later withdrawal
 * would remove, and their deletion proof waits for that delete (proofs/reactions.ts).
 */
import type { Queryable, WriteContext } from '../../platform/db/client';
import type { BiometricType } from '../../protocol/adms';
import type { CommandService, NewCommand } from '../commands';
import { type DeviceRow, type DeviceService, deviceRef, noteOnDevice, noteRefused } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { EventChannel } from '../events';
import { hasConsent, lastWithdrawnAt } from './consent-records';
import type { EnrollmentEvents } from './events';
import { deleteKey, userCommand, userCommandKey } from './fan-out';
import type { RemoteEnrollment } from './remote-sessions';
import type { EnrollmentRuntime } from './runtime';

/** A biometric a terminal holds that the service does not keep (walk-up.ts `HeldBiometric`). */
interface HeldBiometric {
  pin: string;
  type: string;
  index: number;
}

/** What a refusal tells of the upload (walk-up.ts `TemplateUpload`). */
interface RefusedUpload {
  pin: string;
  type?: BiometricType;
  fingerIndex: number;
  origin: string;
}

export interface Refusal {
  /** The `template_rejected` reason (`consent_required`, `not_in_scope`, `unknown_pin`…). */
  reason: string;
  message: string;
  /** The enrollee the part was taken to be (null: nobody's, an unknown PIN). */
  whose: string | null;
  /** The enrollee the part is noted as refused for when it is left on the terminal (null: nobody). */
  refusedFor: string | null;
}

export interface RejectionDeps {
  ctx: EnrollmentRuntime;
  events: EventChannel<EnrollmentEvents>;
  devices: DeviceService;
  enrollees: EnrolleeService;
  remote: RemoteEnrollment;
  commands: CommandService;
}

/** Logs a refused upload and queues its delete (or notes it on the terminal's user), in one write. */
export async function rejectUpload(deps: RejectionDeps, device: DeviceRow, upload: RefusedUpload, refusal: Refusal): Promise<void> {
  const { ctx, commands, enrollees, remote } = deps;
  const { reason, message, whose } = refusal;
  const now = ctx.clock.now();
  const type = upload.type ?? 'fingerprint';
  const what = type === 'fingerprint' ? `finger ${upload.fingerIndex}` : `${type} ${upload.fingerIndex}`;
  await ctx.db.write(async (w) => {
    const { tx } = w;
    const asked = whose !== null && (await deletionAsked(deps, tx, whose));
    const deleting = ctx.settings.DELETE_REJECTED_DEVICE_TEMPLATES || asked;
    // Refused only for want of consent: recording it drops this delete while unsent (consentMissing, reactions.ts).
    const consentMissing = reason === 'consent_required' && !asked;
    await noteOnDevice(
      tx,
      device.id,
      'template_rejected',
      `template of PIN ${upload.pin}, ${what} rejected: ${message}`,
      { pin: upload.pin, type, finger_index: upload.fingerIndex, reason, origin: upload.origin, delete_queued: deleting },
      now,
    );
    if (!deleting) {
      // Left on the terminal: noted on its user there, and as that enrollee's part, so their withdrawal or deletion deletes it.
      await deps.devices.users.noteBiometric(tx, device.id, upload.pin, type, upload.fingerIndex);
      if (refusal.refusedFor) await noteRefused(tx, device.id, upload.pin, refusal.refusedFor, { type, index: upload.fingerIndex });
    } else {
      await commands.enqueue(w, [
        {
          deviceId: device.id,
          kind: 'delete_template',
          payload: { pin: upload.pin, fingerIndex: upload.fingerIndex, type, rejected: true, ...(consentMissing ? { consentMissing } : {}) },
          supersedeKey: deleteKey(upload.pin, { type, fingerIndex: upload.fingerIndex }),
        },
      ]);
    }
    const person = await enrollees.findByPin(tx, upload.pin);
    const session = person ? await remote.openSessionFor(tx, device.id, person.id) : null;
    if (session?.biometric === type) await remote.failOnRejection(w, session, upload.fingerIndex, message);
    await deps.events.record(w, 'template_rejected', { device: deviceRef(device), pin: upload.pin, index: upload.fingerIndex, type, reason, enrollee: whose });
  });
  ctx.log.info('walk-up template rejected', { device: device.serialNumber, pin: upload.pin, type, index: upload.fingerIndex, reason });
}

/**
 * Biometrics the service does not keep (a face photo, a user photo, a legacy face or vein…) a
 * terminal reported, on its user linked to a person whose deletion was asked: they cannot be
 * deleted one by one, so that user is deleted there (which takes every biometric) and, where the
 * person still belongs (active, an approved terminal), put back without them, as their withdrawal
 * did (fan-out.ts `clearWhatWasNotStored`). Logged and announced as a refusal, so that their
 * deletion proof waits for that delete.
 */
export async function refuseUnkeptOfDeleted(deps: RejectionDeps, w: WriteContext, device: DeviceRow, parts: readonly HeldBiometric[]): Promise<void> {
  const { tx } = w;
  const now = deps.ctx.clock.now();
  for (const pin of new Set(parts.map((p) => p.pin))) {
    const user = await deps.devices.users.one(tx, device.id, pin);
    if (!user?.enrolleeId || !(await deletionAsked(deps, tx, user.enrolleeId))) continue;
    const person = await deps.enrollees.find(tx, user.enrolleeId);
    const commands: NewCommand[] = [{ deviceId: device.id, kind: 'delete_user', payload: { pin }, supersedeKey: userCommandKey(pin) }];
    if (person?.status === 'active' && device.status === 'approved') commands.push(userCommand(device.id, person));
    await deps.commands.enqueue(w, commands);
    const reason = person?.status === 'deleted' ? 'unknown_pin' : 'consent_required';
    for (const b of parts.filter((p) => p.pin === pin)) {
      const message = `${b.type} ${b.index} of PIN ${pin} refused: the person's ${reason === 'unknown_pin' ? 'record was deleted' : 'consent was withdrawn'}; the user is deleted there${commands.length > 1 ? ' and put back without it' : ''}`;
      await noteOnDevice(tx, device.id, 'template_rejected', message, { pin, type: b.type, finger_index: b.index, reason, delete_queued: true }, now);
      await deps.events.record(w, 'template_rejected', { device: deviceRef(device), pin, index: b.index, type: b.type, reason, enrollee: user.enrolleeId });
    }
  }
}

/** The person was deleted, or their consent withdrawn and not given again: nothing of theirs may stay on a terminal. */
async function deletionAsked(deps: RejectionDeps, tx: Queryable, enrolleeId: string): Promise<boolean> {
  const person = await deps.enrollees.find(tx, enrolleeId);
  if (!person || person.status === 'deleted') return person !== null;
  return !(await hasConsent(tx, enrolleeId)) && (await lastWithdrawnAt(tx, enrolleeId)) !== null;
}
