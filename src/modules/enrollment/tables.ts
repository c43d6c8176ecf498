import { blob, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

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

/** Agent API rate limit, counted in the database so several instances share one limit. */
export const agentRateWindows = sqliteTable('fpa_agent_rate_windows', {
  agentId: text('agent_id').primaryKey(),
  windowStart: integer('window_start').notNull(),
  count: integer('count').notNull(),
});
