import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { BiometricType } from '../../protocol/adms';

const createdAt = () => integer('created_at').notNull();

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
