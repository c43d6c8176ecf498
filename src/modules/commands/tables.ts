import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

const createdAt = () => integer('created_at').notNull();

export const COMMAND_STATUSES = ['pending', 'sent', 'succeeded', 'failed', 'expired', 'superseded', 'cancelled'] as const;

export type CommandStatus = (typeof COMMAND_STATUSES)[number];

/** What an operator may queue (`POST devices/{sn}/commands/`, model.ts), stored under the same name. */
export const OPERATOR_KINDS = ['reboot', 'set_time', 'info', 'query_users', 'reupload_logs', 'clear_logs', 'clear_data', 'raw'] as const;
export type OperatorKind = (typeof OPERATOR_KINDS)[number];

/**
 * What a command is, as the API shows it (`kind`) and as it is stored, one vocabulary: the
 * operator's kinds as `POST devices/{sn}/commands/` takes them; the service's own, the user and
 * template commands, `check` (a new handshake) and `query_templates`, in lower case; a remote
 * enrollment's `ENROLL_FP` and `ENROLL_BIO` as docs/spec.md names them. Earlier releases stored
 * and showed the others in upper case too (`QUERY_USERS`, `INFO`, `QUERY_ATTLOG` for
 * `reupload_logs`…): migration 0036 renamed them. What a terminal is sent is in its own words
 * (terminals/render.ts).
 */
export const COMMAND_KINDS = [
  'add_user',
  'delete_user',
  'update_template',
  'delete_template',
  'ENROLL_FP',
  'ENROLL_BIO',
  'check',
  'query_templates',
  ...OPERATOR_KINDS,
] as const;
export type CommandKind = (typeof COMMAND_KINDS)[number];

/**
 * Commands queued for a terminal. The wire text is rendered when the command is sent, so
 * template bytes never sit in this table in clear text; `payload` holds references only.
 */
export const deviceCommands = sqliteTable(
  'fpa_device_commands',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    deviceId: text('device_id').notNull(),
    kind: text('kind', { enum: COMMAND_KINDS }).notNull(),
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
    // Without the status: marking a command sent (every poll that carries commands) then leaves
    // this index alone; the few commands of one terminal with one key are told apart by their row.
    index('fpa_commands_supersede').on(t.deviceId, t.supersedeKey),
  ],
);
