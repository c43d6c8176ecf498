/**
 * Remote enrollment: an administrator asks a terminal to enroll fingers of one enrollee
 * (docs/spec.md `start_enrollment_session(enrollee, device, fingers)`). The terminal gets the user
 * record and then one ENROLL_FP (or ENROLL_BIO) per finger. The session completes when the
 * terminal has uploaded every requested finger, fails when an enroll command fails, and
 * expires after ENROLLMENT_SESSION_TTL.
 *
 * Enroll commands go one at a time: the next finger is queued once the previous command has
 * a result (or its template arrived), because a terminal in an enrollment prompt cannot run a
 * second one (docs/protocol/adms.md §5.5) — the finger would fail with "busy" for no reason.
 *
 * The session's own templates are the enrollee's even before the terminal answered the user
 * query of its approval (walk-up.ts asks `askedFor`). A part the terminal answered as enrolled whose
 * template has not arrived is said on the open session (`reason`); such a session no longer
 * holds the terminal once nothing else is outstanding: a new session fails it.
 *
 * The uploaded templates still pass store_template's rules, consent included; consent is
 * therefore checked when the session starts too, so nobody is asked to press a finger whose
 * template would be refused.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Queryable, Tx, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { type BiometricType, biometricCapability } from '../../protocol/adms';
import { audit } from '../audit';
import { type CommandEvents, type CommandService, describeReturnCode, type NewCommand, wentOut } from '../commands';
import { type DeviceRow, type DeviceService, takesBiodata } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { LoggedEvent } from '../events';
import { hasConsent } from './consent-records';
import { userCommand, userCommandKey } from './fan-out';
import { checkKind } from './kinds';
import type { EnrollmentRuntime } from './runtime';
import { isOpen, OPEN_STATUSES, type SessionRow, type SessionStore, type SessionView } from './sessions';
import { enrollmentSessions } from './tables';

const ENROLL_KINDS = ['ENROLL_FP', 'ENROLL_BIO'] as const;

export interface StartRemoteEnrollment {
  /** Serial number of an approved terminal. */
  device: string;
  /** Default `fingerprint`; a face or palm needs a terminal that declares it. */
  type?: BiometricType;
  /** Fingers, or palms (0 left, 1 right); a face is 0 (the default for faces). */
  fingers?: number[];
  by: string;
}

export class RemoteEnrollment {
  constructor(
    private readonly ctx: EnrollmentRuntime,
    private readonly sessions: SessionStore,
    private readonly commands: CommandService,
    private readonly enrollees: EnrolleeService,
    private readonly devices: DeviceService,
  ) {}

  /** Starts a remote session; `enrollee` is its UUID or device PIN. */
  async start(enrollee: string, options: StartRemoteEnrollment): Promise<SessionView> {
    const { ctx } = this;
    const type = options.type ?? 'fingerprint';
    const fingers = type === 'fingerprint' ? this.sessions.validateFingers(options.fingers) : this.validateParts(type, options.fingers ?? [0]);
    const session = await ctx.db.write(async (w) => {
      const { tx } = w;
      const device = await this.devices.get(options.device, tx);
      if (device.status !== 'approved') {
        throw new FpaError('device_not_approved', 'remote enrollment needs an approved device', { serial_number: device.serialNumber, status: device.status });
      }
      const declared = biometricCapability(device.parameters, type).supported;
      // Fingers: refused only where the terminal said it has no reader; older firmware says nothing.
      if (type === 'fingerprint' ? declared === false : declared !== true) {
        throw new FpaError('command_not_supported', `the terminal has not declared ${type} support`, { serial_number: device.serialNumber, type });
      }
      const person = await this.enrollees.findByIdOrPin(tx, enrollee);
      if (!person) throw new FpaError('not_found', 'enrollee not found', { enrollee });
      if (person.status !== 'active') throw new FpaError('enrollee_inactive', 'the enrollee is deactivated', { enrollee: person.id });
      if (!(await this.enrollees.membership.sharesArea(tx, person.id, await this.devices.areaIdsOf(tx, device.id)))) {
        throw new FpaError('not_in_scope', 'the enrollee is not in the scope (areas) of this device', {
          enrollee: person.id,
          serial_number: device.serialNumber,
        });
      }
      if (ctx.settings.ENROLLMENT_REQUIRE_CONSENT && !(await hasConsent(tx, person.id))) {
        throw new FpaError('consent_required', 'consent is required before a template is stored', { enrollee: person.id });
      }
      await this.ensureFree(w, device);
      const row = await this.sessions.insert(tx, {
        kind: 'remote',
        enrolleeId: person.id,
        deviceId: device.id,
        biometric: type,
        fingers,
        createdBy: options.by,
      });
      await this.commands.enqueue(w, [userCommand(device.id, person)]);
      await this.queueNextFinger(w, row, device);
      await audit(tx, ctx.clock.now(), {
        actor: options.by,
        action: 'enrollment.remote_started',
        targetType: 'enrollee',
        targetId: person.id,
        details: { session: row.id, device: device.serialNumber, type, fingers },
      });
      return row;
    });
    return this.sessions.view(session);
  }

