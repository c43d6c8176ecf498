/**
 * Enrollment agents: desktop applications with a USB fingerprint reader. An agent has a name,
 * the algorithm version of its reader and a key `fpa_<prefix>_<secret>` that is shown once;
 * only the key's SHA-256 digest is stored (docs/spec.md "Authentication" 2). Revoking an agent refuses
 * its key from then on and cancels its open sessions.
 */
import { and, count, desc, eq, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import { digestAgentKey, generateAgentKey, parseAgentKey, verifyAgentKey } from '../../platform/crypto/agent-keys';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { cursorOf, type Page, timeIdCursor } from '../../platform/http/paging';
import { type AreaScope, coversAny, EVERYWHERE, isLimited } from '../../platform/scope';
import { areasOutside, areasWithin, knownAreaIds, namesByMember, scopeAreaIds } from '../areas';
import { audit } from '../audit';
import type { AgentView } from './model';
import type { EnrollmentRuntime } from './runtime';
import { OPEN_STATUSES, type SessionStore } from './sessions';
import { agentAreas, agents, enrollmentSessions } from './tables';

export type AgentRow = typeof agents.$inferSelect;

/** `lastUsedAt` is written at most this often per agent, so busy agents cause no write load. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Compared against when the presented key matches no agent, so both paths cost the same. */
const DUMMY_DIGEST = digestAgentKey('fpa_aaaaaaaa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
const AUTH_SCHEME = /^Agent\s+(\S+)\s*$/i;
/** What a refused agent is told to present (`WWW-Authenticate` of its 401). */
const AGENT_CHALLENGE = 'Agent realm="fpa"';

export function agentView(row: AgentRow, areas: readonly string[]): AgentView {
  return {
    id: row.id,
    name: row.name,
    algorithm_version: row.algorithmVersion,
    key_prefix: row.keyPrefix,
    status: row.revokedAt === null ? 'active' : 'revoked',
    created_by: row.createdBy,
    created_at: new Date(row.createdAt).toISOString(),
    revoked_at: row.revokedAt === null ? null : new Date(row.revokedAt).toISOString(),
    last_used_at: row.lastUsedAt === null ? null : new Date(row.lastUsedAt).toISOString(),
    areas: [...areas],
  };
}

/**
 * The areas (names, sorted) of each agent limited to some; an agent of every area has no entry.
 * An agent whose areas have all been removed since (it was revoked first: an area a live agent
 * serves is not removed) is still limited, to none.
 */
export async function agentAreaNames(q: Queryable, ids: readonly string[]): Promise<Map<string, string[]>> {
  if (ids.length === 0) return new Map();
  const pairs = await q
    .select({ member: agentAreas.agentId, areaId: agentAreas.areaId })
    .from(agentAreas)
    .where(inArray(agentAreas.agentId, [...ids]));
  const names = await namesByMember(q, pairs);
  for (const p of pairs) if (!names.has(p.member)) names.set(p.member, []);
  return names;
}

/** Whose people an agent enrolls: everyone's (not limited), or those of its areas. */
export interface AgentReach {
  limited: boolean;
  areas: string[];
}

export const agentReach = (names: ReadonlyMap<string, string[]>, id: string): AgentReach => ({ limited: names.has(id), areas: names.get(id) ?? [] });

/**
 * A caller limited to areas sees the agents that may enroll its people: those of every area (the
 * shared desk its people enrol at too) and those sharing an area with it.
 */
const sees = (scope: AreaScope, reach: AgentReach): boolean => !reach.limited || coversAny(scope, reach.areas);

export class AgentService {
  constructor(
    private readonly ctx: EnrollmentRuntime,
    private readonly sessions: SessionStore,
  ) {}

  /** Creates an agent, for the people of its areas (none: every area); the returned `key` exists only in this answer. */
  async createAgent(
    input: { name: string; algorithmVersion: string; areas?: readonly string[]; by: string },
    scope: AreaScope = EVERYWHERE,
  ): Promise<{ agent: AgentView; key: string }> {
    const name = input.name.trim();
    const algorithmVersion = input.algorithmVersion.trim();
    if (name === '' || name.length > 200) throw new FpaError('validation_error', 'name must be 1 to 200 characters', { field: 'name' });
    if (algorithmVersion === '' || algorithmVersion.length > 32) {
      throw new FpaError('validation_error', 'algorithm_version must be 1 to 32 characters', { field: 'algorithm_version' });
    }
    // Those asked for, each of a limited caller's own (403 otherwise), or its own when none.
    const areas = [...new Set((areasWithin(scope, input.areas) ?? []).map((a) => a.trim()))].sort();
    return this.ctx.db.write(async ({ tx }) => {
      const areaIds = await knownAreaIds(tx, areas);
      const now = this.ctx.clock.now();
      // The 40-bit prefix is unique in the table; a collision is astronomically rare but cheap to retry.
      let generated = generateAgentKey();
      for (let attempt = 0; attempt < 5; attempt++) {
        const [taken] = await tx.select({ id: agents.id }).from(agents).where(eq(agents.keyPrefix, generated.prefix)).limit(1);
        if (!taken) break;
        generated = generateAgentKey();
      }
      const row: AgentRow = {
        id: crypto.randomUUID(),
        name,
        algorithmVersion,
        keyPrefix: generated.prefix,
        keyDigest: generated.digest,
        createdBy: input.by,
        createdAt: now,
        revokedAt: null,
        lastUsedAt: null,
      };
      await tx.insert(agents).values(row);
      if (areaIds.length > 0) await tx.insert(agentAreas).values(areaIds.map((areaId) => ({ agentId: row.id, areaId })));
      await audit(tx, now, {
        actor: input.by,
        action: 'agent.created',
        targetType: 'agent',
        targetId: row.id,
        details: { name, algorithm_version: algorithmVersion, key_prefix: row.keyPrefix, areas },
      });
      return { agent: agentView(row, areas), key: generated.key };
    });
  }

  /** An agent the scope sees (404 otherwise: an agent of other areas does not exist for it). */
  async getAgent(id: string, scope: AreaScope = EVERYWHERE): Promise<AgentView> {
    const q = this.ctx.db.orm;
    const [row] = await q.select().from(agents).where(eq(agents.id, id)).limit(1);
    const reach = row ? agentReach(await agentAreaNames(q, [row.id]), row.id) : null;
    if (!row || !reach || !sees(scope, reach)) throw new FpaError('not_found', 'enrollment agent not found', { agent: id });
    return agentView(row, reach.areas);
  }

  /** Live agents limited to an area (an area in use is not removed). */
  async countInArea(q: Queryable, areaId: string): Promise<number> {
    const [row] = await q
      .select({ n: count() })
      .from(agentAreas)
      .innerJoin(agents, eq(agents.id, agentAreas.agentId))
      .where(and(eq(agentAreas.areaId, areaId), isNull(agents.revokedAt)));
    return row?.n ?? 0;
  }

  /** Newest first; `status` filters active or revoked agents; only those the scope sees (`sees`). */
  async listAgents(options: { limit: number; cursor?: string; status?: string }, scope: AreaScope = EVERYWHERE): Promise<Page<AgentView>> {
    const q = this.ctx.db.orm;
    const conditions = [];
    if (options.status === 'active') conditions.push(isNull(agents.revokedAt));
    else if (options.status === 'revoked') conditions.push(sql`${agents.revokedAt} is not null`);
    else if (options.status) throw new FpaError('validation_error', 'status must be active or revoked', { field: 'status' });
    const after = timeIdCursor('enrollment-agents', options.cursor);
    if (after) {
      conditions.push(or(lt(agents.createdAt, after.time), and(eq(agents.createdAt, after.time), lt(agents.id, after.id))));
    }
    const areaIds = scopeAreaIds(scope);
    if (areaIds) {
      // `sees`: an agent of one of the scope's areas, or of every area (no area of its own).
      const areasOfAgent = (more: SQL) => sql`select 1 from ${agentAreas} where ${agentAreas.agentId} = ${agents.id}${more}`;
      conditions.push(sql`(exists (${areasOfAgent(sql` and ${agentAreas.areaId} in ${areaIds}`)}) or not exists (${areasOfAgent(sql``)}))`);
    }
    const rows = await q
      .select()
      .from(agents)
      .where(conditions.length > 0 ? and(...conditions) : undefined)
      .orderBy(desc(agents.createdAt), desc(agents.id))
      .limit(options.limit + 1);
    const page = rows.slice(0, options.limit);
    const last = page[page.length - 1];
    const areas = await agentAreaNames(
      q,
      page.map((r) => r.id),
    );
    return {
      results: page.map((r) => agentView(r, areas.get(r.id) ?? [])),
      next_cursor: rows.length > options.limit && last ? cursorOf('enrollment-agents', [last.createdAt, last.id]) : null,
    };
  }

  /**
   * Revokes an agent (idempotent) and cancels its open sessions, discarding their staged uploads.
   * A caller limited to areas revokes only agents wholly within them: one that also serves
   * another area (or every area) is that area's too (403).
   */
  async revokeAgent(id: string, options: { by: string }, scope: AreaScope = EVERYWHERE): Promise<AgentView> {
    return this.ctx.db.write(async (w) => {
      const { tx } = w;
      const now = this.ctx.clock.now();
      const [row] = await tx.select().from(agents).where(eq(agents.id, id)).limit(1);
      const reach = row ? agentReach(await agentAreaNames(tx, [row.id]), row.id) : null;
      if (!row || !reach || !sees(scope, reach)) throw new FpaError('not_found', 'enrollment agent not found', { agent: id });
      const { areas } = reach;
      // An agent of every area is every area's: only an administrator of every area revokes it.
      const outside = isLimited(scope) && !reach.limited ? ['every area'] : areasOutside(scope, areas);
      if (outside.length > 0) {
        throw new FpaError('forbidden', `this agent also enrolls people of other areas (${outside.join(', ')}): an administrator of those may revoke it`, {
          outside,
        });
      }
      if (row.revokedAt !== null) return agentView(row, areas);
      await tx.update(agents).set({ revokedAt: now }).where(eq(agents.id, id));
      const open = await tx
        .select()
        .from(enrollmentSessions)
        .where(and(eq(enrollmentSessions.agentId, id), inArray(enrollmentSessions.status, [...OPEN_STATUSES])));
      for (const session of open) await this.sessions.close(w, session, 'cancelled', 'agent revoked');
      await audit(tx, now, {
        actor: options.by,
        action: 'agent.revoked',
        targetType: 'agent',
        targetId: id,
        details: { name: row.name, key_prefix: row.keyPrefix, sessions_cancelled: open.length },
      });
      return agentView({ ...row, revokedAt: now }, areas);
    });
  }

  /**
   * Checks `Authorization: Agent <key>`: a missing, malformed, unknown or revoked key is 401
   * with one message for all, so the answer does not tell which keys exist.
   */
  async authenticate(authorization: string | null): Promise<AgentRow> {
    const key = AUTH_SCHEME.exec(authorization ?? '')?.[1] ?? '';
    if (!key) throw new FpaError('unauthorized', 'an agent key is required (Authorization: Agent <key>)', {}, { challenge: AGENT_CHALLENGE });
    const prefix = parseAgentKey(key)?.prefix;
    const [row] = prefix ? await this.ctx.db.orm.select().from(agents).where(eq(agents.keyPrefix, prefix)).limit(1) : [];
    const matches = verifyAgentKey(key, row?.keyDigest ?? DUMMY_DIGEST);
    if (!row || !matches || row.revokedAt !== null) {
      throw new FpaError('unauthorized', 'the agent key is unknown or revoked', {}, { challenge: AGENT_CHALLENGE });
    }
    await this.noteUse(row);
    return row;
  }

  private async noteUse(row: AgentRow): Promise<void> {
    const now = this.ctx.clock.now();
    if (row.lastUsedAt !== null && now - row.lastUsedAt < LAST_USED_RESOLUTION_MS) return;
    const threshold = now - LAST_USED_RESOLUTION_MS;
    // The condition repeats the check in SQL so several instances still write once a minute.
    await this.ctx.db.write(async ({ tx }) => {
      await tx
        .update(agents)
        .set({ lastUsedAt: now })
        .where(and(eq(agents.id, row.id), or(isNull(agents.lastUsedAt), lt(agents.lastUsedAt, threshold))));
    });
    row.lastUsedAt = now;
  }
}
