import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Why the person's biometric data was deleted. */
export const DELETION_REASONS = ['consent_withdrawn', 'deleted'] as const;
export type DeletionReason = (typeof DELETION_REASONS)[number];

/** One request of a deletion (a withdrawal of consent, the person's deletion): why, when, and what it destroyed on the server. */
export interface ProofRequest {
  reason: DeletionReason;
  at: number;
  templatesDestroyed: number;
}

/**
 * One deletion proof per person: what the server destroyed and when, kept after the person is
 * deleted for RETENTION_DELETION_PROOFS_DAYS after it is complete. It holds the employee key (what
 * the proof must show: whose data) for as long as the service keeps the deleted person's
 * tombstone named (retention scrubs both at once, past RETENTION_PUNCHES_DAYS), and only until
 * every terminal confirmed, the PIN the terminals know them by (to match their answers); never a
 * name, a card or a template.
 */
export const deletionProofs = sqliteTable(
  'fpa_deletion_proofs',
  {
    enrolleeId: text('enrollee_id').primaryKey(),
    /** The employee key; null once retention scrubbed the deleted person's tombstone (then only the id names them). */
    employee: text('employee'),
    /** The terminals' PIN of the person while a confirmation is awaited; null once complete. */
    pin: text('pin'),
    /** Area ids of the person at the request (who may read the proof). */
    areaIds: text('area_ids', { mode: 'json' }).$type<string[]>().notNull(),
    /** The latest request's reason. */
    reason: text('reason', { enum: DELETION_REASONS }).notNull(),
    /** When the deletion was first asked: a later request never moves it. */
    requestedAt: integer('requested_at').notNull(),
    /** Every request, oldest first. */
    requests: text('requests', { mode: 'json' }).$type<ProofRequest[]>().notNull().default([]),
    /** Templates destroyed on the server, over every request. */
    templatesDestroyed: integer('templates_destroyed').notNull(),
    destroyedAt: integer('destroyed_at').notNull(),
    completedAt: integer('completed_at'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('fpa_deletion_proofs_requested').on(t.requestedAt)],
);

/** What a proof shows of the delete command a terminal answered (or is awaited). */
export interface ProofCommand {
  id: number;
  kind: string;
  status: string;
  return_code: number | null;
  at: number | null;
}

/**
 * The person's data a terminal uploaded again after the deletion was asked (a finger enrolled at
 * its menu, say): refused, and a delete queued (`command`), which the proof then waits for.
 */
export interface ReturnedData {
  at: number;
  /** `fingerprint`, `face`, `visible_face`, `palm`, `finger_vein`, or one the service does not keep (`face_photo`…). */
  type: string;
  /** The body part (finger 0–9, palm 0/1, face 0). */
  index: number;
  /** The delete queued for it. */
  command: number;
  /** When the terminal had confirmed its delete before this (null: it had not yet, or it held nothing before). */
  wasConfirmedAt: number | null;
}

/** Each terminal that held (or was about to receive) the person's data at the request, or uploaded it again since. */
export const deletionProofTerminals = sqliteTable(
  'fpa_deletion_proof_terminals',
  {
    enrolleeId: text('enrollee_id').notNull(),
    deviceId: text('device_id').notNull(),
    serialNumber: text('serial_number').notNull(),
    status: text('status', { enum: ['pending', 'confirmed'] }).notNull(),
    /** Ids of the delete commands still awaited from this terminal. */
    awaiting: text('awaiting', { mode: 'json' }).$type<number[]>().notNull(),
    /** The last delete command of this terminal the proof heard of. */
    command: text('command', { mode: 'json' }).$type<ProofCommand>(),
    confirmedAt: integer('confirmed_at'),
    /** The person's data this terminal uploaded again after the request, oldest first. */
    returned: text('returned', { mode: 'json' }).$type<ReturnedData[]>().notNull().default([]),
  },
  (t) => [primaryKey({ columns: [t.enrolleeId, t.deviceId] }), index('fpa_deletion_proof_terminals_device').on(t.deviceId, t.status)],
);

/**
 * The service's proof-signing keys (ES256): generated once, shared by every instance through the
 * database; the private key sealed under the template key ring. A rotated key is retired: it no
 * longer signs, its private key is destroyed, and its public key stays published with the time
 * of its retirement, so proofs it signed before still verify and none dated after can be genuine.
 */
export const proofKeys = sqliteTable('fpa_proof_keys', {
  kid: text('kid').primaryKey(),
  publicJwk: text('public_jwk', { mode: 'json' }).$type<Record<string, string>>().notNull(),
  /** `sealed1:<base64url envelope>` of the private JWK (JSON); null once retired (destroyed: nothing signs with a retired key). */
  privateSealed: text('private_sealed'),
  createdAt: integer('created_at').notNull(),
  retiredAt: integer('retired_at'),
});

export type DeletionProofRow = typeof deletionProofs.$inferSelect;
export type DeletionProofTerminalRow = typeof deletionProofTerminals.$inferSelect;