  /** Body parts of a face or palm to enroll: allowed for the kind, unique. */
  private validateParts(type: BiometricType, parts: number[]): number[] {
    const unique = [...new Set(parts)].sort((a, b) => a - b);
    if (unique.length === 0) throw new FpaError('validation_error', 'give the body parts to enroll', { field: 'fingers' });
    for (const no of unique) checkKind(this.ctx.settings, type, no, 0);
    return unique;
  }

  /** The open remote session of this terminal for this enrollee, if any. */
  async openSessionFor(q: Queryable, deviceId: string, enrolleeId: string): Promise<SessionRow | null> {
    const now = this.ctx.clock.now();
    const rows = await q
      .select()
      .from(enrollmentSessions)
      .where(
        and(
          eq(enrollmentSessions.kind, 'remote'),
          eq(enrollmentSessions.deviceId, deviceId),
          eq(enrollmentSessions.enrolleeId, enrolleeId),
          inArray(enrollmentSessions.status, [...OPEN_STATUSES]),
        ),
      );
    return rows.find((s) => s.expiresAt > now) ?? null;
  }

  /**
   * The open session of this terminal for this enrollee that asked for this part: its enroll
   * command for it went out (sent, or already answered). `userSent`: the service's own user record
   * of the enrollee went to the terminal just before that command (sent or confirmed), so the
   * terminal's user with that PIN is the one the service wrote, whatever it held before.
   */
  async askedFor(
    q: Queryable,
    deviceId: string,
    enrollee: { id: string; devicePin: string },
    type: string,
    part: number,
  ): Promise<{ session: SessionRow; userSent: boolean } | null> {
    const session = await this.openSessionFor(q, deviceId, enrollee.id);
    if (!session || session.biometric !== type || !session.fingersRequested.includes(part)) return null;
    const commands = await this.commands.lookups.ofSession(q, session.id, ENROLL_KINDS);
    const enroll = commands.find((c) => reachedTerminal(c) && Number(c.payload.fingerIndex) === part);
    if (!enroll) return null;
    return { session, userSent: await userRecordReached(q, this.commands, deviceId, enrollee, enroll.id) };
  }

  /**
   * A template of a requested finger arrived from the session's terminal (inside the write
   * that stored it): the finger counts as captured; all captured completes the session.
   */
  async recordCapture(w: WriteContext, session: SessionRow, fingerIndex: number): Promise<SessionRow> {
    const { tx } = w;
    if (!session.fingersRequested.includes(fingerIndex)) return session;
    const captured = [...new Set([...session.fingersCaptured, fingerIndex])].sort((a, b) => a - b);
    const now = this.ctx.clock.now();
    await tx
      .update(enrollmentSessions)
      .set({ fingersCaptured: captured, status: 'in_progress', reason: null, updatedAt: now })
      .where(eq(enrollmentSessions.id, session.id));
    const updated: SessionRow = { ...session, fingersCaptured: captured, status: 'in_progress', reason: null, updatedAt: now };
    if (session.fingersRequested.every((f) => captured.includes(f))) {
      return this.sessions.close(w, updated, 'completed', null);
    }
    const device = session.deviceId ? await this.devices.findById(tx, session.deviceId) : null;
    if (device) await this.queueNextFinger(w, updated, device);
    return updated;
  }

