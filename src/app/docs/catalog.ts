/**
 * Every HTTP route of the service except the terminals' ADMS endpoints, with its auth, body,
 * answer and error codes. The OpenAPI document is built from this table, and a test compares
 * it with the routes the running app really serves: a route added without an entry here fails
 * that test.
 */

import type { ErrorCode } from '../../platform/errors';
import { API_PREFIX as API_BASE } from '../../platform/http/api-prefix';
import { int, type JsonSchema, str } from './schema-kit';

export type AuthKind = 'agent' | 'admin' | 'admin_or_operator' | 'none';
export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

export interface QueryParam {
  name: string;
  description: string;
  schema?: JsonSchema;
  required?: boolean;
}

export interface DocumentedRoute {
  method: HttpMethod;
  /** From the server root, `{param}` style, with the trailing slash of docs/api.md. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  auth: AuthKind;
  query?: QueryParam[];
  /** Name of a component schema; `optional` when the body may be left out. */
  body?: { schema: string; optional?: boolean };
  response: { status: number; description: string; schema?: string; arrayOf?: string; contentType?: string };
  /** Codes beyond the ones every route of its kind can answer (auth, validation, not found). */
  errors?: ErrorCode[];
  /** A WebSocket upgrade (GET with `Upgrade: websocket`). */
  websocket?: boolean;
}

export const TAGS = [
  { name: 'agent', description: 'The desktop enrollment agent API. `Authorization: Agent <key>`; rate limited per key by AGENT_RATE_LIMIT.' },
  { name: 'enrollment', description: 'Enrollment agents and enrollment sessions (administrators).' },
  { name: 'devices', description: 'Terminals speaking ADMS: approval, settings, command queue.' },
  { name: 'employees', description: 'The built-in employee directory (standalone default).' },
  { name: 'enrollees', description: 'Enrollees, consent, template metadata, remote enrollment.' },
  { name: 'punches', description: 'Punches: polling, listing, live stream.' },
  { name: 'attendance', description: 'Daily attendance results.' },
  { name: 'webhooks', description: 'Webhook endpoints and their deliveries (Standard Webhooks).' },
  { name: 'operations', description: 'Periodic jobs, health and this documentation.' },
];

const API = `${API_BASE}/`;
const api = (path: string) => `${API}${path}`;
const limitAndCursor: QueryParam[] = [
  { name: 'limit', description: 'Page size, 1 to 1000 (default 100).', schema: int(undefined, { minimum: 1, maximum: 1000 }) },
  { name: 'cursor', description: 'The `next_cursor` of the previous page.' },
];
const sessionFlow =
  'Every request on a closed (completed, cancelled, expired, failed) session is `session_closed`; a session past ENROLLMENT_SESSION_TTL is expired when touched.';

