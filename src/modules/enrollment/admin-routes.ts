/**
 * Administrator endpoints of the agent path (SPEC, API.md): `enrollment-agents/` (create with
 * the key shown once, list, read, revoke) and `enrollment-sessions/` (start an agent session,
 * read and list sessions of both kinds).
 */
import { Elysia, t } from 'elysia';
import { agentView, type AgentService } from './agents';
import type { Core } from '../../app/core';
import type { AgentSessionService } from './agent-sessions';
import { adminRouter, limitOf } from '../../platform/http/router';
import { API_BASE } from '../../platform/http/api-base';

export function enrollmentAdminRoutes(core: Core, deps: { agents: AgentService; sessions: AgentSessionService }) {
  const { agents, sessions } = deps;

  // Creation also takes the local operator token, so `bun run fpa:create-agent` can hand the
  // work to the running server that holds the database.
  const creation = adminRouter(core, 'admin-enrollment-agents-create', { allowOperatorToken: true }).post(
    '/enrollment-agents',
    async ({ body, admin, set }) => {
      const { agent, key } = await agents.createAgent({ name: body.name, algorithmVersion: body.algorithm_version, by: admin.by });
      set.status = 201;
      return { ...agent, key };
    },
    {
      body: t.Object(
        { name: t.String({ minLength: 1, maxLength: 200 }), algorithm_version: t.String({ minLength: 1, maxLength: 32 }) },
        { additionalProperties: false },
      ),
    },
  );

  const agentAdmin = adminRouter(core, 'admin-enrollment-agents')
    .get('/enrollment-agents', ({ query }) => agents.listAgents({ limit: limitOf(query), cursor: query.cursor, status: query.status }))
    .get('/enrollment-agents/:id', async ({ params }) => agentView(await agents.getAgent(params.id)))
    .post('/enrollment-agents/:id/revoke', ({ params, admin }) => agents.revokeAgent(params.id, { by: admin.by }))
    .delete('/enrollment-agents/:id', ({ params, admin }) => agents.revokeAgent(params.id, { by: admin.by }));

  const sessionAdmin = adminRouter(core, 'admin-enrollment-sessions')
    .post(
      '/enrollment-sessions',
      async ({ body, admin, set }) => {
        const session = await sessions.startAgentSession(body.enrollee.trim(), { agent: body.agent.trim(), fingers: body.fingers, by: admin.by });
        set.status = 201;
        return session;
      },
      {
        body: t.Object(
          {
            enrollee: t.String({ minLength: 1, maxLength: 100 }),
            agent: t.String({ minLength: 1, maxLength: 100 }),
            fingers: t.Array(t.Integer(), { minItems: 1, maxItems: 20 }),
          },
          { additionalProperties: false },
        ),
      },
    )
    .get('/enrollment-sessions', ({ query }) =>
      sessions.listSessions({
        limit: limitOf(query),
        cursor: query.cursor,
        status: query.status,
        agent: query.agent,
        enrollee: query.enrollee,
        kind: query.kind,
      }),
    )
    .get('/enrollment-sessions/:id', ({ params }) => sessions.adminSession(params.id));

  return new Elysia({ prefix: API_BASE }).use(creation).use(agentAdmin).use(sessionAdmin);
}
