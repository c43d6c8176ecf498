import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const createdAt = () => integer('created_at').notNull();

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
