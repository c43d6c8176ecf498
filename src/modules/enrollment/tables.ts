import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { BiometricType } from '../../protocol/adms';

const createdAt = () => integer('created_at').notNull();

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
    /** What is enrolled: `fingerprint` (agents, and terminals by default), or a face or palm on a terminal. */
    biometric: text('biometric').notNull().default('fingerprint'),
    /** Body parts to capture: fingers 0–9; a face is 0; palms 0/1. */
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

/**
 * The areas whose people an agent enrolls (by area id, as users' and API keys' areas, so a
 * renamed area keeps its agents); none: every area. An area with agents is not removed
 * (`areas.countUsage`, app/reactions.ts).
 */
export const agentAreas = sqliteTable(
  'fpa_agent_areas',
  {
    agentId: text('agent_id').notNull(),
    areaId: text('area_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.areaId] }), index('fpa_agent_areas_area').on(t.areaId)],
);

/** Agent API rate limit, counted in the database so several instances share one limit. */
export const agentRateWindows = sqliteTable('fpa_agent_rate_windows', {
  agentId: text('agent_id').primaryKey(),
  windowStart: integer('window_start').notNull(),
  count: integer('count').notNull(),
});

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
    /** Templates a withdrawal destroyed (null: ended by a new consent, or before migration 0016 without an audit entry). */
    templatesDestroyed: integer('templates_destroyed'),
  },
  (t) => [index('fpa_consents_enrollee').on(t.enrolleeId)],
);

export const TEMPLATE_SOURCES = ['agent', 'device', 'remote', 'api'] as const;

export const templates = sqliteTable(
  'fpa_templates',
  {
    id: text('id').primaryKey(),
    enrolleeId: text('enrollee_id').notNull(),
    /** `fingerprint`, `face`, `visible_face`, `palm`, `finger_vein` (BIODATA types 1, 2, 9, 8, 7). */
    type: text('type').$type<BiometricType>().notNull().default('fingerprint'),
    /** The body part (BIODATA `No`): finger 0–9, palm 0/1 (left/right), face 0. */
    fingerIndex: integer('finger_index').notNull(),
    /** Position in a multi-template set (BIODATA `Index`: a palm comes as 0–4); 0 for a fingerprint. */
    slot: integer('slot').notNull().default(0),
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
  (t) => [uniqueIndex('fpa_templates_part').on(t.enrolleeId, t.type, t.fingerIndex, t.slot, t.algorithmVersion), index('fpa_templates_key').on(t.keyId)],
);

/** What names a stored template (its part, algorithm and version), never its bytes: the columns several reads select. */
export const templateIdentity = {
  id: templates.id,
  type: templates.type,
  fingerIndex: templates.fingerIndex,
  slot: templates.slot,
  algorithmVersion: templates.algorithmVersion,
  version: templates.version,
};

export const SYNC_STATUSES = ['pending', 'present', 'incompatible', 'failed'] as const;

export type SyncStatus = (typeof SYNC_STATUSES)[number];

/** Why a template does not reach a terminal: its algorithm (`incompatible`), or no room there (`full`). */
export const REFUSALS = ['incompatible', 'full'] as const;

export type Refusal = (typeof REFUSALS)[number];

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
    /**
     * The refusal standing between this version and the terminal, kept while it is sent again
     * (`pending`, or a retry that expired): lifted when the terminal takes it (or answers something
     * else), gone with a new version or the row (template_sync.ts). The diagnostics read it.
     */
    refusal: text('refusal', { enum: REFUSALS }),
    /** When the terminal (or the service, before sending) first refused this version; a refusal again does not move it. */
    refusedAt: integer('refused_at'),
    /** The terminal's return code (−30, −1001); null when the service judged the algorithm before sending. */
    refusedCode: integer('refused_code'),
    /**
     * The newest version of this template the terminal confirmed it holds (it answered the write,
     * or uploaded it); null while it confirmed none. Kept whatever later versions do there
     * (refused, failed, not sent for its algorithm): that version is still on the terminal, and a
     * withdrawal or deletion deletes it there (template-sync.ts `mayHold`).
     */
    heldVersion: integer('held_version'),
  },
  (t) => [primaryKey({ columns: [t.templateId, t.deviceId] }), index('fpa_template_sync_device').on(t.deviceId)],
);
