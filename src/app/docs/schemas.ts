/** The component schemas of the OpenAPI document: every body the HTTP API reads or answers. */

import { ERROR_STATUS } from '../../platform/errors';
import { DAY_STATUSES, DEVICE_STATUSES, SESSION_STATUSES, SYNC_STATUSES } from '../schema';
import { arr, bool, dateTime, freeObject, int, type JsonSchema, nullable, obj, oneOfStrings, page, ref, str, uuid } from './schema-kit';

const fingerIndex = int('Finger index (0 left little … 9 right little).', { minimum: 0 });
const fingers = (description: string) => arr(fingerIndex, description);

const ErrorBody: JsonSchema = obj(
  {
    error: obj({
      code: oneOfStrings(Object.keys(ERROR_STATUS), 'Stable machine-readable code; see the responses of each operation.'),
      message: str('Human-readable explanation.'),
      details: freeObject('Further information, specific to the code.'),
    }),
  },
  { description: 'The one error body of the API: `{ "error": { "code", "message", "details" } }`.' },
);

const EnrolleeRef = obj({ id: uuid(), display_name: str(), device_pin: str() });

const Session = obj(
  {
    id: uuid(),
    kind: oneOfStrings(['agent', 'remote'], '`agent`: a desktop agent; `remote`: a terminal enrolls on command.'),
    status: oneOfStrings(SESSION_STATUSES, 'open → in_progress (claim) → completed | cancelled | failed; expired after ENROLLMENT_SESSION_TTL.'),
    enrollee: EnrolleeRef,
    fingers_requested: fingers('Fingers to capture.'),
    fingers_captured: fingers('Fingers uploaded so far.'),
    agent: nullable(uuid('The agent of an agent session.')),
    device: nullable(str('Serial number of the terminal of a remote session.')),
    reason: nullable(str('Why the session closed (cancel reason, expiry, failure).')),
    created_at: dateTime(),
    claimed_at: nullable(dateTime()),
    closed_at: nullable(dateTime()),
    expires_at: dateTime(),
  },
  { description: 'An enrollment session.' },
);

const CompletedSession: JsonSchema = {
  allOf: [
    ref('Session'),
    obj({
      templates: arr(
        obj({
          finger_index: fingerIndex,
          algorithm_version: str(),
          version: int('Version of the stored template (1 for a new finger).'),
          queued_to: int('Terminals the template was queued to.'),
          incompatible: int('In-scope terminals whose algorithm cannot use it.'),
        }),
      ),
    }),
  ],
};

const Agent = obj({
  id: uuid(),
  name: str(),
  algorithm_version: str('Algorithm version of the agent’s reader; uploads must carry it.'),
  key_prefix: str('Public part of the key (`fpa_<prefix>_…`), to tell keys apart.'),
  status: oneOfStrings(['active', 'revoked']),
  created_by: str(),
  created_at: dateTime(),
  revoked_at: nullable(dateTime()),
  last_used_at: nullable(dateTime('Last authenticated request (minute resolution).')),
});

const Device = obj({
  serial_number: str(),
  name: nullable(str()),
  status: oneOfStrings(DEVICE_STATUSES),
  algorithm_version: nullable(str()),
  time_zone: str('IANA time zone (the device’s own or TIME_ZONE).'),
  areas: arr(str()),
  last_seen_at: nullable(dateTime()),
  online: bool(),
  firmware: nullable(str()),
  push_version: nullable(str()),
  ip_address: nullable(str()),
  user_count: nullable(int()),
  fingerprint_count: nullable(int()),
  attendance_count: nullable(int()),
  approved_at: nullable(dateTime()),
  created_at: dateTime(),
});

const Consent = obj({ version: str(), method: str(), given_by: str(), given_at: dateTime() });

const Enrollee = obj({
  id: uuid(),
  employee: str('The employee’s key in the HR system (EMPLOYEE_LOOKUP_FIELD).'),
  device_pin: str('Auto-generated, numeric, never reused.'),
  display_name: str(),
  status: oneOfStrings(['active', 'deactivated', 'deleted']),
  areas: arr(str()),
  consent: nullable(ref('Consent')),
  fingers: fingers('Fingers with a stored template.'),
  created_at: dateTime(),
});

const Punch = obj(
  {
    sequence: int('Assigned in commit order; the polling cursor.'),
    id: uuid(),
    employee: nullable(str()),
    enrollee: nullable(uuid()),
    device_pin: str(),
    device: str('Serial number of the terminal.'),
    punched_at: dateTime('UTC instant.'),
    local_time: str('Wall time on the terminal, as sent.'),
    utc_offset_minutes: int(),
    state: int(),
    verify_type: int(),
    work_code: str(),
    flags: arr(str()),
    received_at: dateTime(),
  },
  { optional: ['utc_offset_minutes', 'flags'] },
);

