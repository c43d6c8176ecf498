/**
 * Agent enrollment sessions (docs/spec.md "Desktop agent"): an administrator (or, with
 * AGENT_CAN_START_SESSIONS, the agent itself) starts a session for one enrollee and a list of
 * fingers; the agent claims it, uploads templates that are staged encrypted on the session,
 * and completes it. Completion stores every staged template through store_template and closes
 * the session in ONE write transaction, so a failed completion stores nothing and leaves the
 * session open. A cancelled or expired session never touches existing templates.
 *
 * Every touch of a session first expires it when its lifetime is over. A closed session
 * refuses every agent request, reads included, with `session_closed`; its details carry the
 * status and reason, so the agent still learns why. Administrators read closed sessions.
 */
import type { Static } from '@sinclair/typebox';
import { and, asc, desc, eq, inArray, lt, or } from 'drizzle-orm';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { cursorOf, type Page, timeIdCursor } from '../../platform/http/paging';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import { audit } from '../audit';
import type { EnrolleeService } from '../enrollees';
import { stagedAad } from './aad';
import { type AgentRow, agentAreaNames, agentReach } from './agents';
import { hasConsent } from './consent-records';
import { checkDevicesAccept } from './device-acceptance';
import type { FanOut } from './fan-out';
import type { CompletedSession as CompletedSessionModel, UploadResult as UploadResultModel } from './model';
import { sameVersion } from './rules';
import type { EnrollmentRuntime } from './runtime';
import { isOpen, OPEN_STATUSES, type SessionRow, type SessionStore, type SessionView } from './sessions';
import { agents, enrollmentSessions, SESSION_STATUSES, stagedTemplates } from './tables';
import { checkNotStagedElsewhere, checkTemplateBytes } from './template-bytes';
import type { StoredTemplate, TemplateStore } from './template-store';

export interface TemplateUpload {
  fingerIndex: number;
  algorithmVersion: string;
  /** Standard base64 of the template bytes. */
  template: string;
  quality?: number | null;
}

export type UploadResult = Static<typeof UploadResultModel>;

export type CompletedSession = Static<typeof CompletedSessionModel>;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Strict standard base64: the alphabet, padding to a multiple of four, and exactly the text an
 * encoder produces (no stray bits in the last character). Anything else is null.
 */
export function decodeStrictBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !BASE64.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) return null;
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const agentActor = (agent: AgentRow) => `agent:${agent.id}`;
type StagedRow = typeof stagedTemplates.$inferSelect;

export class AgentSessionService {
  constructor(
    private readonly ctx: EnrollmentRuntime,
    private readonly sessions: SessionStore,
    private readonly enrollees: EnrolleeService,
    private readonly biometrics: { templates: TemplateStore; fanOut: FanOut },
  ) {}

  /**
   * The spec's start_enrollment_session on the agent path. `enrollee` is a UUID or a device
   * PIN, `agent` the agent's id. Only for an enrollee of the agent's areas (an agent of every
   * area: anyone): outside them, an administrator is told why (`not_in_scope`), and an agent
   * starting its own session (`asAgent`) is told nothing of a person it may not enroll (404, as
   * for anyone unknown, before anything else is said of them).
   */
  async startAgentSession(enrollee: string, options: { agent: string; fingers: number[]; by: string; asAgent?: boolean }): Promise<SessionView> {
    const fingers = this.sessions.validateFingers(options.fingers);
    const row = await this.ctx.db.write(async ({ tx }) => {
      const target = await this.enrollees.findByIdOrPin(tx, enrollee);
      if (!target) throw new FpaError('not_found', 'enrollee not found', { enrollee });
      const [agent] = await tx.select().from(agents).where(eq(agents.id, options.agent)).limit(1);
      if (!agent) throw new FpaError('not_found', 'enrollment agent not found', { agent: options.agent });
      if (agent.revokedAt !== null) throw new FpaError('agent_revoked', 'the enrollment agent is revoked', { agent: agent.id });
      const reach = agentReach(await agentAreaNames(tx, [agent.id]), agent.id);
      if (reach.limited && !(await this.enrollees.inScope(tx, target.id, { areas: reach.areas }))) {
        if (options.asAgent) throw new FpaError('not_found', 'enrollee not found', { enrollee });
        throw new FpaError('not_in_scope', `the enrollee is in none of this agent’s areas (${reach.areas.join(', ')})`, {
          enrollee: target.id,
          agent: agent.id,
          areas: reach.areas,
        });
      }
      if (target.status !== 'active') throw new FpaError('enrollee_inactive', 'the enrollee is deactivated', { enrollee: target.id });
      const session = await this.sessions.insert(tx, { kind: 'agent', enrolleeId: target.id, agentId: agent.id, fingers, createdBy: options.by });
      await audit(tx, session.createdAt, {
        actor: options.by,
        action: 'enrollment_session.started',
        targetType: 'enrollment_session',
        targetId: session.id,
        details: { kind: 'agent', enrollee: target.id, agent: agent.id, fingers },
      });
      return session;
    });
    return this.view(row);
  }