  /**
   * One remote session per terminal (`device_busy`), since a terminal in an enrollment prompt
   * cannot run a second one. A session that only waits for templates its terminal said it enrolled
   * (every enroll command answered, nothing left to ask) no longer holds the prompt: it fails,
   * saying which parts never arrived, and the new session goes ahead.
   */
  private async ensureFree(w: WriteContext, device: DeviceRow): Promise<void> {
    for (const open of await openRemoteSessions(w.tx, device.id, this.ctx.clock.now())) {
      const missing = await this.onlyWaitingFor(w.tx, open);
      if (!missing) {
        throw new FpaError('device_busy', 'a remote enrollment is already running on this device', { serial_number: device.serialNumber, session: open.id });
      }
      await this.sessions.close(w, open, 'failed', `${waitingReason(open, missing, true)}; another remote enrollment was started on the terminal`);
    }
  }

  /**
   * The parts the terminal enrolled (their command succeeded) whose template has not arrived, when
   * that is all the session still waits for; null while an enroll command is outstanding or a part
   * is left to ask for.
   */
  private async onlyWaitingFor(q: Queryable, session: SessionRow): Promise<number[] | null> {
    const existing = await this.commands.lookups.ofSession(q, session.id, ENROLL_KINDS);
    if (existing.some((c) => c.status === 'pending' || c.status === 'sent')) return null;
    const enrolled = new Set(existing.filter((c) => c.status === 'succeeded').map((c) => Number(c.payload.fingerIndex)));
    const missing = session.fingersRequested.filter((f) => !session.fingersCaptured.includes(f));
    return missing.length > 0 && missing.every((f) => enrolled.has(f)) ? missing : null;
  }

  /** A capture was refused by store_template: the session cannot complete any more. */
  async failOnRejection(w: WriteContext, session: SessionRow, fingerIndex: number, reason: string): Promise<void> {
    if (!session.fingersRequested.includes(fingerIndex)) return;
    await this.sessions.close(w, session, 'failed', `the template of ${partName(session.biometric, fingerIndex)} was rejected: ${reason}`);
  }

  /** A terminal's answer to an enrollment command moves its session on (reactions.ts). */
  async onCommandFinished(w: WriteContext, { data }: LoggedEvent<string, CommandEvents['device_command_finished']>): Promise<void> {
    const { command } = data;
    if (!(ENROLL_KINDS as readonly string[]).includes(command.kind) || !command.session) return;
    const session = await this.sessions.get(w.tx, command.session).catch(() => null);
    if (!session || !isOpen(session)) return;
    const finger = Number((command.payload as { fingerIndex?: unknown }).fingerIndex);
    const device = await this.devices.findById(w.tx, data.device.id);
    // A lost result does not matter when the template itself arrived.
    if (data.status === 'succeeded' || session.fingersCaptured.includes(finger)) {
      if (device) await this.queueNextFinger(w, session, device);
      return;
    }
    const what = data.status === 'expired' ? 'expired before the terminal answered' : `failed: ${describeReturnCode(data.return_code)}`;
    await this.sessions.close(w, session, 'failed', `${command.kind} for ${partName(session.biometric, finger)} ${what}`);
  }

  /**
   * Every part was asked for and the terminal answered each as enrolled, yet some templates have
   * not arrived: the open session says so (a template may still come; at the end of its lifetime,
   * or when another session starts on the terminal, this is why it failed).
   */
  private async noteWaiting(w: WriteContext, session: SessionRow): Promise<void> {
    const missing = await this.onlyWaitingFor(w.tx, session);
    if (!missing) return;
    await w.tx
      .update(enrollmentSessions)
      .set({ reason: waitingReason(session, missing, false), updatedAt: this.ctx.clock.now() })
      .where(eq(enrollmentSessions.id, session.id));
  }

