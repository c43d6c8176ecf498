/**
 * The agent API (SPEC "Agent API", base `/api/fingerprint/v1/agent/`): every request carries
 * `Authorization: Agent <key>` and counts against AGENT_RATE_LIMIT of that key (in the database,
 * so every instance shares the count). The routes only translate HTTP; the rules live in
 * AgentSessionService.
 */
import { Elysia, t } from 'elysia';
import type { AgentRow, AgentService } from './agents';
import type { Core } from '../../app/core';
import type { AgentSessionService } from './agent-sessions';
import { settleBody } from '../../platform/http/body';
import { apiRouter } from '../../platform/http/router';
import { API_BASE } from '../../platform/http/api-base';
import { FpaError } from '../../platform/errors';
import type { AgentRateLimiter } from './rate-limit';

export const AGENT_BASE = '/agent';

export function agentInfo(core: Core, agent: AgentRow) {
  const { settings, clock } = core.ctx;
  return {
    id: agent.id,
    name: agent.name,
    algorithm_version: agent.algorithmVersion,
    allowed_fingers: settings.ALLOWED_FINGER_INDEXES,
    can_start_sessions: settings.AGENT_CAN_START_SESSIONS,
    consent_required: settings.ENROLLMENT_REQUIRE_CONSENT,
    limits: {
      template_max_bytes: settings.TEMPLATE_MAX_BYTES,
      fingers_required_min: settings.FINGERS_REQUIRED_MIN,
      fingers_allowed_max: settings.FINGERS_ALLOWED_MAX,
      session_ttl_seconds: Math.floor(settings.ENROLLMENT_SESSION_TTL / 1000),
      rate_limit: { requests: settings.AGENT_RATE_LIMIT.limit, window_seconds: settings.AGENT_RATE_LIMIT.windowMs / 1000 },
    },
    server_time: new Date(clock.now()).toISOString(),
  };
}

export function agentRoutes(core: Core, deps: { agents: AgentService; sessions: AgentSessionService; limiter: AgentRateLimiter }) {
  const { agents, sessions, limiter } = deps;
  // `derive` (not `resolve`): the key and the rate limit are checked before the body is
  // validated, so an anonymous caller learns nothing and malformed requests still count.
  const router = apiRouter(core, 'agent-api')
    .derive(async (context) => {
      const { request, set } = context;
      const agent = await agents.authenticate(request.headers.get('authorization'));
      const decision = await limiter.hit(agent.id);
      if (!decision.allowed) {
        throw new FpaError('rate_limited', `at most ${decision.limit} requests per agent key in the window`, {
          retry_after: decision.retryAfterSeconds,
          limit: decision.limit,
        });
      }
      set.headers['ratelimit-limit'] = String(decision.limit);
      set.headers['ratelimit-remaining'] = String(decision.remaining);
      set.headers['ratelimit-reset'] = String(decision.resetSeconds);
      settleBody(context);
      return { agent };
    })
    .get('/me', ({ agent }) => agentInfo(core, agent))
    .get('/sessions', ({ agent }) => sessions.openSessionsOf(agent))
    .post(
      '/sessions',
      async ({ agent, body, set }) => {
        if (!core.ctx.settings.AGENT_CAN_START_SESSIONS) {
          throw new FpaError('agent_sessions_disabled', 'agents may not start sessions here (AGENT_CAN_START_SESSIONS is off)', {});
        }
        const session = await sessions.startAgentSession(body.enrollee.trim(), { agent: agent.id, fingers: body.fingers, by: `agent:${agent.id}` });
        set.status = 201;
        return session;
      },
      { body: t.Object({ enrollee: t.String({ minLength: 1, maxLength: 100 }), fingers: t.Array(t.Integer(), { minItems: 1, maxItems: 20 }) }) },
    )
    .get('/sessions/:id', ({ agent, params }) => sessions.sessionFor(agent, params.id))
    .post('/sessions/:id/claim', ({ agent, params }) => sessions.claim(agent, params.id))
    .post(
      '/sessions/:id/templates',
      ({ agent, params, body }) =>
        sessions.upload(agent, params.id, {
          fingerIndex: body.finger_index,
          algorithmVersion: body.algorithm_version,
          template: body.template,
          quality: body.quality ?? null,
        }),
      {
        body: t.Object({
          finger_index: t.Integer(),
          algorithm_version: t.String({ minLength: 1, maxLength: 32 }),
          template: t.String(),
          quality: t.Optional(t.Union([t.Integer({ minimum: 0 }), t.Null()])),
        }),
      },
    )
    .post('/sessions/:id/complete', ({ agent, params }) => sessions.complete(agent, params.id))
    .post('/sessions/:id/cancel', ({ agent, params, body }) => sessions.cancel(agent, params.id, body?.reason?.trim() || null), {
      body: t.Optional(t.Nullable(t.Object({ reason: t.Optional(t.Nullable(t.String({ maxLength: 500 }))) }))),
    });
  return new Elysia({ prefix: `${API_BASE}${AGENT_BASE}` }).use(router);
}