  /** `GET sessions/`: the agent's sessions that are open or in progress and not expired. */
  async openSessionsOf(agent: AgentRow): Promise<SessionView[]> {
    const rows = await this.ctx.db.orm
      .select()
      .from(enrollmentSessions)
      .where(and(eq(enrollmentSessions.agentId, agent.id), inArray(enrollmentSessions.status, [...OPEN_STATUSES])))
      .orderBy(asc(enrollmentSessions.createdAt), asc(enrollmentSessions.id));
    const live: SessionRow[] = [];
    for (const row of rows) {
      const current = await this.sessions.expireIfDue(row);
      if (isOpen(current)) live.push(current);
    }
    return this.sessions.views(this.ctx.db.orm, live);
  }

  /** `GET sessions/{id}/`: an open session; a closed one is `session_closed` with its status and reason. */
  async sessionFor(agent: AgentRow, id: string): Promise<SessionView> {
    return this.view(await this.openSession(agent, id));
  }

  async claim(agent: AgentRow, id: string): Promise<SessionView> {
    await this.openSession(agent, id);
    const row = await this.ctx.db.write(async ({ tx }) => {
      const fresh = await this.lockOpen(tx, agent, id);
      // Claiming twice is harmless: the agent may retry after a lost answer.
      if (fresh.status === 'in_progress') return fresh;
      const now = this.ctx.clock.now();
      await tx.update(enrollmentSessions).set({ status: 'in_progress', claimedAt: now, updatedAt: now }).where(eq(enrollmentSessions.id, id));
      return { ...fresh, status: 'in_progress' as const, claimedAt: now, updatedAt: now };
    });
    return this.view(row);
  }

  /**
   * Stages one template, encrypted, on the session; a second upload of a finger replaces the
   * first. Nothing biometric is staged without recorded consent (ENROLLMENT_REQUIRE_CONSENT):
   * the upload is refused before its bytes are read, and again in the staging transaction.
   */
  async upload(agent: AgentRow, id: string, upload: TemplateUpload): Promise<UploadResult> {
    const session = await this.openSession(agent, id);
    await this.checkConsent(this.ctx.db.orm, session.enrolleeId);
    const { algorithmVersion, data } = this.checkUpload(agent, session, upload);
    try {
      const devices = await this.biometrics.fanOut.devicesInScope(this.ctx.db.orm, session.enrolleeId);
      checkDevicesAccept(devices, this.ctx.settings.ALGORITHM_COMPATIBILITY_MAP, algorithmVersion);
      return await this.ctx.db.write((w) => this.stage(w, agent, id, { ...upload, algorithmVersion }, data));
    } finally {
      data.fill(0);
    }
  }

