/**
 * Enrollment sessions, shared by the two interactive paths: agent sessions (a desktop agent
 * with a USB reader) and remote sessions (a terminal enrolls on command). States: open →
 * in_progress → completed | cancelled | failed, and expired after ENROLLMENT_SESSION_TTL.
 */
import { and, eq, inArray, lte } from 'drizzle-orm';
import type { CommandService } from '../commands/service';
import type { Context } from '../../app/context';
import type { Queryable, Tx } from '../../platform/db/client';
import { agents, deviceCommands, devices, enrollees, enrollmentSessions, stagedTemplates } from '../../app/schema';
import { FpaError } from '../../platform/errors';

export type SessionRow = typeof enrollmentSessions.$inferSelect;
export const OPEN_STATUSES = ['open', 'in_progress'] as const;

export interface SessionView {
  id: string;
  kind: 'agent' | 'remote';
  status: string;
  enrollee: { id: string; display_name: string; device_pin: string };
  fingers_requested: number[];
  fingers_captured: number[];
  agent: string | null;
  device: string | null;
  reason: string | null;
  created_at: string;
  claimed_at: string | null;
  closed_at: string | null;
  expires_at: string;
}

export function isOpen(session: SessionRow): boolean {
  return (OPEN_STATUSES as readonly string[]).includes(session.status);
}

/** Validates a requested finger list: non-empty, unique, allowed, within FINGERS_ALLOWED_MAX. */
export function validateFingers(ctx: Context, fingers: unknown): number[] {
  if (!Array.isArray(fingers) || fingers.length === 0 || !fingers.every((f) => Number.isInteger(f))) {
    throw new FpaError('validation_error', 'fingers must be a non-empty array of finger indexes', { field: 'fingers' });
  }
  const unique = [...new Set(fingers as number[])].sort((a, b) => a - b);
  const disallowed = unique.filter((f) => !ctx.settings.ALLOWED_FINGER_INDEXES.includes(f));
  if (disallowed.length > 0) {
    throw new FpaError('finger_not_allowed', 'some requested fingers may not be enrolled', {
      fingers: disallowed,
      allowed: ctx.settings.ALLOWED_FINGER_INDEXES,
    });
  }
  if (unique.length > ctx.settings.FINGERS_ALLOWED_MAX) {
    throw new FpaError('too_many_fingers', `at most ${ctx.settings.FINGERS_ALLOWED_MAX} fingers may be requested`, { max: ctx.settings.FINGERS_ALLOWED_MAX });
  }
  return unique;
}

export async function insertSession(
  tx: Tx,
  ctx: Context,
  values: { kind: 'agent' | 'remote'; enrolleeId: string; agentId?: string | null; deviceId?: string | null; fingers: number[]; createdBy: string },
): Promise<SessionRow> {
  const now = ctx.clock.now();
  const row: SessionRow = {
    id: crypto.randomUUID(),
    kind: values.kind,
    enrolleeId: values.enrolleeId,
    agentId: values.agentId ?? null,
    deviceId: values.deviceId ?? null,
    fingersRequested: values.fingers,
    fingersCaptured: [],
    status: 'open',
    reason: null,
    createdBy: values.createdBy,
    createdAt: now,
    claimedAt: null,
    closedAt: null,
    expiresAt: now + ctx.settings.ENROLLMENT_SESSION_TTL,
    updatedAt: now,
  };
  await tx.insert(enrollmentSessions).values(row);
  return row;
}

export async function getSession(q: Queryable, id: string): Promise<SessionRow> {
  const row = await q.query.enrollmentSessions.findFirst({ where: eq(enrollmentSessions.id, id) });
  if (!row) throw new FpaError('not_found', 'enrollment session not found', { session: id });
  return row;
}

/**
 * Closes a session; staged uploads are discarded for every outcome but completion. Closing a
 * remote session needs the command service: its unfinished enroll commands expire through it.
 */
