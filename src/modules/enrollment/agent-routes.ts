/**
 * The agent API (docs/spec.md "Agent API", base `/api/fingerprint/v1/agent/`): every request carries
 * `Authorization: Agent <key>` and counts against AGENT_RATE_LIMIT of that key (in the database,
 * so every instance shares the count). The routes only translate HTTP; the rules live in
 * AgentSessionService.
 */
import { Elysia, t } from 'elysia';
import { FpaError } from '../../platform/errors';
import { settledBody } from '../../platform/http/body';
import { errors } from '../../platform/http/model';
import { apiRouter, type Http, SECURITY_SCHEMES } from '../../platform/http/router';
import type { Runtime } from '../../platform/runtime';
import type { AgentRow } from './agents';
import { AgentInfo, AgentStartSession, CancelSession, CompletedSession, Session, SessionParams, TemplateUpload, UploadResult } from './model';
import type { Enrollment } from './module';
import { MIN_TEMPLATE_BYTES } from './template-bytes';

const tags = ['agent'];
/** What every agent request may answer besides its own errors. */
const agentErrors = (...codes: Parameters<typeof errors>) => errors('rate_limited', ...codes);
const sessionFlow =
  'Every request on a closed (completed, cancelled, expired, failed) session is `session_closed`; a session past ENROLLMENT_SESSION_TTL is expired when touched.';