  /**
   * An upload the agent may make on this session: a requested finger, the agent's algorithm, a
   * template of a size a terminal takes whose bytes do not show another algorithm.
   */
  private checkUpload(agent: AgentRow, session: SessionRow, upload: TemplateUpload): { algorithmVersion: string; data: Uint8Array } {
    const { settings } = this.ctx;
    if (!session.fingersRequested.includes(upload.fingerIndex)) {
      throw new FpaError('finger_not_requested', `finger ${upload.fingerIndex} was not requested in this session`, {
        finger_index: upload.fingerIndex,
        fingers_requested: session.fingersRequested,
      });
    }
    const algorithmVersion = upload.algorithmVersion.trim();
    if (!sameVersion(algorithmVersion, agent.algorithmVersion)) {
      throw new FpaError('algorithm_incompatible', "the template's algorithm is not the agent's registered algorithm", {
        reason: 'agent_algorithm_mismatch',
        algorithm_version: algorithmVersion,
        agent_algorithm_version: agent.algorithmVersion,
      });
    }
    // Refuse an oversized template before decoding it: base64 text is 4/3 of the bytes.
    if (upload.template.length > Math.ceil(settings.TEMPLATE_MAX_BYTES / 3) * 4) {
      throw new FpaError('template_too_large', `the template is larger than ${settings.TEMPLATE_MAX_BYTES} bytes`, {
        max: settings.TEMPLATE_MAX_BYTES,
      });
    }
    const data = decodeStrictBase64(upload.template);
    if (!data) throw new FpaError('invalid_template', 'template must be standard base64 (RFC 4648, padded)', { field: 'template' });
    try {
      this.biometrics.templates.checkSize(data.byteLength);
      checkTemplateBytes(algorithmVersion, upload.template, data);
    } catch (refused) {
      // A refused template's decoded bytes are wiped too, as an accepted one's are after staging.
      data.fill(0);
      throw refused;
    }
    return { algorithmVersion, data };
  }

  /** Stages the template on the session (encrypted, a new revision of its finger) and records the finger captured. */
  private async stage(w: WriteContext, agent: AgentRow, id: string, upload: TemplateUpload, data: Uint8Array): Promise<UploadResult> {
    const { tx } = w;
    const { keyRing } = this.ctx;
    const { algorithmVersion } = upload;
    const fresh = await this.lockOpen(tx, agent, id);
    await this.checkConsent(tx, fresh.enrolleeId);
    await checkNotStagedElsewhere(tx, keyRing, id, upload.fingerIndex, data);
    const [previous] = await tx
      .select({ revision: stagedTemplates.revision })
      .from(stagedTemplates)
      .where(and(eq(stagedTemplates.sessionId, id), eq(stagedTemplates.fingerIndex, upload.fingerIndex)))
      .limit(1);
    const revision = (previous?.revision ?? 0) + 1;
    const ciphertext = await keyRing.encrypt(data, stagedAad(id, upload.fingerIndex, revision));
    const now = this.ctx.clock.now();
    const row = {
      sessionId: id,
      fingerIndex: upload.fingerIndex,
      algorithmVersion,
      ciphertext: Buffer.from(ciphertext),
      keyId: keyRing.primaryKeyId,
      sizeBytes: data.byteLength,
      quality: upload.quality ?? null,
      revision,
      createdAt: now,
    };
    await tx
      .insert(stagedTemplates)
      .values(row)
      .onConflictDoUpdate({ target: [stagedTemplates.sessionId, stagedTemplates.fingerIndex], set: row });
    const captured = [...new Set([...fresh.fingersCaptured, upload.fingerIndex])].sort((a, b) => a - b);
    await tx.update(enrollmentSessions).set({ fingersCaptured: captured, updatedAt: now }).where(eq(enrollmentSessions.id, id));
    return { captured, remaining: fresh.fingersRequested.filter((f) => !captured.includes(f)) };
  }

  /**
   * Completes the session: consent, every requested finger captured, and existing plus new
   * fingers not below FINGERS_REQUIRED_MIN; then every staged template goes through
   * store_template and the session closes, all in one transaction.
   */
  async complete(agent: AgentRow, id: string): Promise<CompletedSession> {
    await this.openSession(agent, id);
    const { row, stored } = await this.ctx.db.write(async (w) => {
      const { tx } = w;
      const session = await this.lockOpen(tx, agent, id);
      const { staged, captured } = await this.checkComplete(w, session);
      const results = await this.storeStaged(w, agent, session, staged);
      const closed = await this.sessions.close(w, session, 'completed', null);
      await audit(tx, closed.closedAt ?? this.ctx.clock.now(), {
        actor: agentActor(agent),
        action: 'enrollment_session.completed',
        targetType: 'enrollment_session',
        targetId: id,
        details: { enrollee: session.enrolleeId, fingers: captured },
      });
      return { row: closed, stored: results };
    });
    return {
      ...(await this.view(row)),
      templates: stored.map((t) => ({
        finger_index: t.fingerIndex,
        algorithm_version: t.algorithmVersion,
        version: t.version,
        queued_to: t.queuedTo,
        incompatible: t.incompatible,
      })),
    };
  }