export async function closeSession(
  tx: Tx,
  ctx: Context,
  session: SessionRow,
  status: 'completed' | 'cancelled' | 'expired' | 'failed',
  reason: string | null,
  afterCommit: (cb: () => void) => void,
  commands?: CommandService,
): Promise<SessionRow> {
  const now = ctx.clock.now();
  await tx.delete(stagedTemplates).where(eq(stagedTemplates.sessionId, session.id));
  await tx.update(enrollmentSessions).set({ status, reason, closedAt: now, updatedAt: now }).where(eq(enrollmentSessions.id, session.id));
  if (session.kind === 'remote' && status !== 'completed') {
    if (!commands) throw new Error('closing a remote enrollment session needs the command service');
    // Enroll commands of a closed remote session must not reach (or keep waiting on) the terminal.
    await commands.expireMatching(tx, eq(deviceCommands.sessionId, session.id), `session ${status}`, afterCommit);
  }
  afterCommit(() =>
    ctx.events.emit('enrollment_session_closed', { sessionId: session.id, kind: session.kind, status, enrolleeId: session.enrolleeId }),
  );
  return { ...session, status, reason, closedAt: now, updatedAt: now };
}

/** Job `expire-sessions`: open sessions past their lifetime become `expired`. */
export async function expireSessions(ctx: Context, commands: CommandService): Promise<{ expired: number }> {
  return ctx.db.write(async ({ tx, afterCommit }) => {
    const due = await tx
      .select()
      .from(enrollmentSessions)
      .where(and(inArray(enrollmentSessions.status, [...OPEN_STATUSES]), lte(enrollmentSessions.expiresAt, ctx.clock.now())));
    for (const s of due) await closeSession(tx, ctx, s, 'expired', 'session lifetime ended', afterCommit, commands);
    return { expired: due.length };
  });
}

/** Expires a single session lazily when it is touched after its lifetime. */
export async function expireIfDue(ctx: Context, session: SessionRow, commands?: CommandService): Promise<SessionRow> {
  if (!isOpen(session) || session.expiresAt > ctx.clock.now()) return session;
  return ctx.db.write(async ({ tx, afterCommit }) => {
    const fresh = await getSession(tx, session.id);
    if (!isOpen(fresh)) return fresh;
    return closeSession(tx, ctx, fresh, 'expired', 'session lifetime ended', afterCommit, commands);
  });
}

export async function sessionViews(q: Queryable, rows: SessionRow[]): Promise<SessionView[]> {
  const enrolleeIds = [...new Set(rows.map((r) => r.enrolleeId))];
  const agentIds = [...new Set(rows.map((r) => r.agentId).filter((x): x is string => !!x))];
  const deviceIds = [...new Set(rows.map((r) => r.deviceId).filter((x): x is string => !!x))];
  const es = enrolleeIds.length ? await q.select().from(enrollees).where(inArray(enrollees.id, enrolleeIds)) : [];
  const as = agentIds.length ? await q.select({ id: agents.id, name: agents.name }).from(agents).where(inArray(agents.id, agentIds)) : [];
  const ds = deviceIds.length ? await q.select({ id: devices.id, serial: devices.serialNumber }).from(devices).where(inArray(devices.id, deviceIds)) : [];
  return rows.map((r) => {
    const e = es.find((x) => x.id === r.enrolleeId);
    return {
      id: r.id,
      kind: r.kind,
      status: r.status,
      enrollee: { id: r.enrolleeId, display_name: e?.displayName ?? '', device_pin: e?.devicePin ?? '' },
      fingers_requested: r.fingersRequested,
      fingers_captured: r.fingersCaptured,
      agent: r.agentId ? (as.find((a) => a.id === r.agentId)?.id ?? r.agentId) : null,
      device: r.deviceId ? (ds.find((d) => d.id === r.deviceId)?.serial ?? null) : null,
      reason: r.reason,
      created_at: new Date(r.createdAt).toISOString(),
      claimed_at: r.claimedAt ? new Date(r.claimedAt).toISOString() : null,
      closed_at: r.closedAt ? new Date(r.closedAt).toISOString() : null,
      expires_at: new Date(r.expiresAt).toISOString(),
    };
  });
}