export function agentInfo(ctx: Runtime, agent: AgentRow) {
  const { settings, clock } = ctx;
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

export function agentRoutes(http: Http, enrollment: Enrollment) {
  return new Elysia({ name: 'fpa-agent-routes', seed: http.runtime.instanceId })
    .use(sessionRoutes(http, enrollment))
    .use(uploadRoute(http, enrollment))
    .use(closingRoutes(http, enrollment));
}

/** A router of the agent API: the agent behind the key, counted against its rate limit. */
function agentRouter(http: Http, name: string, { agents, limiter }: Enrollment) {
  // `derive` (not `resolve`): the key and the rate limit are checked before the body is
  // validated, so an anonymous caller learns nothing and malformed requests still count.
  // A JSON `null` body is passed on: the cancel body may be null (its model says so); every other
  // body schema refuses it.
  return apiRouter(http, name, { security: [{ [SECURITY_SCHEMES.agent]: [] }], allowNullBody: true }).derive(async (context) => {
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
    context.body = settledBody(context.body);
    return { agent };
  });
}

/** Who the agent is, its open sessions, starting and claiming one. */
function sessionRoutes(http: Http, enrollment: Enrollment) {
  const { agentSessions: sessions } = enrollment;
  const { runtime } = http;
  return agentRouter(http, 'agent-api', enrollment)
    .get('/agent/me', ({ agent }) => agentInfo(runtime, agent), {
      response: { 200: AgentInfo, ...agentErrors() },
      detail: { summary: 'Agent info: name, algorithm, allowed fingers, limits, server time', tags },
    })
    .get('/agent/sessions', ({ agent }) => sessions.openSessionsOf(agent), {
      response: { 200: t.Array(Session), ...agentErrors() },
      detail: { summary: 'Open sessions of this agent (a plain JSON array, as docs/spec.md has it)', tags },
    })
    .post(
      '/agent/sessions',
      async ({ agent, body, set }) => {
        if (!runtime.settings.AGENT_CAN_START_SESSIONS) {
          throw new FpaError('agent_sessions_disabled', 'agents may not start sessions here (AGENT_CAN_START_SESSIONS is off)', {});
        }
        const session = await sessions.startAgentSession(body.enrollee.trim(), {
          agent: agent.id,
          fingers: body.fingers,
          by: `agent:${agent.id}`,
          asAgent: true,
        });
        set.status = 201;
        return session;
      },
      {
        body: AgentStartSession,
        response: {
          201: Session,
          ...agentErrors('agent_sessions_disabled', 'not_found', 'enrollee_inactive', 'finger_not_allowed', 'too_many_fingers', 'agent_revoked'),
        },
        detail: { summary: 'Start a session (only while AGENT_CAN_START_SESSIONS is on)', tags },
      },
    )
    .get('/agent/sessions/:id', ({ agent, params }) => sessions.sessionFor(agent, params.id), {
      params: SessionParams,
      response: { 200: Session, ...agentErrors('not_found', 'wrong_agent', 'session_closed') },
      detail: {
        summary: 'One open session of this agent',
        description:
          'A closed (completed, cancelled, expired, failed) session is `session_closed`, like every agent request on it; the error’s `details` hold `session`, `status` and `reason`, so the agent still learns why. A session past ENROLLMENT_SESSION_TTL is expired when touched.',
        tags,
      },
    })
    .post('/agent/sessions/:id/claim', ({ agent, params }) => sessions.claim(agent, params.id), {
      params: SessionParams,
      response: { 200: Session, ...agentErrors('not_found', 'wrong_agent', 'session_closed') },
      detail: {
        summary: 'Claim the session (open → in_progress)',
        description: `Claiming an in-progress session again answers it unchanged. ${sessionFlow}`,
        tags,
      },
    });
}

function uploadRoute(http: Http, enrollment: Enrollment) {
  const { agentSessions: sessions } = enrollment;
  return agentRouter(http, 'agent-api-upload', enrollment).post(
    '/agent/sessions/:id/templates',
    ({ agent, params, body }) =>
      sessions.upload(agent, params.id, {
        fingerIndex: body.finger_index,
        algorithmVersion: body.algorithm_version,
        template: body.template,
        quality: body.quality ?? null,
      }),
    {
      params: SessionParams,
      body: TemplateUpload,
      response: {
        200: UploadResult,
        ...agentErrors(
          'not_found',
          'wrong_agent',
          'session_closed',
          'finger_not_requested',
          'consent_required',
          'algorithm_incompatible',
          'invalid_template',
          'template_too_large',
          'template_algorithm_mismatch',
          'template_duplicate',
          'payload_too_large',
        ),
      },
      detail: {
        summary: 'Upload one template; staged encrypted until completion',
        description: `Allowed while the session is open or in progress, and (ENROLLMENT_REQUIRE_CONSENT) once the enrollee’s consent is recorded: before, \`consent_required\` and nothing is staged. Uploading a finger again replaces the staged template; the same bytes as another finger’s of the session are \`template_duplicate\`. A template under ${MIN_TEMPLATE_BYTES} bytes is \`invalid_template\`; one whose bytes are a ZKFinger v9 or v10 template while another of the two is declared is \`template_algorithm_mismatch\` (\`details.declared\`, \`details.found\`). The algorithm must equal the agent’s, and at least one approved in-scope terminal of the enrollee must accept it (directly or through ALGORITHM_COMPATIBILITY_MAP); otherwise \`algorithm_incompatible\` with \`details.reason\` \`no_device_in_scope\` (no in-scope terminal), \`no_fingerprint_reader\` (none of them reads fingerprints: FingerFunOn=0) or \`no_device_accepts\`, and \`details.devices\` each with its own \`reason\`. ${sessionFlow}`,
        tags,
      },
    },
  );
}

/** Completing (store and queue every staged template) or cancelling a session. */
function closingRoutes(http: Http, enrollment: Enrollment) {
  const { agentSessions: sessions } = enrollment;
  return agentRouter(http, 'agent-api-close', enrollment)
    .post('/agent/sessions/:id/complete', ({ agent, params }) => sessions.complete(agent, params.id), {
      params: SessionParams,
      response: {
        200: CompletedSession,
        ...agentErrors(
          'not_found',
          'wrong_agent',
          'session_closed',
          'consent_required',
          'fingers_missing',
          'too_few_fingers',
          'too_many_fingers',
          'finger_not_allowed',
          'enrollee_inactive',
        ),
      },
      detail: {
        summary: 'Complete: store every staged template and queue it to the terminals',
        description: `Atomic: consent present, every requested finger captured, existing plus new fingers not below FINGERS_REQUIRED_MIN; then each template is stored (encrypted, versioned) and queued to the in-scope terminals, and the session completes. If any check fails nothing is stored and the session stays open. ${sessionFlow}`,
        tags,
      },
    })
    .post('/agent/sessions/:id/cancel', ({ agent, params, body }) => sessions.cancel(agent, params.id, body?.reason?.trim() || null), {
      params: SessionParams,
      body: CancelSession,
      response: { 200: Session, ...agentErrors('not_found', 'wrong_agent', 'session_closed') },
      detail: { summary: 'Cancel: discard staged uploads; existing templates stay', tags },
    });
}
