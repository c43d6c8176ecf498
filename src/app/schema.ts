/**
 * The whole database schema. Times are stored as integer milliseconds since the epoch (UTC);
 * lists and maps as JSON text. Employee keys are plain text so that the schema never depends
 * on the employee model a host chooses (SPEC "Versioning" 5).
 */

import {
  blob,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';

const createdAt = () => integer('created_at').notNull();

/** Facts recorded once, such as the employee model chosen at the first migration. */
export const meta = sqliteTable('fpa_meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/** Counters decided in the database (device PINs), so several instances never collide. */
export const counters = sqliteTable('fpa_counters', {
  name: text('name').primaryKey(),
  value: integer('value').notNull(),
});

export const areas = sqliteTable('fpa_areas', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  createdAt: createdAt(),
});

export const DEVICE_STATUSES = ['pending_approval', 'approved', 'disabled'] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];

export const devices = sqliteTable(
  'fpa_devices',
  {
    id: text('id').primaryKey(),
    serialNumber: text('serial_number').notNull().unique(),
    name: text('name'),
    status: text('status', { enum: DEVICE_STATUSES }).notNull(),
    /** IANA zone; null means the service's TIME_ZONE. */
    timeZone: text('time_zone'),
    /** Fingerprint algorithm version, from INFO/options or set by an administrator. */
    algorithmVersion: text('algorithm_version'),
    algorithmSource: text('algorithm_source', { enum: ['device', 'admin'] }),
    faceAlgorithmVersion: text('face_algorithm_version'),
    pushVersion: text('push_version'),
    firmware: text('firmware'),
    ipAddress: text('ip_address'),
    language: text('language'),
    userCount: integer('user_count'),
    fingerprintCount: integer('fingerprint_count'),
    attendanceCount: integer('attendance_count'),
    /** Whether the terminal takes templates as BIODATA (set from options/INFO). */
    speaksBiodata: integer('speaks_biodata', { mode: 'boolean' }).notNull().default(false),
    /** Last `table=options` / INFO key-value map, for display. */
    parameters: text('parameters', { mode: 'json' }).$type<Record<string, string>>(),
    registryCode: text('registry_code'),
    /** The `TimeZone` offset (minutes) sent at the last handshake; a DST change queues CHECK. */
    clockOffsetMinutes: integer('clock_offset_minutes'),
    lastSeenAt: integer('last_seen_at'),
    online: integer('online', { mode: 'boolean' }).notNull().default(false),
    approvedAt: integer('approved_at'),
    approvedBy: text('approved_by'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('fpa_devices_status').on(t.status)],
);

export const deviceAreas = sqliteTable(
  'fpa_device_areas',
  {
    deviceId: text('device_id').notNull(),
    areaId: text('area_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.areaId] }), index('fpa_device_areas_area').on(t.areaId)],
);

/** The built-in employee directory (standalone default; a host may pass its own). */
export const employees = sqliteTable('fpa_employees', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  active: integer('active', { mode: 'boolean' }).notNull().default(true),
  createdAt: createdAt(),
});

export const ENROLLEE_STATUSES = ['active', 'deactivated', 'deleted'] as const;
export type EnrolleeStatus = (typeof ENROLLEE_STATUSES)[number];

export const enrollees = sqliteTable(
  'fpa_enrollees',
  {
    id: text('id').primaryKey(),
    employeeKey: text('employee_key').notNull(),
    devicePin: text('device_pin').notNull().unique(),
    displayName: text('display_name').notNull(),
    status: text('status', { enum: ENROLLEE_STATUSES }).notNull().default('active'),
    deactivatedAt: integer('deactivated_at'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('fpa_enrollees_employee').on(t.employeeKey)],
);

export const enrolleeAreas = sqliteTable(
  'fpa_enrollee_areas',
  {
    enrolleeId: text('enrollee_id').notNull(),
    areaId: text('area_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.enrolleeId, t.areaId] }), index('fpa_enrollee_areas_area').on(t.areaId)],
);

export const consents = sqliteTable(
  'fpa_consents',
  {
    id: text('id').primaryKey(),
    enrolleeId: text('enrollee_id').notNull(),
    version: text('version').notNull(),
    method: text('method').notNull(),
    givenBy: text('given_by').notNull(),
    givenAt: integer('given_at').notNull(),
    withdrawnAt: integer('withdrawn_at'),
    withdrawnBy: text('withdrawn_by'),
  },
  (t) => [index('fpa_consents_enrollee').on(t.enrolleeId)],
);

export const TEMPLATE_SOURCES = ['agent', 'device', 'remote', 'api'] as const;

export const templates = sqliteTable(
  'fpa_templates',
  {
    id: text('id').primaryKey(),
    enrolleeId: text('enrollee_id').notNull(),
    fingerIndex: integer('finger_index').notNull(),
    algorithmVersion: text('algorithm_version').notNull(),
    /** Incremented each time the finger's template is replaced; bound into the ciphertext. */
    version: integer('version').notNull(),
    ciphertext: blob('ciphertext', { mode: 'buffer' }).notNull(),
    keyId: text('key_id').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    quality: integer('quality'),
    /** A duress finger (FP `Valid=3`, BIODATA `Duress=1`): terminals raise a silent alarm. */
    duress: integer('duress', { mode: 'boolean' }).notNull().default(false),
    source: text('source', { enum: TEMPLATE_SOURCES }).notNull(),
    sourceDeviceId: text('source_device_id'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('fpa_templates_finger').on(t.enrolleeId, t.fingerIndex, t.algorithmVersion),
    index('fpa_templates_key').on(t.keyId),
  ],
);

export const SYNC_STATUSES = ['pending', 'present', 'incompatible', 'failed'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

/** Per-device sync status of each template. */
export const templateSync = sqliteTable(
  'fpa_template_sync',
  {
    templateId: text('template_id').notNull(),
    deviceId: text('device_id').notNull(),
    status: text('status', { enum: SYNC_STATUSES }).notNull(),
    templateVersion: integer('template_version').notNull(),
    commandId: integer('command_id'),
    detail: text('detail'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.templateId, t.deviceId] }), index('fpa_template_sync_device').on(t.deviceId)],
);

export const SESSION_STATUSES = ['open', 'in_progress', 'completed', 'cancelled', 'expired', 'failed'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const enrollmentSessions = sqliteTable(
  'fpa_enrollment_sessions',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['agent', 'remote'] }).notNull(),
    enrolleeId: text('enrollee_id').notNull(),
    agentId: text('agent_id'),
    deviceId: text('device_id'),
    fingersRequested: text('fingers_requested', { mode: 'json' }).$type<number[]>().notNull(),
    /** Fingers the device has uploaded so far (remote sessions). */
    fingersCaptured: text('fingers_captured', { mode: 'json' }).$type<number[]>().notNull(),
    status: text('status', { enum: SESSION_STATUSES }).notNull(),
    reason: text('reason'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
    claimedAt: integer('claimed_at'),
    closedAt: integer('closed_at'),
    expiresAt: integer('expires_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('fpa_sessions_agent').on(t.agentId, t.status),
    index('fpa_sessions_device').on(t.deviceId, t.status),
    index('fpa_sessions_status').on(t.status, t.expiresAt),
  ],
);

/** Agent uploads, encrypted, waiting for their session to complete. */
export const stagedTemplates = sqliteTable(
  'fpa_staged_templates',
  {
    sessionId: text('session_id').notNull(),
    fingerIndex: integer('finger_index').notNull(),
    algorithmVersion: text('algorithm_version').notNull(),
    ciphertext: blob('ciphertext', { mode: 'buffer' }).notNull(),
    keyId: text('key_id').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    quality: integer('quality'),
    /** Bound into the ciphertext's associated data; bumped when the finger is re-uploaded. */
    revision: integer('revision').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.fingerIndex] }), index('fpa_staged_key').on(t.keyId)],
);

export const agents = sqliteTable('fpa_agents', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  algorithmVersion: text('algorithm_version').notNull(),
  keyPrefix: text('key_prefix').notNull().unique(),
  keyDigest: text('key_digest').notNull(),
  createdBy: text('created_by').notNull(),
  createdAt: createdAt(),
  revokedAt: integer('revoked_at'),
  lastUsedAt: integer('last_used_at'),
});

export const COMMAND_STATUSES = ['pending', 'sent', 'succeeded', 'failed', 'expired', 'superseded'] as const;
export type CommandStatus = (typeof COMMAND_STATUSES)[number];

/**
 * Commands queued for a terminal. The wire text is rendered when the command is sent, so
 * template bytes never sit in this table in clear text; `payload` holds references only.
 */
export const deviceCommands = sqliteTable(
  'fpa_device_commands',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    deviceId: text('device_id').notNull(),
    kind: text('kind').notNull(),
    payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: COMMAND_STATUSES }).notNull(),
    /** Commands with the same key replace each other while unsent (same user and finger). */
    supersedeKey: text('supersede_key'),
    sessionId: text('session_id'),
    attempts: integer('attempts').notNull().default(0),
    createdAt: createdAt(),
    sentAt: integer('sent_at'),
    /** When a sent command without a result counts as lost. */
    ackDeadline: integer('ack_deadline'),
    /** When a pending command may be sent (retry backoff). */
    notBefore: integer('not_before').notNull(),
    expiresAt: integer('expires_at').notNull(),
    completedAt: integer('completed_at'),
    returnCode: integer('return_code'),
    result: text('result', { mode: 'json' }).$type<Record<string, unknown>>(),
  },
  (t) => [
    index('fpa_commands_queue').on(t.deviceId, t.status, t.id),
    index('fpa_commands_status').on(t.status, t.ackDeadline),
    index('fpa_commands_supersede').on(t.deviceId, t.supersedeKey, t.status),
  ],
);