export const ROUTES: DocumentedRoute[] = [
  // ---------------------------------------------------------------- agent API
  {
    method: 'get',
    path: api('agent/me/'),
    tag: 'agent',
    auth: 'agent',
    summary: 'Agent info: name, algorithm, allowed fingers, limits, server time',
    response: { status: 200, description: 'The calling agent.', schema: 'AgentInfo' },
  },
  {
    method: 'get',
    path: api('agent/sessions/'),
    tag: 'agent',
    auth: 'agent',
    summary: 'Open sessions of this agent',
    description: 'A plain JSON array of the agent’s sessions that are open or in progress and not expired, oldest first.',
    response: { status: 200, description: 'Open sessions.', arrayOf: 'Session' },
  },
  {
    method: 'post',
    path: api('agent/sessions/'),
    tag: 'agent',
    auth: 'agent',
    summary: 'Start a session (only while AGENT_CAN_START_SESSIONS is on)',
    body: { schema: 'AgentStartSession' },
    response: { status: 201, description: 'The new session, `open`.', schema: 'Session' },
    errors: ['agent_sessions_disabled', 'not_found', 'enrollee_inactive', 'finger_not_allowed', 'too_many_fingers'],
  },
  {
    method: 'get',
    path: api('agent/sessions/{id}/'),
    tag: 'agent',
    auth: 'agent',
    summary: 'One open session of this agent',
    description:
      'A closed (completed, cancelled, expired, failed) session is `session_closed`, like every agent request on it; the error’s `details` hold `session`, `status` and `reason`, so the agent still learns why. A session past ENROLLMENT_SESSION_TTL is expired when touched.',
    response: { status: 200, description: 'The session, `open` or `in_progress`.', schema: 'Session' },
    errors: ['wrong_agent', 'session_closed'],
  },
  {
    method: 'post',
    path: api('agent/sessions/{id}/claim/'),
    tag: 'agent',
    auth: 'agent',
    summary: 'Claim the session (open → in_progress)',
    description: `Claiming an in-progress session again answers it unchanged. ${sessionFlow}`,
    response: { status: 200, description: 'The session, `in_progress`.', schema: 'Session' },
    errors: ['wrong_agent', 'session_closed'],
  },
  {
    method: 'post',
    path: api('agent/sessions/{id}/templates/'),
    tag: 'agent',
    auth: 'agent',
    summary: 'Upload one template; staged encrypted until completion',
    description: `Allowed while the session is open or in progress. Uploading a finger again replaces the staged template. The algorithm must equal the agent’s, and at least one approved in-scope terminal of the enrollee must accept it (directly or through ALGORITHM_COMPATIBILITY_MAP); an enrollee without any in-scope terminal is \`algorithm_incompatible\` with \`details.reason = "no_device_in_scope"\`. ${sessionFlow}`,
    body: { schema: 'TemplateUpload' },
    response: { status: 200, description: 'Captured and remaining fingers.', schema: 'UploadResult' },
    errors: ['wrong_agent', 'session_closed', 'finger_not_requested', 'algorithm_incompatible', 'invalid_template', 'template_too_large'],
  },
  {
    method: 'post',
    path: api('agent/sessions/{id}/complete/'),
    tag: 'agent',
    auth: 'agent',
    summary: 'Complete: store every staged template and queue it to the terminals',
    description: `Atomic: consent present, every requested finger captured, existing plus new fingers not below FINGERS_REQUIRED_MIN; then each template is stored (encrypted, versioned) and queued to the in-scope terminals, and the session completes. If any check fails nothing is stored and the session stays open. ${sessionFlow}`,
    response: { status: 200, description: 'The session, `completed`, with the stored templates.', schema: 'CompletedSession' },
    errors: [
      'wrong_agent',
      'session_closed',
      'consent_required',
      'fingers_missing',
      'too_few_fingers',
      'too_many_fingers',
      'finger_not_allowed',
      'enrollee_inactive',
      'template_too_large',
    ],
  },
  {
    method: 'post',
    path: api('agent/sessions/{id}/cancel/'),
    tag: 'agent',
    auth: 'agent',
    summary: 'Cancel: discard staged uploads; existing templates stay',
    body: { schema: 'CancelSession', optional: true },
    response: { status: 200, description: 'The session, `cancelled`.', schema: 'Session' },
    errors: ['wrong_agent', 'session_closed'],
  },

  // ---------------------------------------------------------------- enrollment (admin)
  {
    method: 'post',
    path: api('enrollment-agents/'),
    tag: 'enrollment',
    auth: 'admin_or_operator',
    summary: 'Create an enrollment agent; its key is shown this one time',
    body: { schema: 'AgentCreate' },
    response: { status: 201, description: 'The agent with its `key`.', schema: 'AgentWithKey' },
  },
  {
    method: 'get',
    path: api('enrollment-agents/'),
    tag: 'enrollment',
    auth: 'admin',
    summary: 'List agents, newest first (never their keys)',
    query: [{ name: 'status', description: '`active` or `revoked`.' }, ...limitAndCursor],
    response: { status: 200, description: 'A page of agents.', schema: 'AgentPage' },
    errors: ['invalid_cursor'],
  },
  {
    method: 'get',
    path: api('enrollment-agents/{id}/'),
    tag: 'enrollment',
    auth: 'admin',
    summary: 'One agent',
    response: { status: 200, description: 'The agent.', schema: 'Agent' },
  },
  {
    method: 'post',
    path: api('enrollment-agents/{id}/revoke/'),
    tag: 'enrollment',
    auth: 'admin',
    summary: 'Revoke an agent (idempotent); its open sessions are cancelled',
    response: { status: 200, description: 'The agent, `revoked`.', schema: 'Agent' },
  },
  {
    method: 'delete',
    path: api('enrollment-agents/{id}/'),
    tag: 'enrollment',
    auth: 'admin',
    summary: 'Revoke an agent (same as `revoke/`; the record is kept for the audit trail)',
    response: { status: 200, description: 'The agent, `revoked`.', schema: 'Agent' },
  },
  {
    method: 'post',
    path: api('enrollment-sessions/'),
    tag: 'enrollment',
    auth: 'admin',
    summary: 'Start an agent session for an enrollee',
    body: { schema: 'AdminStartSession' },
    response: { status: 201, description: 'The new session, `open`.', schema: 'Session' },
    errors: ['agent_revoked', 'enrollee_inactive', 'finger_not_allowed', 'too_many_fingers'],
  },
  {
    method: 'get',
    path: api('enrollment-sessions/'),
    tag: 'enrollment',
    auth: 'admin',
    summary: 'List sessions of both kinds, newest first',
    query: [
      { name: 'status', description: 'A session status.' },
      { name: 'agent', description: 'Agent UUID.' },
      { name: 'enrollee', description: 'Enrollee UUID or device PIN.' },
      { name: 'kind', description: '`agent` or `remote`.' },
      ...limitAndCursor,
    ],
    response: { status: 200, description: 'A page of sessions.', schema: 'SessionPage' },
    errors: ['invalid_cursor'],
  },
  {
    method: 'get',
    path: api('enrollment-sessions/{id}/'),
    tag: 'enrollment',
    auth: 'admin',
    summary: 'One session with its status',
    response: { status: 200, description: 'The session.', schema: 'Session' },
  },

  // ---------------------------------------------------------------- devices
  {
    method: 'get',
    path: api('devices/'),
    tag: 'devices',
    auth: 'admin',
    summary: 'List terminals',
    query: [{ name: 'status', description: '`pending_approval`, `approved` or `disabled`.' }, ...limitAndCursor],
    response: { status: 200, description: 'A page of devices.', schema: 'DevicePage' },
    errors: ['invalid_cursor'],
  },
  {
    method: 'get',
    path: api('devices/{serial_number}/'),
    tag: 'devices',
    auth: 'admin',
    summary: 'One terminal with pending commands, templates present and recent events',
    response: { status: 200, description: 'The device.', schema: 'DeviceDetail' },
  },
  {
    method: 'patch',
    path: api('devices/{serial_number}/'),
    tag: 'devices',
    auth: 'admin',
    summary: 'Change time zone, areas, name or algorithm version',
    body: { schema: 'DevicePatch' },
    response: { status: 200, description: 'The device.', schema: 'Device' },
  },
  {
    method: 'post',
    path: api('devices/{serial_number}/approve/'),
    tag: 'devices',
    auth: 'admin',
    summary: 'Approve a pending terminal; every in-scope enrollee is backfilled',
    body: { schema: 'DeviceApprove', optional: true },
    response: { status: 200, description: 'The device, `approved`.', schema: 'Device' },
    errors: ['device_not_pending'],
  },
  {
    method: 'post',
    path: api('devices/{serial_number}/disable/'),
    tag: 'devices',
    auth: 'admin',
    summary: 'Disable a terminal',
    response: { status: 200, description: 'The device, `disabled`.', schema: 'Device' },
  },
  {
    method: 'get',
    path: api('devices/{serial_number}/commands/'),
    tag: 'devices',
    auth: 'admin',
    summary: 'Command queue of a terminal',
    query: [{ name: 'status', description: 'A command status.' }, ...limitAndCursor],
    response: { status: 200, description: 'A page of commands.', schema: 'DeviceCommandPage' },
    errors: ['invalid_cursor'],
  },

  // ---------------------------------------------------------------- employees
  {
    method: 'get',
    path: api('employees/'),
    tag: 'employees',
    auth: 'admin',
    summary: 'List employees of the built-in directory',
    query: limitAndCursor,
    response: { status: 200, description: 'A page of employees.', schema: 'EmployeePage' },
    errors: ['invalid_cursor'],
  },
  {
    method: 'post',
    path: api('employees/'),
    tag: 'employees',
    auth: 'admin',
    summary: 'Add an employee to the built-in directory',
    body: { schema: 'EmployeeCreate' },
    response: { status: 201, description: 'The employee.', schema: 'Employee' },
    errors: ['conflict'],
  },
  {
    method: 'get',
    path: api('employees/{id}/'),
    tag: 'employees',
    auth: 'admin',
    summary: 'One employee',
    response: { status: 200, description: 'The employee.', schema: 'Employee' },
  },

  // ---------------------------------------------------------------- enrollees
  {
    method: 'get',
    path: api('enrollees/'),
    tag: 'enrollees',
    auth: 'admin',
    summary: 'List enrollees',
    query: [{ name: 'employee', description: 'Employee key.' }, { name: 'device_pin', description: 'Device PIN.' }, ...limitAndCursor],
    response: { status: 200, description: 'A page of enrollees.', schema: 'EnrolleePage' },
    errors: ['invalid_cursor'],
  },
  {
    method: 'post',
    path: api('enrollees/'),
    tag: 'enrollees',
    auth: 'admin',
    summary: 'Create an enrollee with an auto-generated device PIN',
    body: { schema: 'EnrolleeCreate' },
    response: { status: 201, description: 'The enrollee.', schema: 'Enrollee' },
    errors: ['unknown_employee', 'employee_inactive', 'conflict'],
  },
  {
    method: 'get',
    path: api('enrollees/{id}/'),
    tag: 'enrollees',
    auth: 'admin',
    summary: 'One enrollee',
    response: { status: 200, description: 'The enrollee.', schema: 'Enrollee' },
  },
  {
    method: 'patch',
    path: api('enrollees/{id}/'),
    tag: 'enrollees',
    auth: 'admin',
    summary: 'Change areas, display name or active state',
    body: { schema: 'EnrolleePatch' },
    response: { status: 200, description: 'The enrollee.', schema: 'Enrollee' },
  },
  {
    method: 'delete',
    path: api('enrollees/{id}/'),
    tag: 'enrollees',
    auth: 'admin',
    summary: 'Delete: templates destroyed, the user removed from every terminal',
    response: { status: 200, description: 'How many templates were destroyed.', schema: 'EnrolleeDeleted' },
  },
  {
    method: 'post',
    path: api('enrollees/{id}/consent/'),
    tag: 'enrollees',
    auth: 'admin',
    summary: 'Record consent (`by` is the caller)',
    body: { schema: 'ConsentCreate' },
    response: { status: 201, description: 'The consent record.', schema: 'Consent' },
    errors: ['enrollee_inactive'],
  },
  {
    method: 'delete',
    path: api('enrollees/{id}/consent/'),
    tag: 'enrollees',
    auth: 'admin',
    summary: 'Withdraw consent: templates destroyed and deleted from terminals',
    response: { status: 200, description: 'Withdrawal summary.', schema: 'ConsentWithdrawn' },
  },
  {
    method: 'get',
    path: api('enrollees/{id}/templates/'),
    tag: 'enrollees',
    auth: 'admin',
    summary: 'Template metadata with per-terminal sync status (never the bytes)',
    response: { status: 200, description: 'The templates.', schema: 'TemplatePage' },
  },
  {
    method: 'post',
    path: api('enrollees/{id}/remote-enrollment/'),
    tag: 'enrollees',
    auth: 'admin',
    summary: 'Start a remote session: the terminal enrolls the fingers on command',
    body: { schema: 'RemoteEnrollmentCreate' },
    response: { status: 201, description: 'The remote session.', schema: 'Session' },
    errors: ['device_not_approved', 'device_busy', 'not_in_scope', 'enrollee_inactive', 'consent_required', 'finger_not_allowed', 'too_many_fingers'],
  },

  // ---------------------------------------------------------------- punches and days
  {
    method: 'get',
    path: api('punches/latest/'),
    tag: 'punches',
    auth: 'admin',
    summary: 'Punches after a sequence, ascending, for polling',
    query: [
      { name: 'after', description: 'Last sequence seen (0 for the beginning).', schema: int(undefined, { minimum: 0 }) },
      { name: 'limit', description: 'At most this many punches, 1 to 1000.', schema: int(undefined, { minimum: 1, maximum: 1000 }) },
    ],
    response: { status: 200, description: 'Punches and the last sequence.', schema: 'PunchLatest' },
  },
  {
    method: 'get',
    path: api('punches/'),
    tag: 'punches',
    auth: 'admin',
    summary: 'List punches',
    query: [
      { name: 'employee', description: 'Employee key.' },
      { name: 'device', description: 'Terminal serial number.' },
      { name: 'from', description: 'From this instant (ISO 8601), inclusive.', schema: str(undefined, { format: 'date-time' }) },
      { name: 'to', description: 'Before this instant (ISO 8601).', schema: str(undefined, { format: 'date-time' }) },
      ...limitAndCursor,
    ],
    response: { status: 200, description: 'A page of punches.', schema: 'PunchPage' },
    errors: ['invalid_cursor'],
  },
  {
    method: 'get',
    path: api('punches/stream/'),
    tag: 'punches',
    auth: 'admin',
    websocket: true,
    summary: 'WebSocket: one JSON message per punch, oldest first, then live',
    description:
      'Upgrade to a WebSocket. Resumes after `?after=<sequence>`. The administrator token comes in the Authorization header or, for browsers, as the `access_token` query parameter; the socket is closed with 4401 `token expired` when that token expires. An administrator (token subject) holding WEBSOCKET_MAX_PER_ADMIN open streams on the instance is refused with 429 `rate_limited` before the upgrade.',
    query: [
      { name: 'after', description: 'Resume after this sequence.', schema: int(undefined, { minimum: 0 }) },
      { name: 'access_token', description: 'Administrator JWT, for clients that cannot set headers.' },
    ],
    response: { status: 101, description: 'Switching protocols; each message is one Punch.', schema: 'Punch' },
    errors: ['rate_limited'],
  },
  {
    method: 'get',
    path: api('attendance-days/'),
    tag: 'attendance',
    auth: 'admin',
    summary: 'AttendanceDay records',
    query: [
      { name: 'employee', description: 'Employee key.' },
      { name: 'from', description: 'First local date, YYYY-MM-DD.', schema: str(undefined, { format: 'date' }) },
      { name: 'to', description: 'Last local date, YYYY-MM-DD.', schema: str(undefined, { format: 'date' }) },
      { name: 'status', description: '`present`, `incomplete`, `absent` or `non_working_day`.' },
      ...limitAndCursor,
    ],
    response: { status: 200, description: 'A page of attendance days.', schema: 'AttendanceDayPage' },
    errors: ['invalid_cursor'],
  },

  // ---------------------------------------------------------------- webhooks
  {
    method: 'get',
    path: api('webhooks/'),
    tag: 'webhooks',
    auth: 'admin',
    summary: 'List webhook endpoints (never their secrets)',
    query: limitAndCursor,
    response: { status: 200, description: 'A page of endpoints.', schema: 'WebhookPage' },
    errors: ['invalid_cursor'],
  },
  {
    method: 'post',
    path: api('webhooks/'),
    tag: 'webhooks',
    auth: 'admin',
    summary: 'Add a webhook endpoint; its signing secret is shown this one time',
    body: { schema: 'WebhookCreate' },
    response: { status: 201, description: 'The endpoint with its `secret`.', schema: 'WebhookWithSecret' },
    errors: ['webhook_url_refused'],
  },
  {
    method: 'get',
    path: api('webhooks/{id}/'),
    tag: 'webhooks',
    auth: 'admin',
    summary: 'One webhook endpoint (never its secret)',
    response: { status: 200, description: 'The endpoint.', schema: 'Webhook' },
  },
  {
    method: 'delete',
    path: api('webhooks/{id}/'),
    tag: 'webhooks',
    auth: 'admin',
    summary: 'Remove a webhook endpoint',
    response: { status: 204, description: 'Removed.' },
  },
  {
    method: 'post',
    path: api('webhooks/{id}/enable/'),
    tag: 'webhooks',
    auth: 'admin',
    summary: 'Enable an endpoint again after it was disabled; delivery resumes where it stopped',
    description:
      'The URL is checked again. The events held while the endpoint was disabled (after its `position`) go out in order, due now; its pending message rows are sent again. Dead messages stay dead until recovered or redelivered.',
    response: { status: 200, description: 'The endpoint, active.', schema: 'Webhook' },
    errors: ['webhook_url_refused'],
  },
  {
    method: 'post',
    path: api('webhooks/{id}/test/'),
    tag: 'webhooks',
    auth: 'admin',
    summary: 'Send a signed `webhook_test` event now and answer the attempt',
    description:
      'Body `{ "type": "webhook_test", "timestamp", "data": { "endpoint" } }`, signed like every delivery, after the same URL check. Nothing is stored but an audit entry; enabled or not, the endpoint does not change.',
    response: { status: 200, description: 'The attempt.', schema: 'WebhookTestResult' },
  },
  {
    method: 'post',
    path: api('webhooks/{id}/recover/'),
    tag: 'webhooks',
    auth: 'admin',
    summary: 'Send again every message since an instant that was not delivered (failed, dead-lettered, held)',
    description:
      'Dead and pending messages of events recorded at or after `since` become pending, due now, with a fresh attempt budget; a backoff is cut short. While the endpoint is disabled they wait until it is enabled. `requeued` counts every message since `since` that will be sent, those ahead in the ordered delivery included.',
    body: { schema: 'WebhookRecover' },
    response: { status: 200, description: 'How many messages will be sent.', schema: 'WebhookRecovered' },
  },
  {
    method: 'get',
    path: api('webhooks/{id}/messages/'),
    tag: 'webhooks',
    auth: 'admin',
    summary: 'Messages of an endpoint (one per subscribed event since it was created), newest first',
    description:
      'Derived from the event log and the endpoint: `delivered` at or before its `position`; `pending` after it (`held` while the endpoint is disabled); `dead` (refused with a 4xx, or out of attempts after a redelivery) and hand-queued messages have their own row.',
    query: [{ name: 'status', description: '`pending`, `held` (the endpoint is disabled), `delivered` or `dead`.' }, ...limitAndCursor],
    response: { status: 200, description: 'A page of messages.', schema: 'WebhookMessagePage' },
    errors: ['invalid_cursor'],
  },
  {
    method: 'post',
    path: api('webhooks/{id}/messages/{message}/redeliver/'),
    tag: 'webhooks',
    auth: 'admin',
    summary: 'Deliver a message again (for example a dead-lettered one)',
    response: { status: 200, description: 'The message, pending again.', schema: 'WebhookMessage' },
  },
  {
    method: 'get',
    path: api('webhooks/{id}/deliveries/'),
    tag: 'webhooks',
    auth: 'admin',
    summary: 'Delivery attempts with status code, error and next retry',
    description:
      'Every failed attempt, every attempt of a message row, and one row per run of in-order deliveries (`count` messages, the last of them `message_id`).',
    query: [{ name: 'message', description: 'Only the rows naming this message.' }, ...limitAndCursor],
    response: { status: 200, description: 'A page of attempts.', schema: 'WebhookDeliveryPage' },
    errors: ['invalid_cursor'],
  },

  // ---------------------------------------------------------------- events, audit
  {
    method: 'get',
    path: api('events/'),
    tag: 'operations',
    auth: 'admin',
    summary: 'The durable log of every domain event, after a sequence, ascending',
    query: [
      { name: 'after', description: 'The last sequence already seen.' },
      { name: 'type', description: 'Event types to include, comma-separated.' },
      { name: 'limit', description: 'At most this many (default 100).', schema: int(undefined, { minimum: 1, maximum: 1000 }) },
    ],
    response: { status: 200, description: '`{ results: [{ sequence, id, type, at, data }], last_sequence }`.' },
  },
  {
    method: 'get',
    path: api('events/stream/'),
    tag: 'operations',
    auth: 'admin',
    websocket: true,
    summary: 'WebSocket: one JSON message per event (as `events/`), oldest first, then live',
    query: [
      { name: 'after', description: 'Resume after this sequence.' },
      { name: 'type', description: 'Event types to include, comma-separated.' },
      { name: 'access_token', description: 'Administrator JWT, for clients that cannot set headers.' },
    ],
    response: { status: 101, description: 'Switching protocols.' },
    errors: ['rate_limited'],
  },
  {
    method: 'get',
    path: api('audit-log/'),
    tag: 'operations',
    auth: 'admin',
    summary: 'The audit log, newest first',
    query: [
      { name: 'actor', description: 'Only this actor.' },
      { name: 'action', description: 'Only this action.' },
      { name: 'from', description: 'From this local date or instant.' },
      { name: 'to', description: 'Up to this local date or instant.' },
      ...limitAndCursor,
    ],
    response: { status: 200, description: 'A page of entries.' },
    errors: ['invalid_cursor'],
  },
  {
    method: 'get',
    path: api('health/'),
    tag: 'operations',
    auth: 'admin',
    summary: 'What needs attention: terminals, commands, webhook backlog, jobs, punches today',
    response: { status: 200, description: 'The health summary.' },
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'operations',
    auth: 'admin',
    summary: 'Prometheus metrics of this instance',
    description: 'An administrator token, or `Bearer <METRICS_TOKEN>`.',
    response: { status: 200, description: 'Prometheus text format.', contentType: 'text/plain' },
  },
  {
    method: 'get',
    path: '/readyz',
    tag: 'operations',
    auth: 'none',
    summary: 'Ready: the database answers and is migrated (503 otherwise)',
    response: { status: 200, description: 'Ready.' },
  },

  // ---------------------------------------------------------------- operations
  {
    method: 'get',
    path: api('jobs/'),
    tag: 'operations',
    auth: 'admin',
    summary: 'Periodic jobs: schedule, last run, last result, next run, holder',
    response: { status: 200, description: 'The jobs.', schema: 'JobList' },
  },
  {
    method: 'post',
    path: api('jobs/{name}/run/'),
    tag: 'operations',
    auth: 'admin_or_operator',
    summary: 'Run a job now and answer its summary',
    body: { schema: 'JobRun', optional: true },
    response: { status: 200, description: 'The outcome.', schema: 'JobOutcome' },
    errors: ['job_running'],
  },
  {
    method: 'get',
    path: api('docs/'),
    tag: 'operations',
    auth: 'admin',
    summary: 'This documentation as an HTML page',
    description:
      'For a browser, the administrator JWT may come as the `access_token` query parameter instead of the Authorization header. The page holds the document itself.',
    response: { status: 200, description: 'HTML page.', contentType: 'text/html' },
  },
  {
    method: 'get',
    path: api('docs/json'),
    tag: 'operations',
    auth: 'admin',
    summary: 'This OpenAPI document',
    description: 'The administrator JWT comes in the Authorization header or as the `access_token` query parameter.',
    response: { status: 200, description: 'The OpenAPI 3.1 document.' },
  },
  {
    method: 'get',
    path: '/healthz',
    tag: 'operations',
    auth: 'none',
    summary: 'Health of the standalone server (not part of the embeddable plugin)',
    response: { status: 200, description: '`ok` when the database answers (503 `unavailable` otherwise).', schema: 'Health' },
  },
];