  /** What completion needs: consent, every requested finger captured, existing plus new fingers not below FINGERS_REQUIRED_MIN. */
  private async checkComplete(w: WriteContext, session: SessionRow): Promise<{ staged: StagedRow[]; captured: number[] }> {
    const { tx } = w;
    const { settings } = this.ctx;
    await this.checkConsent(tx, session.enrolleeId);
    const staged = await tx.select().from(stagedTemplates).where(eq(stagedTemplates.sessionId, session.id)).orderBy(asc(stagedTemplates.fingerIndex));
    const captured = staged.map((s) => s.fingerIndex);
    const missing = session.fingersRequested.filter((f) => !captured.includes(f));
    if (missing.length > 0) {
      throw new FpaError('fingers_missing', 'not every requested finger has been captured', { missing, captured });
    }
    const existing = (await this.biometrics.templates.fingersOf(tx, [session.enrolleeId])).get(session.enrolleeId) ?? [];
    const fingers = new Set([...existing, ...captured]);
    if (fingers.size < settings.FINGERS_REQUIRED_MIN) {
      throw new FpaError('too_few_fingers', `an enrollee needs at least ${settings.FINGERS_REQUIRED_MIN} fingers`, {
        required: settings.FINGERS_REQUIRED_MIN,
        fingers: [...fingers].sort((a, b) => a - b),
      });
    }
    return { staged, captured };
  }

  /** Every staged template through store_template, each decrypted only for that and wiped after. */
  private async storeStaged(w: WriteContext, agent: AgentRow, session: SessionRow, staged: readonly StagedRow[]): Promise<StoredTemplate[]> {
    const { keyRing } = this.ctx;
    const results: StoredTemplate[] = [];
    for (const s of staged) {
      const data = await keyRing.decrypt(s.ciphertext, stagedAad(session.id, s.fingerIndex, s.revision));
      try {
        results.push(
          await this.biometrics.templates.storeTemplateIn(w, {
            enrolleeId: session.enrolleeId,
            fingerIndex: s.fingerIndex,
            data,
            algorithmVersion: s.algorithmVersion,
            quality: s.quality,
            source: 'agent',
            by: agentActor(agent),
          }),
        );
      } finally {
        data.fill(0);
      }
    }
    return results;
  }

  /** Cancels the session; staged uploads are discarded, existing templates stay. */
  async cancel(agent: AgentRow, id: string, reason: string | null): Promise<SessionView> {
    await this.openSession(agent, id);
    const row = await this.ctx.db.write(async (w) => {
      const session = await this.lockOpen(w.tx, agent, id);
      const closed = await this.sessions.close(w, session, 'cancelled', reason ?? 'cancelled by the agent');
      await audit(w.tx, closed.closedAt ?? this.ctx.clock.now(), {
        actor: agentActor(agent),
        action: 'enrollment_session.cancelled',
        targetType: 'enrollment_session',
        targetId: id,
        details: { reason: closed.reason },
      });
      return closed;
    });
    return this.view(row);
  }

  /** Administrator view of any session (agent or remote). */
  async adminSession(id: string, scope: AreaScope = EVERYWHERE): Promise<SessionView> {
    const found = await this.sessions.get(this.ctx.db.orm, id);
    if (!(await this.enrollees.inScope(this.ctx.db.orm, found.enrolleeId, scope))) throw new FpaError('not_found', 'session not found', { session: id });
    const row = await this.sessions.expireIfDue(found);
    return this.view(row);
  }

