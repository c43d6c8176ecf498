/**
 * Enrollment sessions, shared by the two interactive paths: agent sessions (a desktop agent
 * with a USB reader) and remote sessions (a terminal enrolls on command). States: open →
 * in_progress → completed | cancelled | failed, and expired after ENROLLMENT_SESSION_TTL.
 */
import type { Static } from '@sinclair/typebox';
import { and, eq, inArray, lte } from 'drizzle-orm';
import type { Queryable, Tx, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { BIOMETRIC_TYPES, type BiometricType } from '../../protocol/adms';
import type { CommandService } from '../commands';
import type { DeviceService } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { EventChannel } from '../events';
import { hasConsent } from './consent-records';
import type { EnrollmentEvents } from './events';
import type { Session } from './model';
import type { EnrollmentRuntime } from './runtime';
import { enrollmentSessions, stagedTemplates } from './tables';

export type SessionRow = typeof enrollmentSessions.$inferSelect;
export const OPEN_STATUSES = ['open', 'in_progress'] as const;

export type SessionView = Static<typeof Session>;

export function isOpen(session: SessionRow): boolean {
  return (OPEN_STATUSES as readonly string[]).includes(session.status);
}

/**
 * The sessions table and the one way a session closes: staged uploads go (for every outcome but
 * completion), a remote session's unfinished enroll commands expire, and
 * `enrollment_session_closed` is recorded.
 */
export class SessionStore {
  constructor(
    private readonly ctx: EnrollmentRuntime,
    private readonly events: EventChannel<EnrollmentEvents>,
    private readonly commands: CommandService,
    private readonly enrollees: EnrolleeService,
    private readonly devices: DeviceService,
  ) {}

  /** Validates a requested finger list: non-empty, unique, allowed, within FINGERS_ALLOWED_MAX. */
  validateFingers(fingers: unknown): number[] {
    const { settings } = this.ctx;
    if (!Array.isArray(fingers) || fingers.length === 0 || !fingers.every((f) => Number.isInteger(f))) {
      throw new FpaError('validation_error', 'fingers must be a non-empty array of finger indexes', { field: 'fingers' });
    }
    const unique = [...new Set(fingers as number[])].sort((a, b) => a - b);
    const disallowed = unique.filter((f) => !settings.ALLOWED_FINGER_INDEXES.includes(f));
    if (disallowed.length > 0) {
      throw new FpaError('finger_not_allowed', 'some requested fingers may not be enrolled', { fingers: disallowed, allowed: settings.ALLOWED_FINGER_INDEXES });
    }
    if (unique.length > settings.FINGERS_ALLOWED_MAX) {
      throw new FpaError('too_many_fingers', `at most ${settings.FINGERS_ALLOWED_MAX} fingers may be requested`, { max: settings.FINGERS_ALLOWED_MAX });
    }
    return unique;
  }

  async insert(
    tx: Tx,
    values: {
      kind: 'agent' | 'remote';
      enrolleeId: string;
      agentId?: string | null;
      deviceId?: string | null;
      /** Default `fingerprint`. */
      biometric?: BiometricType;
      fingers: number[];
      createdBy: string;
    },
  ): Promise<SessionRow> {
    const now = this.ctx.clock.now();
    const row: SessionRow = {
      id: crypto.randomUUID(),
      kind: values.kind,
      enrolleeId: values.enrolleeId,
      agentId: values.agentId ?? null,
      deviceId: values.deviceId ?? null,
      biometric: values.biometric ?? 'fingerprint',
      fingersRequested: values.fingers,
      fingersCaptured: [],
      status: 'open',
      reason: null,
      createdBy: values.createdBy,
      createdAt: now,
      claimedAt: null,
      closedAt: null,
      expiresAt: now + this.ctx.settings.ENROLLMENT_SESSION_TTL,
      updatedAt: now,
    };
    await tx.insert(enrollmentSessions).values(row);
    return row;
  }

  async get(q: Queryable, id: string): Promise<SessionRow> {
    const [row] = await q.select().from(enrollmentSessions).where(eq(enrollmentSessions.id, id)).limit(1);
    if (!row) throw new FpaError('not_found', 'enrollment session not found', { session: id });
    return row;
  }

  /** Closes a session; staged uploads are discarded for every outcome but completion. */
  async close(w: WriteContext, session: SessionRow, status: 'completed' | 'cancelled' | 'expired' | 'failed', reason: string | null): Promise<SessionRow> {
    const now = this.ctx.clock.now();
    await w.tx.delete(stagedTemplates).where(eq(stagedTemplates.sessionId, session.id));
    await w.tx.update(enrollmentSessions).set({ status, reason, closedAt: now, updatedAt: now }).where(eq(enrollmentSessions.id, session.id));
    // Enroll commands of a closed remote session must not reach (or keep waiting on) the terminal.
    if (session.kind === 'remote' && status !== 'completed') await this.commands.expireSession(w, session.id, `session ${status}`);
    await this.events.record(w, 'enrollment_session_closed', { session: session.id, kind: session.kind, status, enrollee: session.enrolleeId, reason });
    return { ...session, status, reason, closedAt: now, updatedAt: now };
  }

  /** Cancels every open session of an enrollee (consent withdrawn, deactivated, deleted). */
  async closeOpenOf(w: WriteContext, enrolleeId: string, reason: string): Promise<void> {
    const open = await w.tx
      .select()
      .from(enrollmentSessions)
      .where(and(eq(enrollmentSessions.enrolleeId, enrolleeId), inArray(enrollmentSessions.status, [...OPEN_STATUSES])));
    for (const session of open) await this.close(w, session, 'cancelled', reason);
  }

  /** Job `expire-sessions`: open sessions past their lifetime become `expired`. */
  async expireDue(): Promise<{ expired: number }> {
    return this.ctx.db.write(async (w) => {
      const due = await w.tx
        .select()
        .from(enrollmentSessions)
        .where(and(inArray(enrollmentSessions.status, [...OPEN_STATUSES]), lte(enrollmentSessions.expiresAt, this.ctx.clock.now())));
      for (const s of due) await this.close(w, s, 'expired', lifetimeEnded(s));
      return { expired: due.length };
    });
  }

  /** Expires a single session lazily when it is touched after its lifetime. */
  async expireIfDue(session: SessionRow): Promise<SessionRow> {
    if (!isOpen(session) || session.expiresAt > this.ctx.clock.now()) return session;
    return this.ctx.db.write(async (w) => {
      const fresh = await this.get(w.tx, session.id);
      if (!isOpen(fresh)) return fresh;
      return this.close(w, fresh, 'expired', lifetimeEnded(fresh));
    });
  }

  async views(q: Queryable, rows: SessionRow[]): Promise<SessionView[]> {
    const people = new Map<string, { displayName: string; devicePin: string }>();
    const consented = new Set<string>();
    for (const id of new Set(rows.map((r) => r.enrolleeId))) {
      const e = await this.enrollees.find(q, id);
      if (e) people.set(id, e);
      if (await hasConsent(q, id)) consented.add(id);
    }
    const serials = new Map<string, string>();
    for (const id of new Set(rows.map((r) => r.deviceId).filter((x): x is string => !!x))) {
      const d = await this.devices.findById(q, id);
      if (d) serials.set(id, d.serialNumber);
    }
    return rows.map((r) => {
      const e = people.get(r.enrolleeId);
      return {
        id: r.id,
        kind: r.kind,
        status: r.status,
        enrollee: { id: r.enrolleeId, display_name: e?.displayName ?? '', device_pin: e?.devicePin ?? '' },
        consent_recorded: consented.has(r.enrolleeId),
        biometric: isBiometric(r.biometric) ? r.biometric : 'fingerprint',
        fingers_requested: r.fingersRequested,
        fingers_captured: r.fingersCaptured,
        agent: r.agentId,
        device: r.deviceId ? (serials.get(r.deviceId) ?? null) : null,
        reason: r.reason,
        created_at: new Date(r.createdAt).toISOString(),
        claimed_at: r.claimedAt ? new Date(r.claimedAt).toISOString() : null,
        closed_at: r.closedAt ? new Date(r.closedAt).toISOString() : null,
        expires_at: new Date(r.expiresAt).toISOString(),
      };
    });
  }

  async view(row: SessionRow): Promise<SessionView> {
    const [view] = await this.views(this.ctx.db.orm, [row]);
    return view!;
  }
}

/** The reason of a session that expired, with what it was still waiting for when it said so. */
function lifetimeEnded(session: SessionRow): string {
  return session.reason ? `session lifetime ended; ${session.reason}` : 'session lifetime ended';
}

function isBiometric(value: string): value is BiometricType {
  return (BIOMETRIC_TYPES as readonly string[]).includes(value);
}