export const deviceEvents = sqliteTable(
  'fpa_device_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    deviceId: text('device_id').notNull(),
    kind: text('kind').notNull(),
    message: text('message').notNull(),
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index('fpa_device_events_device').on(t.deviceId, t.id), index('fpa_device_events_created').on(t.createdAt)],
);

/**
 * Punches. `sequence` is SQLite's rowid: assigned inside the single write transaction, so a
 * later commit always carries a higher sequence and `after=<sequence>` polling never skips.
 */
export const punches = sqliteTable(
  'fpa_punches',
  {
    sequence: integer('sequence').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    deviceId: text('device_id').notNull(),
    deviceSerial: text('device_serial').notNull(),
    devicePin: text('device_pin').notNull(),
    enrolleeId: text('enrollee_id'),
    employeeKey: text('employee_key'),
    punchedAt: integer('punched_at').notNull(),
    localTime: text('local_time').notNull(),
    utcOffsetMinutes: integer('utc_offset_minutes').notNull(),
    state: integer('state').notNull(),
    verifyType: integer('verify_type').notNull(),
    workCode: text('work_code').notNull(),
    raw: text('raw').notNull(),
    flags: text('flags', { mode: 'json' }).$type<string[]>().notNull(),
    receivedAt: integer('received_at').notNull(),
  },
  (t) => [
    uniqueIndex('fpa_punches_dedup').on(t.deviceId, t.devicePin, t.localTime),
    index('fpa_punches_enrollee').on(t.enrolleeId, t.punchedAt),
    index('fpa_punches_pin').on(t.devicePin),
    index('fpa_punches_time').on(t.punchedAt),
  ],
);

