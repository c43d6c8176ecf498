import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { Tries } from './tries';

const createdAt = () => integer('created_at').notNull();

/**
 * An endpoint and where its delivery stands in the event log. Every event of its types up to
 * `position` was handed off (delivered, or dead-lettered as a message row); the events after it
 * are its pending (or, while it is disabled, held) messages. One instance works an endpoint at a
 * time: it claims it with `claim_token` and `lease_until`, and writes its outcome only under
 * that token.
 */
export const webhookEndpoints = sqliteTable('fpa_webhook_endpoints', {
  id: text('id').primaryKey(),
  url: text('url').notNull(),
  secret: text('secret').notNull(),
  /** The secret before the last rotation, sealed like `secret`: deliveries are signed with both until `previous_secret_until`. */
  previousSecret: text('previous_secret'),
  previousSecretUntil: integer('previous_secret_until'),
  events: text('events', { mode: 'json' }).$type<string[]>().notNull(),
  active: integer('active', { mode: 'boolean' }).notNull().default(true),
  disabledReason: text('disabled_reason'),
  /**
   * Since when it has been failing: the first failure (retried or dead-lettered) after a
   * delivery; null once the receiver accepts a message.
   */
  failingSince: integer('failing_since'),
  createdBy: text('created_by').notNull(),
  createdAt: createdAt(),
  /** The log's head when the endpoint was created: its messages are the events after it. */
  startSequence: integer('start_sequence').notNull().default(0),
  /** Every subscribed event up to this sequence was handed off. */
  position: integer('position').notNull().default(0),
  /** Consecutive failed attempts of the first event after `position`. */
  attempts: integer('attempts').notNull().default(0),
  /**
   * How many times each event after `position` has been sent (tries.ts): several are in flight
   * at once, so the events behind the first one have attempts of their own.
   */
  tries: text('tries', { mode: 'json' }).$type<Tries>().notNull().default([]),
  /** Not worked before this (backoff after a failure). */
  nextAttemptAt: integer('next_attempt_at').notNull().default(0),
  leaseUntil: integer('lease_until'),
  claimToken: text('claim_token'),
  lastError: text('last_error'),
  lastDeliveredAt: integer('last_delivered_at'),
});

export const MESSAGE_STATUSES = ['pending', 'delivered', 'dead'] as const;

/**
 * The exceptions of an endpoint's ordered delivery, one row per (endpoint, event): events the
 * receiver refused (`dead`), and events queued by hand (`redeliver`, `recover`: `pending`, then
 * `delivered` or `dead`). Every other event is accounted for by the endpoint's position alone.
 * Rows only ever exist at or before that position.
 */
export const webhookMessages = sqliteTable(
  'fpa_webhook_messages',
  {
    endpointId: text('endpoint_id').notNull(),
    eventSequence: integer('event_sequence').notNull(),
    /** The event's id (`evt_…`): the `webhook-id` of every attempt. */
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** When the event was recorded (what `recover { since }` compares). */
    eventAt: integer('event_at').notNull(),
    status: text('status', { enum: MESSAGE_STATUSES }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** When a pending row is due; when a dead one died (what health/ and /metrics count dead letters by). */
    nextAttemptAt: integer('next_attempt_at').notNull(),
    leaseUntil: integer('lease_until'),
    claimToken: text('claim_token'),
    lastError: text('last_error'),
    /** Since when every attempt failed (null: not failing); after WEBHOOK_DISABLE_AFTER of that it is dead-lettered. */
    failingSince: integer('failing_since'),
    createdAt: createdAt(),
    deliveredAt: integer('delivered_at'),
  },
  (t) => [
    primaryKey({ columns: [t.endpointId, t.eventSequence] }),
    index('fpa_webhook_messages_due').on(t.status, t.nextAttemptAt),
    index('fpa_webhook_messages_status').on(t.endpointId, t.status, t.eventSequence),
  ],
);

/**
 * The attempt log: every failed attempt (with its status code, error and next retry), every
 * attempt of a message row, and one row per run of in-order successes (`count` events, the last
 * of them `message_id`): a row per delivered event would be one write per event and endpoint.
 */
export const webhookDeliveries = sqliteTable(
  'fpa_webhook_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    messageId: text('message_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    attempt: integer('attempt').notNull(),
    /** Events this row accounts for: 1, or the length of a run of in-order successes. */
    count: integer('count').notNull().default(1),
    statusCode: integer('status_code'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    nextRetryAt: integer('next_retry_at'),
    createdAt: createdAt(),
  },
  (t) => [index('fpa_deliveries_endpoint').on(t.endpointId, t.id), index('fpa_deliveries_created').on(t.createdAt)],
);
