import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Per terminal: the attendance record count it last reported (`TransactionCount`, in its
 * options, getrequest `INFO=` or an INFO reply) and the last moment that count agreed with the
 * punches stored from it. Since then, the terminal's count grew by `reported - agreedCount` and
 * the punches stored from it are those with a sequence above `agreedSequence`: when the first
 * grows more than the second, and stays so, punches are missing.
 */
export const punchCounts = sqliteTable('fpa_punch_counts', {
  deviceId: text('device_id').primaryKey(),
  reportedCount: integer('reported_count'),
  reportedAt: integer('reported_at'),
  agreedAt: integer('agreed_at'),
  agreedCount: integer('agreed_count'),
  agreedSequence: integer('agreed_sequence'),
  /**
   * The highest punch sequence when the count was reported: a punch from the terminal stored
   * after it is not in that count (uploaded between two reports), so a count below the stored
   * waits for the next report instead of agreeing.
   */
  reportedSequence: integer('reported_sequence'),
  /**
   * The terminal's count fell below the agreed one (its log cleared, or it was reset): since then
   * it vouches for nothing before. When, the agreement in force then, and the gap open then (the
   * punches it never sent are lost with its log).
   */
  clearedAt: integer('cleared_at'),
  agreedBeforeClearAt: integer('agreed_before_clear_at'),
  missingAtClear: integer('missing_at_clear'),
  /** A disagreement found (`punch_gap_found`) and not closed yet: since when, how many. */
  gapSince: integer('gap_since'),
  gapMissing: integer('gap_missing'),
  updatedAt: integer('updated_at').notNull(),
});

export const RECOVERY_REASONS = ['count_mismatch', 'terminal_outage', 'server_outage'] as const;
export type RecoveryReason = (typeof RECOVERY_REASONS)[number];

/**
 * planned (after an outage: asked once the terminal had time to send its backlog) → queued (the
 * command is on its way) → answered (the terminal said Return=0) → done; or failed (an error
 * code, expired).
 */
export const RECOVERY_STATUSES = ['planned', 'queued', 'answered', 'done', 'failed'] as const;
export type RecoveryStatus = (typeof RECOVERY_STATUSES)[number];

/** A re-upload asked of a terminal (`DATA QUERY ATTLOG`): why, which range, what it brought. */
export const punchRecoveries = sqliteTable(
  'fpa_punch_recoveries',
  {
    id: text('id').primaryKey(),
    deviceId: text('device_id').notNull(),
    reason: text('reason', { enum: RECOVERY_REASONS }).notNull(),
    /** The range asked, in the terminal's wall time (`YYYY-MM-DD HH:MM:SS`). */
    fromTime: text('from_time').notNull(),
    toTime: text('to_time').notNull(),
    commandId: integer('command_id'),
    status: text('status', { enum: RECOVERY_STATUSES }).notNull(),
    /** Punches the counts said were missing (count_mismatch); null for an outage check. */
    missing: integer('missing'),
    /** Punches stored from the re-upload that were not stored before it. */
    recovered: integer('recovered'),
    returnCode: integer('return_code'),
    /** The highest punch sequence when it was queued: what is stored after it is new. */
    sequenceAtQueue: integer('sequence_at_queue').notNull(),
    queuedAt: integer('queued_at').notNull(),
    answeredAt: integer('answered_at'),
    finishedAt: integer('finished_at'),
  },
  (t) => [index('fpa_punch_recoveries_device').on(t.deviceId, t.queuedAt), index('fpa_punch_recoveries_command').on(t.commandId)],
);

/**
 * What a finished re-upload established per terminal and local date: how many records the
 * terminal holds for that date (`reported`: the distinct lines it re-sent), when, and how many
 * of them were new here (`recovered`, summed over re-uploads).
 */
export const punchDays = sqliteTable(
  'fpa_punch_days',
  {
    deviceId: text('device_id').notNull(),
    date: text('date').notNull(),
    reported: integer('reported').notNull(),
    reportedAt: integer('reported_at').notNull(),
    recovered: integer('recovered').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.date] })],
);

/** This server's own heartbeat (one row): a start finding it old knows the server was down. */
export const serverHeartbeat = sqliteTable('fpa_server_heartbeat', {
  id: integer('id').primaryKey(),
  at: integer('at').notNull(),
});

export type PunchCountRow = typeof punchCounts.$inferSelect;
export type RecoveryRow = typeof punchRecoveries.$inferSelect;
