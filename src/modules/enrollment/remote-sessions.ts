/**
 * Remote enrollment: an administrator asks a terminal to enroll fingers of one enrollee
 * (SPEC `start_enrollment_session(enrollee, device, fingers)`). The terminal gets the user
 * record and then one ENROLL_FP (or ENROLL_BIO) per finger. The session completes when the
 * terminal has uploaded every requested finger, fails when an enroll command fails, and
 * expires after ENROLLMENT_SESSION_TTL.
 *
 * Enroll commands go one at a time: the next finger is queued once the previous command has
 * a result (or its template arrived), because a terminal in an enrollment prompt cannot run a
 * second one (ADMS.md §5.5) — the finger would fail with "busy" for no reason.
 *
 * The uploaded templates still pass store_template's rules, consent included; consent is
 * therefore checked when the session starts too, so nobody is asked to press a finger whose
 * template would be refused.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { audit } from '../audit/service';
import type { CommandOutcome, CommandRow, NewCommand } from '../commands/service';
import { usesBiodata } from '../commands/service';
import type { Core } from '../../app/core';
import { type Queryable, type Tx, type WriteContext, writeContext } from '../../platform/db/client';
import { deviceAreas, deviceCommands, devices, enrolleeAreas, enrollees, enrollmentSessions } from '../../app/schema';
import type { DeviceRow } from '../devices/service';
import { FpaError } from '../../platform/errors';
import { hasConsent, userCommand } from '../biometrics/service';
import type { CommandResult } from '../../protocol/adms';
import { closeSession, insertSession, isOpen, OPEN_STATUSES, sessionViews, validateFingers, type SessionRow, type SessionView } from './sessions';

const ENROLL_KINDS = new Set(['ENROLL_FP', 'ENROLL_BIO']);

/** ENROLL_FP / ENROLL_BIO return codes (ADMS.md §5.4), then the general ones. */
const RETURN_MEANINGS: Readonly<Record<number, string>> = {
  2: 'the user already has a template for this finger',
  4: 'enrollment failed (bad quality or the captures did not match)',
  5: 'this fingerprint already belongs to another user',
  6: 'cancelled on the terminal',
  7: 'the terminal is busy',
  [-1]: 'parameter error',
  [-3]: 'storage error on the terminal',
  [-10]: 'the user is not on the terminal',
  [-1001]: 'the terminal is full',
  [-1002]: 'the terminal does not support this command',
  [-1003]: 'timed out on the terminal',
  [-1005]: 'the terminal is busy',
};

export function describeReturnCode(code: number | null): string {
  if (code === null) return 'no result from the terminal';
  return `Return=${code} (${RETURN_MEANINGS[code] ?? 'unknown code'})`;
}

export interface StartRemoteEnrollment {
  /** Serial number of an approved terminal. */
  device: string;
  fingers: number[];
  by: string;
}

export class RemoteEnrollment {
  constructor(private readonly core: Core) {
    core.commands.onFinished((tx, command, outcome, result, afterCommit) => this.onCommandFinished(writeContext(tx, afterCommit), command, outcome, result));
  }

  /** Starts a remote session; `enrollee` is its UUID or device PIN. */
  async start(enrollee: string, options: StartRemoteEnrollment): Promise<SessionView> {
    const { ctx, enrollees: people, commands } = this.core;
    const fingers = validateFingers(ctx, options.fingers);
    const session = await ctx.db.write(async (w) => {
      const { tx, afterCommit } = w;
      const device = await tx.query.devices.findFirst({ where: eq(devices.serialNumber, options.device) });
      if (!device) throw new FpaError('not_found', 'device not found', { serial_number: options.device });
      if (device.status !== 'approved') {
        throw new FpaError('device_not_approved', 'remote enrollment needs an approved device', { serial_number: device.serialNumber, status: device.status });
      }
      const person = await people.findByIdOrPin(tx, enrollee);
      if (!person) throw new FpaError('not_found', 'enrollee not found', { enrollee });
      if (person.status !== 'active') throw new FpaError('enrollee_inactive', 'the enrollee is deactivated', { enrollee: person.id });
      if (!(await inScope(tx, device.id, person.id))) {
        throw new FpaError('not_in_scope', 'the enrollee is not in the scope (areas) of this device', { enrollee: person.id, serial_number: device.serialNumber });
      }
      if (ctx.settings.ENROLLMENT_REQUIRE_CONSENT && !(await hasConsent(tx, person.id))) {
        throw new FpaError('consent_required', 'consent is required before a template is stored', { enrollee: person.id });
      }
      const busy = await openRemoteSessions(tx, device.id, ctx.clock.now());
      if (busy.length > 0) {
        throw new FpaError('device_busy', 'a remote enrollment is already running on this device', { serial_number: device.serialNumber, session: busy[0]!.id });
      }
      const row = await insertSession(tx, ctx, { kind: 'remote', enrolleeId: person.id, deviceId: device.id, fingers, createdBy: options.by });
      await commands.enqueue(tx, [userCommand(device.id, person.devicePin, person.displayName)], afterCommit);
      await this.queueNextFinger(w, row, device);
      await audit(tx, ctx.clock.now(), {
        actor: options.by,
        action: 'enrollment.remote_started',
        targetType: 'enrollee',
        targetId: person.id,
        details: { session: row.id, device: device.serialNumber, fingers },
      });
      return row;
    });
    return (await sessionViews(ctx.db.orm, [session]))[0]!;
  }