const AttendanceDay = obj({
  employee: str(),
  enrollee: uuid(),
  date: str('Local date, YYYY-MM-DD.', { format: 'date' }),
  first_in: nullable(dateTime()),
  last_out: nullable(dateTime()),
  worked_seconds: int(),
  punch_count: int(),
  status: oneOfStrings(DAY_STATUSES),
  flags: arr(str(), 'For example `late`, `early_leave`.'),
});

const Webhook = obj({
  id: uuid(),
  url: str(undefined, { format: 'uri' }),
  events: arr(str(), 'Event types delivered, e.g. `punch_received`.'),
  active: bool(),
  disabled_reason: nullable(str()),
  failing_since: nullable(dateTime()),
  created_by: str(),
  created_at: dateTime(),
  position: int('Every subscribed event up to this sequence of the event log was handed off (delivered, or dead-lettered).'),
  attempts: int('Consecutive failed attempts of the next message.'),
  next_attempt_at: nullable(dateTime('While backing off: when delivery is tried again.')),
  last_error: nullable(str()),
  last_delivered_at: nullable(dateTime()),
});

const WebhookMessage = obj({
  id: str('The event id (`evt_…`): the `webhook-id` of every attempt.'),
  event_type: str(),
  event_sequence: int(),
  status: oneOfStrings(['pending', 'held', 'delivered', 'dead']),
  attempts: nullable(int('Null for a message delivered in order (not counted per message).')),
  next_attempt_at: nullable(dateTime()),
  last_error: nullable(str()),
  created_at: dateTime('When the event was recorded.'),
  delivered_at: nullable(dateTime('Where known: null for a message delivered in order.')),
});

const Job = obj({
  name: str(),
  description: str(),
  schedule: nullable(str('Cron pattern with seconds; null for jobs only run by hand.')),
  scheduled: bool(),
  running: bool(),
  holder: nullable(str()),
  last_started_at: nullable(dateTime()),
  last_finished_at: nullable(dateTime()),
  last_status: nullable(str()),
  last_result: nullable(freeObject()),
  last_holder: nullable(str()),
  next_run_at: nullable(dateTime()),
});

