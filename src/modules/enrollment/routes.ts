/**
 * Administrator routes of enrollment (docs/spec.md, docs/api.md): `enrollment-agents/` (create with the key
 * shown once, list, read, revoke), `enrollment-sessions/` (start an agent session, read and list
 * sessions of both kinds) and `enrollees/{id}/remote-enrollment/` (a terminal enrolls on command).
 */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { EnrolleeParams } from '../enrollees';
import {
  AdminStartSession,
  Agent,
  AgentCreate,
  AgentList,
  AgentParams,
  AgentWithKey,
  RemoteEnrollmentCreate,
  Session,
  SessionList,
  SessionParams,
} from './model';
import type { Enrollment } from './module';

const tags = ['enrollment'];

export function enrollmentRoutes(http: Http, enrollment: Enrollment) {
  return agentCreationRoute(http, enrollment)
    .use(agentAdminRoutes(http, enrollment))
    .use(sessionRoutes(http, enrollment))
    .use(remoteEnrollmentRoute(http, enrollment));
}

function agentCreationRoute(http: Http, { agents }: Enrollment) {
  // Creation also takes the local operator token, so `bun run fpa:create-agent` can hand the
  // work to the running server that holds the database.
  return adminRouter(http, 'enrollment-agents-create', { allowOperatorToken: true }).post(
    '/enrollment-agents',
    async ({ body, admin, scope, set }) => {
      const { agent, key } = await agents.createAgent({ name: body.name, algorithmVersion: body.algorithm_version, areas: body.areas, by: admin.by }, scope);
      set.status = 201;
      return { ...agent, key };
    },
    {
      body: AgentCreate,
      response: { 201: AgentWithKey, ...errors('unknown_area') },
      detail: { summary: 'Create an enrollment agent; its key is shown this one time', tags: ['enrollment'] },
    },
  );
}

function agentAdminRoutes(http: Http, { agents }: Enrollment) {
  return adminRouter(http, 'enrollment')
    .get('/enrollment-agents', ({ query, scope }) => agents.listAgents({ limit: query.limit ?? 100, cursor: query.cursor, status: query.status }, scope), {
      query: AgentList.query,
      response: { 200: AgentList.response, ...errors('invalid_cursor') },
      detail: { summary: 'List agents, newest first (never their keys); a caller limited to areas sees those of its areas and those of every area', tags },
    })
    .get('/enrollment-agents/:id', ({ params, scope }) => agents.getAgent(params.id, scope), {
      params: AgentParams,
      response: { 200: Agent, ...errors('not_found') },
      detail: { summary: 'One agent', tags },
    })
    .post('/enrollment-agents/:id/revoke', ({ params, admin, scope }) => agents.revokeAgent(params.id, { by: admin.by }, scope), {
      params: AgentParams,
      response: { 200: Agent, ...errors('not_found') },
      detail: { summary: 'Revoke an agent (idempotent); its open sessions are cancelled', tags },
    })
    .delete('/enrollment-agents/:id', ({ params, admin, scope }) => agents.revokeAgent(params.id, { by: admin.by }, scope), {
      params: AgentParams,
      response: { 200: Agent, ...errors('not_found') },
      detail: { summary: 'Revoke an agent (same as `revoke/`; the record is kept for the audit trail)', tags },
    });
}

/** Sessions of both kinds: an agent session started, listed, read. */
function sessionRoutes(http: Http, enrollment: Enrollment) {
  const { agentSessions } = enrollment;
  return adminRouter(http, 'enrollment-sessions')
    .post(
      '/enrollment-sessions',
      async ({ body, admin, scope, set }) => {
        await enrollment.inScope(body.enrollee.trim(), undefined, scope);
        // An agent the caller does not see is 404 here too, not a hint of its areas.
        await enrollment.agents.getAgent(body.agent.trim(), scope);
        const session = await agentSessions.startAgentSession(body.enrollee.trim(), { agent: body.agent.trim(), fingers: body.fingers, by: admin.by });
        set.status = 201;
        return session;
      },
      {
        body: AdminStartSession,
        response: { 201: Session, ...errors('not_found', 'enrollee_inactive', 'agent_revoked', 'not_in_scope', 'finger_not_allowed', 'too_many_fingers') },
        detail: { summary: 'Start an agent session for an enrollee', tags },
      },
    )
    .get(
      '/enrollment-sessions',
      ({ query, scope }) =>
        agentSessions.listSessions(
          {
            limit: query.limit ?? 100,
            cursor: query.cursor,
            status: query.status,
            agent: query.agent,
            enrollee: query.enrollee,
            kind: query.kind,
          },
          scope,
        ),
      {
        query: SessionList.query,
        response: { 200: SessionList.response, ...errors('invalid_cursor') },
        detail: { summary: 'List sessions of both kinds, newest first', tags },
      },
    )
    .get('/enrollment-sessions/:id', ({ params, scope }) => agentSessions.adminSession(params.id, scope), {
      params: SessionParams,
      response: { 200: Session, ...errors('not_found') },
      detail: { summary: 'One session with its status', tags },
    });
}

function remoteEnrollmentRoute(http: Http, enrollment: Enrollment) {
  const { remote } = enrollment;
  return adminRouter(http, 'remote-enrollment').post(
    '/enrollees/:id/remote-enrollment',
    async ({ params, body, admin, scope, set }) => {
      await enrollment.inScope(params.id, body.device, scope);
      const session = await remote.start(params.id, { device: body.device, type: body.type, fingers: body.fingers, by: admin.by });
      set.status = 201;
      return session;
    },
    {
      params: EnrolleeParams,
      body: RemoteEnrollmentCreate,
      response: {
        201: Session,
        ...errors(
          'not_found',
          'device_not_approved',
          'enrollee_inactive',
          'not_in_scope',
          'consent_required',
          'command_not_supported',
          'device_busy',
          'finger_not_allowed',
          'too_many_fingers',
        ),
      },
      detail: { summary: 'Start a remote session: the terminal enrolls the fingers on command', tags: ['enrollees'] },
    },
  );
}