  /** The open remote session of this terminal for this enrollee, if any. */
  async openSessionFor(q: Queryable, deviceId: string, enrolleeId: string): Promise<SessionRow | null> {
    const now = this.core.ctx.clock.now();
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
   * A template of a requested finger arrived from the session's terminal (inside the write
   * that stored it): the finger counts as captured; all captured completes the session.
   */
  async recordCapture(w: WriteContext, session: SessionRow, fingerIndex: number): Promise<SessionRow> {
    const { tx, afterCommit } = w;
    if (!session.fingersRequested.includes(fingerIndex)) return session;
    const captured = [...new Set([...session.fingersCaptured, fingerIndex])].sort((a, b) => a - b);
    const now = this.core.ctx.clock.now();
    await tx.update(enrollmentSessions).set({ fingersCaptured: captured, status: 'in_progress', updatedAt: now }).where(eq(enrollmentSessions.id, session.id));
    const updated: SessionRow = { ...session, fingersCaptured: captured, status: 'in_progress', updatedAt: now };
    if (session.fingersRequested.every((f) => captured.includes(f))) {
      return closeSession(tx, this.core.ctx, updated, 'completed', null, afterCommit, this.core.commands);
    }
    const device = session.deviceId ? await tx.query.devices.findFirst({ where: eq(devices.id, session.deviceId) }) : undefined;
    if (device) await this.queueNextFinger(w, updated, device);
    return updated;
  }

  /** A capture was refused by store_template: the session cannot complete any more. */
  async failOnRejection(w: WriteContext, session: SessionRow, fingerIndex: number, reason: string): Promise<void> {
    if (!session.fingersRequested.includes(fingerIndex)) return;
    await closeSession(w.tx, this.core.ctx, session, 'failed', `the template of finger ${fingerIndex} was rejected: ${reason}`, w.afterCommit, this.core.commands);
  }

  private async onCommandFinished(w: WriteContext, command: CommandRow, outcome: CommandOutcome, result: CommandResult | null): Promise<void> {
    if (!ENROLL_KINDS.has(command.kind) || !command.sessionId) return;
    const session = await w.tx.query.enrollmentSessions.findFirst({ where: eq(enrollmentSessions.id, command.sessionId) });
    if (!session || !isOpen(session)) return;
    const finger = Number((command.payload as { fingerIndex?: unknown }).fingerIndex);
    const device = await w.tx.query.devices.findFirst({ where: eq(devices.id, command.deviceId) });
    // A lost result does not matter when the template itself arrived.
    if (outcome === 'succeeded' || session.fingersCaptured.includes(finger)) {
      if (device) await this.queueNextFinger(w, session, device);
      return;
    }
    const what = outcome === 'expired' ? 'expired before the terminal answered' : `failed: ${describeReturnCode(result?.returnCode ?? command.returnCode ?? null)}`;
    await closeSession(w.tx, this.core.ctx, session, 'failed', `${command.kind} for finger ${finger} ${what}`, w.afterCommit, this.core.commands);
  }

  /**
   * Queues the enroll command of the next finger that is neither captured nor already asked
   * for, unless an enroll command of the session is still outstanding.
   */
  private async queueNextFinger(w: WriteContext, session: SessionRow, device: DeviceRow): Promise<void> {
    const existing = await w.tx
      .select({ status: deviceCommands.status, payload: deviceCommands.payload })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.sessionId, session.id), inArray(deviceCommands.kind, [...ENROLL_KINDS])));
    if (existing.some((c) => c.status === 'pending' || c.status === 'sent')) return;
    const asked = new Set(existing.filter((c) => c.status === 'succeeded').map((c) => Number((c.payload as { fingerIndex?: unknown }).fingerIndex)));
    const next = session.fingersRequested.find((f) => !session.fingersCaptured.includes(f) && !asked.has(f));
    if (next === undefined) return;
    const person = await w.tx.query.enrollees.findFirst({ where: eq(enrollees.id, session.enrolleeId) });
    if (!person) return;
    const command: NewCommand = {
      deviceId: device.id,
      kind: usesBiodata(device, device.algorithmVersion) ? 'ENROLL_BIO' : 'ENROLL_FP',
      payload: { pin: person.devicePin, fingerIndex: next },
      sessionId: session.id,
      expiresAt: session.expiresAt,
    };
    await this.core.commands.enqueue(w.tx, [command], w.afterCommit);
  }
}

async function inScope(q: Queryable, deviceId: string, enrolleeId: string): Promise<boolean> {
  const [row] = await q
    .select({ one: sql<number>`1` })
    .from(deviceAreas)
    .innerJoin(enrolleeAreas, eq(enrolleeAreas.areaId, deviceAreas.areaId))
    .where(and(eq(deviceAreas.deviceId, deviceId), eq(enrolleeAreas.enrolleeId, enrolleeId)))
    .limit(1);
  return row !== undefined;
}

/** Open remote sessions of a terminal; one past its lifetime no longer counts (the job closes it). */
async function openRemoteSessions(q: Tx, deviceId: string, now: number): Promise<SessionRow[]> {
  const rows = await q
    .select()
    .from(enrollmentSessions)
    .where(and(eq(enrollmentSessions.kind, 'remote'), eq(enrollmentSessions.deviceId, deviceId), inArray(enrollmentSessions.status, [...OPEN_STATUSES])));
  return rows.filter((s) => s.expiresAt > now);
}

/** The spec's `start_enrollment_session(enrollee, device, fingers)` for the device path. */
export function startEnrollmentSession(remote: RemoteEnrollment, enrollee: string, options: StartRemoteEnrollment): Promise<SessionView> {
  return remote.start(enrollee, options);
}