  /** Administrator list, newest first, filtered by status, agent, enrollee (UUID or PIN) and kind. */
  async listSessions(
    filters: {
      limit: number;
      cursor?: string;
      status?: string;
      agent?: string;
      enrollee?: string;
      kind?: string;
    },
    scope: AreaScope = EVERYWHERE,
  ): Promise<Page<SessionView>> {
    const conditions = [];
    const member = this.enrollees.membership.enrolleeInScope(enrollmentSessions.enrolleeId, scope);
    if (member) conditions.push(member);
    if (filters.status) {
      if (!(SESSION_STATUSES as readonly string[]).includes(filters.status)) {
        throw new FpaError('validation_error', `status must be one of ${SESSION_STATUSES.join(', ')}`, { field: 'status' });
      }
      conditions.push(eq(enrollmentSessions.status, filters.status as SessionRow['status']));
    }
    if (filters.kind) {
      if (filters.kind !== 'agent' && filters.kind !== 'remote') throw new FpaError('validation_error', 'kind must be agent or remote', { field: 'kind' });
      conditions.push(eq(enrollmentSessions.kind, filters.kind));
    }
    if (filters.agent) conditions.push(eq(enrollmentSessions.agentId, filters.agent));
    if (filters.enrollee) {
      const target = await this.enrollees.findByIdOrPin(this.ctx.db.orm, filters.enrollee);
      // An unknown enrollee simply has no sessions.
      if (!target) return { results: [], next_cursor: null };
      conditions.push(eq(enrollmentSessions.enrolleeId, target.id));
    }
    const after = timeIdCursor('enrollment-sessions', filters.cursor);
    if (after) {
      conditions.push(or(lt(enrollmentSessions.createdAt, after.time), and(eq(enrollmentSessions.createdAt, after.time), lt(enrollmentSessions.id, after.id))));
    }
    const rows = await this.ctx.db.orm
      .select()
      .from(enrollmentSessions)
      .where(conditions.length > 0 ? and(...conditions) : undefined)
      .orderBy(desc(enrollmentSessions.createdAt), desc(enrollmentSessions.id))
      .limit(filters.limit + 1);
    const page = rows.slice(0, filters.limit);
    const last = page[page.length - 1];
    return {
      results: await this.sessions.views(this.ctx.db.orm, page),
      next_cursor: rows.length > filters.limit && last ? cursorOf('enrollment-sessions', [last.createdAt, last.id]) : null,
    };
  }

  /** With ENROLLMENT_REQUIRE_CONSENT, the enrollee's consent must be on record (uploads and completion alike). */
  private async checkConsent(q: Queryable, enrolleeId: string): Promise<void> {
    if (this.ctx.settings.ENROLLMENT_REQUIRE_CONSENT && !(await hasConsent(q, enrolleeId))) {
      throw new FpaError('consent_required', 'the enrollee has not given consent', { enrollee: enrolleeId });
    }
  }

  /** The session, if it exists and belongs to this agent, expired first when its lifetime is over. */
  private async ownedSession(agent: AgentRow, id: string): Promise<SessionRow> {
    const row = await this.sessions.get(this.ctx.db.orm, id);
    if (row.agentId !== agent.id) throw wrongAgent(id);
    return this.sessions.expireIfDue(row);
  }

  private async openSession(agent: AgentRow, id: string): Promise<SessionRow> {
    const row = await this.ownedSession(agent, id);
    if (!isOpen(row)) throw sessionClosed(row);
    return row;
  }

  /** Re-reads the session inside the write transaction; it may have closed since. */
  private async lockOpen(q: Queryable, agent: AgentRow, id: string): Promise<SessionRow> {
    const row = await this.sessions.get(q, id);
    if (row.agentId !== agent.id) throw wrongAgent(id);
    if (!isOpen(row)) throw sessionClosed(row);
    if (row.expiresAt <= this.ctx.clock.now()) throw sessionClosed({ ...row, status: 'expired' });
    return row;
  }

  private view(row: SessionRow): Promise<SessionView> {
    return this.sessions.view(row);
  }
}

function wrongAgent(id: string): FpaError {
  return new FpaError('wrong_agent', 'the session belongs to another agent', { session: id });
}

function sessionClosed(row: SessionRow): FpaError {
  return new FpaError('session_closed', `the session is ${row.status}`, { session: row.id, status: row.status, reason: row.reason });
}