export const DAY_STATUSES = ['present', 'incomplete', 'absent', 'non_working_day'] as const;
export type DayStatus = (typeof DAY_STATUSES)[number];

export const attendanceDays = sqliteTable(
  'fpa_attendance_days',
  {
    enrolleeId: text('enrollee_id').notNull(),
    employeeKey: text('employee_key').notNull(),
    date: text('date').notNull(),
    firstIn: integer('first_in'),
    lastOut: integer('last_out'),
    workedSeconds: integer('worked_seconds').notNull(),
    punchCount: integer('punch_count').notNull(),
    status: text('status', { enum: DAY_STATUSES }).notNull(),
    flags: text('flags', { mode: 'json' }).$type<string[]>().notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.enrolleeId, t.date] }),
    index('fpa_days_date').on(t.date),
    index('fpa_days_employee').on(t.employeeKey, t.date),
  ],
);

export const webhookEndpoints = sqliteTable('fpa_webhook_endpoints', {
  id: text('id').primaryKey(),
  url: text('url').notNull(),
  secret: text('secret').notNull(),
  events: text('events', { mode: 'json' }).$type<string[]>().notNull(),
  active: integer('active', { mode: 'boolean' }).notNull().default(true),
  disabledReason: text('disabled_reason'),
  failingSince: integer('failing_since'),
  createdBy: text('created_by').notNull(),
  createdAt: createdAt(),
});

/** `held`: written while the endpoint is disabled, released when it is enabled again. */
export const OUTBOX_STATUSES = ['pending', 'held', 'delivered', 'dead'] as const;

/** One row per (event, endpoint), written in the same transaction as the event's data. */
export const webhookOutbox = sqliteTable(
  'fpa_webhook_outbox',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id').notNull(),
    eventType: text('event_type').notNull(),
    payload: text('payload').notNull(),
    /** The punch this row announces, for exactly-one-row-per-punch checks. */
    punchSequence: integer('punch_sequence'),
    status: text('status', { enum: OUTBOX_STATUSES }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    leaseUntil: integer('lease_until'),
    claimToken: text('claim_token'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    deliveredAt: integer('delivered_at'),
  },
  (t) => [
    index('fpa_outbox_due').on(t.status, t.nextAttemptAt),
    index('fpa_outbox_endpoint').on(t.endpointId, t.createdAt),
    uniqueIndex('fpa_outbox_punch').on(t.endpointId, t.punchSequence),
  ],
);

export const webhookDeliveries = sqliteTable(
  'fpa_webhook_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    outboxId: text('outbox_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    attempt: integer('attempt').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    nextRetryAt: integer('next_retry_at'),
    createdAt: createdAt(),
  },
  (t) => [index('fpa_deliveries_endpoint').on(t.endpointId, t.id), index('fpa_deliveries_created').on(t.createdAt)],
);

/** Agent API rate limit, counted in the database so several instances share one limit. */
export const agentRateWindows = sqliteTable('fpa_agent_rate_windows', {
  agentId: text('agent_id').primaryKey(),
  windowStart: integer('window_start').notNull(),
  count: integer('count').notNull(),
});

/** One row per periodic job: who holds it, until when, and how the last run went. */
export const jobLeases = sqliteTable('fpa_job_leases', {
  name: text('name').primaryKey(),
  holder: text('holder'),
  leaseUntil: integer('lease_until'),
  lastStartedAt: integer('last_started_at'),
  lastFinishedAt: integer('last_finished_at'),
  lastStatus: text('last_status'),
  lastResult: text('last_result', { mode: 'json' }).$type<Record<string, unknown>>(),
  lastHolder: text('last_holder'),
});

export const auditLog = sqliteTable(
  'fpa_audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index('fpa_audit_target').on(t.targetType, t.targetId), index('fpa_audit_created').on(t.createdAt)],
);

