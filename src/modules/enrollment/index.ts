/**
 * The agent feature: enrollment agents and their keys, agent sessions, the agent API, the
 * administrator endpoints `enrollment-agents/` and `enrollment-sessions/`, and the OpenAPI
 * documentation of the whole HTTP API.
 */
import type { Elysia } from 'elysia';
import { AgentService, type AgentView } from './agents';
import type { Core } from '../../app/core';
import type { Signals } from '../../app/context';
import { docsRoutes } from '../../app/docs/routes';
import { AgentSessionService } from './agent-sessions';
import type { SessionView } from './sessions';
import type { FeatureParts } from '../../app/features';
import { enrollmentAdminRoutes } from './admin-routes';
import { agentRoutes } from './agent-routes';
import { AgentRateLimiter } from './rate-limit';

export interface AgentFeatureService {
  /** start_enrollment_session on the agent path; `enrollee` is a UUID or a device PIN. */
  startAgentSession(enrollee: string, options: { agent: string; fingers: number[]; by: string }): Promise<SessionView>;
  /** Creates an enrollment agent; `key` is returned this one time and never stored. */
  createAgent(name: string, options: { algorithmVersion: string; by: string }): Promise<{ agent: AgentView; key: string }>;
  revokeAgent(agent: string, options: { by: string }): Promise<AgentView>;
  agents: AgentService;
  agentSessions: AgentSessionService;
}

export function installAgents(core: Core, onSignals: (handlers: Partial<Signals>) => void): FeatureParts<AgentFeatureService> {
  void onSignals; // agents need no in-process signals
  const agents = new AgentService(core.ctx);
  const sessions = new AgentSessionService(core);
  const limiter = new AgentRateLimiter(core.ctx.settings.AGENT_RATE_LIMIT, core.ctx.clock, core.ctx.db);
  return {
    // Each router carries its own prefix; FeatureParts holds them as plain Elysia instances.
    routes: [
      agentRoutes(core, { agents, sessions, limiter }) as unknown as Elysia,
      enrollmentAdminRoutes(core, { agents, sessions }) as unknown as Elysia,
      docsRoutes(core) as unknown as Elysia,
    ],
    service: {
      startAgentSession: (enrollee, options) => sessions.startAgentSession(enrollee, options),
      createAgent: (name, options) => agents.createAgent({ name, algorithmVersion: options.algorithmVersion, by: options.by }),
      revokeAgent: (agent, options) => agents.revokeAgent(agent, options),
      agents,
      agentSessions: sessions,
    },
  };
}