  /**
   * Queues the enroll command of the next finger that is neither captured nor already asked
   * for, unless an enroll command of the session is still outstanding.
   */
  private async queueNextFinger(w: WriteContext, session: SessionRow, device: DeviceRow): Promise<void> {
    const existing = await this.commands.lookups.ofSession(w.tx, session.id, ENROLL_KINDS);
    if (existing.some((c) => c.status === 'pending' || c.status === 'sent')) return;
    const asked = new Set(existing.filter((c) => c.status === 'succeeded').map((c) => Number((c.payload as { fingerIndex?: unknown }).fingerIndex)));
    const next = session.fingersRequested.find((f) => !session.fingersCaptured.includes(f) && !asked.has(f));
    if (next === undefined) {
      await this.noteWaiting(w, session);
      return;
    }
    const person = await this.enrollees.find(w.tx, session.enrolleeId);
    if (!person) return;
    const fingerprint = session.biometric === 'fingerprint';
    // An enroll command that names the user's card (ADMS §5.2: ENROLL_BIO `CardNo=<card>`, 3.x
    // `cardno=`) names the one their user record just carried there, not an empty one; the 2.x
    // ENROLL_FP has no card field (terminals/render.ts).
    const card = person.card ? { card: person.card } : {};
    const command: NewCommand = {
      deviceId: device.id,
      kind: !fingerprint || takesBiodata(device, device.algorithmVersion) ? 'ENROLL_BIO' : 'ENROLL_FP',
      payload: { pin: person.devicePin, fingerIndex: next, type: session.biometric, ...card },
      sessionId: session.id,
      expiresAt: session.expiresAt,
    };
    await this.commands.enqueue(w, [command]);
  }
}

/** The words of a session's part in its reasons: `finger 3`, `face 0`, `palm 1`. */
const PART_WORDS: Readonly<Record<string, string>> = {
  fingerprint: 'finger',
  face: 'face',
  visible_face: 'visible-light face',
  palm: 'palm',
  finger_vein: 'finger vein',
};

function partName(biometric: string, index: number): string {
  return `${PART_WORDS[biometric] ?? biometric} ${index}`;
}

/** What a session waits for when the terminal enrolled parts whose templates have not arrived. */
function waitingReason(session: SessionRow, missing: readonly number[], closing: boolean): string {
  const parts = missing.map((f) => partName(session.biometric, f)).join(', ');
  return `${parts}: the terminal answered the enroll command as done but the template ${closing ? 'never arrived' : 'has not arrived'}`;
}

/** Open remote sessions of a terminal; one past its lifetime no longer counts (the job closes it). */
async function openRemoteSessions(q: Tx, deviceId: string, now: number): Promise<SessionRow[]> {
  const rows = await q
    .select()
    .from(enrollmentSessions)
    .where(and(eq(enrollmentSessions.kind, 'remote'), eq(enrollmentSessions.deviceId, deviceId), inArray(enrollmentSessions.status, [...OPEN_STATUSES])));
  return rows.filter((s) => s.expiresAt > now);
}

/**
 * Whether the service's user record for this enrollee went to the terminal and still stands: the
 * last user command under their PIN there (before the command `before`, when given) is their
 * `add_user`, and it went out.
 */
export async function userRecordReached(
  q: Queryable,
  commands: CommandService,
  deviceId: string,
  enrollee: { id: string; devicePin: string },
  before = Number.MAX_SAFE_INTEGER,
): Promise<boolean> {
  const user = await commands.lookups.lastUnderKeyBefore(q, deviceId, userCommandKey(enrollee.devicePin), before);
  return user?.kind === 'add_user' && user.payload.enrollee === enrollee.id && reachedTerminal(user);
}

/** A command the terminal got and that still stands: sent, taken, or put back for a resend after it went out. */
function reachedTerminal(c: { status: string; sentAt: number | null; attempts: number }): boolean {
  return (c.status === 'sent' || c.status === 'succeeded' || c.status === 'pending') && wentOut(c);
}