export const COMPONENT_SCHEMAS: Record<string, JsonSchema> = {
  Error: ErrorBody,
  EnrolleeRef,
  Session,
  CompletedSession,
  SessionPage: page(ref('Session')),
  AgentInfo: obj({
    id: uuid(),
    name: str(),
    algorithm_version: str(),
    allowed_fingers: fingers('ALLOWED_FINGER_INDEXES.'),
    can_start_sessions: bool('AGENT_CAN_START_SESSIONS.'),
    consent_required: bool('ENROLLMENT_REQUIRE_CONSENT.'),
    limits: obj({
      template_max_bytes: int(),
      fingers_required_min: int(),
      fingers_allowed_max: int(),
      session_ttl_seconds: int(),
      rate_limit: obj({ requests: int(), window_seconds: int() }),
    }),
    server_time: dateTime(),
  }),
  AgentStartSession: obj(
    { enrollee: str('Enrollee UUID or device PIN.'), fingers: fingers('Fingers to capture (allowed, unique, at most FINGERS_ALLOWED_MAX).') },
    { closed: false },
  ),
  TemplateUpload: obj(
    {
      finger_index: fingerIndex,
      algorithm_version: str('Must equal the agent’s registered algorithm.'),
      template: str('Standard base64 (RFC 4648, padded) of the template bytes, at most TEMPLATE_MAX_BYTES decoded.', { contentEncoding: 'base64' }),
      quality: nullable(int('Quality score from the reader.', { minimum: 0 })),
    },
    { optional: ['quality'] },
  ),
  UploadResult: obj({ captured: fingers('Fingers staged on the session.'), remaining: fingers('Requested fingers still missing.') }),
  CancelSession: obj({ reason: nullable(str(undefined, { maxLength: 500 })) }, { optional: ['reason'] }),
  Agent,
  AgentWithKey: { allOf: [ref('Agent'), obj({ key: str('The agent key `fpa_<prefix>_<secret>`; shown this one time, only its SHA-256 digest is stored.') })] },
  AgentPage: page(ref('Agent')),
  AgentCreate: obj({ name: str(undefined, { maxLength: 200 }), algorithm_version: str(undefined, { maxLength: 32 }) }, { closed: true }),
  AdminStartSession: obj(
    { enrollee: str('Enrollee UUID (a device PIN is accepted too).'), agent: uuid('The agent that will capture.'), fingers: fingers('Fingers to capture.') },
    { closed: true },
  ),
  Device,
  DeviceDetail: {
    allOf: [
      ref('Device'),
      obj({
        pending_commands: int(),
        templates_present: int(),
        parameters: freeObject('Last option/INFO values reported by the terminal.'),
        recent_events: arr(obj({ kind: str(), message: str(), details: nullable(freeObject()), at: dateTime() })),
      }),
    ],
  },
  DevicePage: page(ref('Device')),
  DevicePatch: obj(
    { time_zone: nullable(str()), areas: arr(str()), name: nullable(str()), algorithm_version: nullable(str()) },
    { optional: ['time_zone', 'areas', 'name', 'algorithm_version'], closed: true },
  ),
  DeviceApprove: obj({ areas: arr(str()) }, { optional: ['areas'], closed: true }),
  DeviceCommand: obj({
    id: int(),
    kind: str(),
    status: oneOfStrings(['pending', 'sent', 'succeeded', 'failed', 'expired', 'superseded']),
    attempts: int(),
    created_at: dateTime(),
    sent_at: nullable(dateTime()),
    completed_at: nullable(dateTime()),
    expires_at: dateTime(),
    return_code: nullable(int()),
    result: nullable(freeObject()),
    payload: freeObject('References only (PIN, finger), never template bytes.'),
  }),
  DeviceCommandPage: page(ref('DeviceCommand')),
  Employee: obj({ id: str(), name: str(), active: bool(), created_at: dateTime() }),
  EmployeePage: page(ref('Employee')),
  EmployeeCreate: obj({ id: str(), name: str(), active: bool() }, { optional: ['active'], closed: true }),
  Enrollee,
  EnrolleePage: page(ref('Enrollee')),
  EnrolleeCreate: obj({ employee: str('Lookup value of the employee.'), areas: arr(str()) }, { optional: ['areas'], closed: true }),
  EnrolleePatch: obj({ areas: arr(str()), display_name: str(), active: bool() }, { optional: ['areas', 'display_name', 'active'], closed: true }),
  EnrolleeDeleted: obj({ templates_destroyed: int() }),
  Consent,
  ConsentCreate: obj({ version: str(), method: str() }, { closed: true }),
  ConsentWithdrawn: obj({ withdrawn: bool(), templates_destroyed: int() }),
  TemplateInfo: obj({
    id: uuid(),
    finger_index: fingerIndex,
    algorithm_version: str(),
    version: int(),
    size: int('Bytes.'),
    quality: nullable(int()),
    source: oneOfStrings(['agent', 'device', 'remote', 'api']),
    updated_at: dateTime(),
    sync: arr(obj({ device: str(), status: oneOfStrings(SYNC_STATUSES), detail: nullable(str()), updated_at: dateTime() })),
  }),
  TemplatePage: page(ref('TemplateInfo')),
  RemoteEnrollmentCreate: obj({ device: str('Serial number of the terminal.'), fingers: fingers('Fingers to enroll.') }),
  Punch,
  PunchPage: page(ref('Punch')),
  PunchLatest: obj({ results: arr(ref('Punch')), last_sequence: int('Pass as `after` in the next poll.') }),
  AttendanceDay,
  AttendanceDayPage: page(ref('AttendanceDay')),
  Webhook,
  WebhookWithSecret: { allOf: [ref('Webhook'), obj({ secret: str('Signing secret (Standard Webhooks `whsec_…`); shown this one time.') })] },
  WebhookPage: page(ref('Webhook')),
  WebhookCreate: obj({ url: str(undefined, { format: 'uri' }), events: arr(str()) }, { optional: ['events'] }),
  WebhookDelivery: obj({
    id: int(),
    message_id: str(),
    attempt: int(),
    count: int('Messages this row accounts for: 1, or a run of in-order deliveries ending with `message_id`.'),
    status_code: nullable(int()),
    error: nullable(str()),
    duration_ms: int(),
    next_retry_at: nullable(dateTime()),
    created_at: dateTime(),
  }),
  WebhookMessage,
  WebhookTestResult: obj({ status_code: nullable(int('The receiver’s HTTP status; null when no answer came.')), error: nullable(str()), duration_ms: int() }),
  WebhookRecover: obj({ since: dateTime('Messages of events recorded at or after this instant are sent again.') }),
  WebhookRecovered: obj({ requeued: int('Messages that will be sent.') }),
  WebhookMessagePage: page(ref('WebhookMessage')),
  WebhookDeliveryPage: page(ref('WebhookDelivery')),
  Job,
  JobList: obj({ results: arr(ref('Job')), next_cursor: nullable(str()) }),
  JobRun: obj({ params: { type: 'object', additionalProperties: { type: 'string' } } }, { optional: ['params'] }),
  JobOutcome: obj({
    job: str(),
    status: oneOfStrings(['succeeded', 'failed', 'skipped']),
    result: freeObject(),
    summary: str(),
    started_at: dateTime(),
    finished_at: dateTime(),
  }),
  Health: obj({ status: oneOfStrings(['ok', 'unavailable']) }),
};
