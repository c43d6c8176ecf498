/**
 * How webhook endpoints, their messages and their delivery attempts are shown: the answer
 * shapes of the API and the functions that build them from the rows.
 */
import type { webhookDeliveries, webhookEndpoints } from './tables';

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** A message as shown: `held` is a pending one whose endpoint is disabled. */
export const MESSAGE_VIEW_STATUSES = ['pending', 'held', 'delivered', 'dead'] as const;
export type MessageViewStatus = (typeof MESSAGE_VIEW_STATUSES)[number];

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_by: string;
  created_at: string;
  /** Every subscribed event up to this sequence was handed off. */
  position: number;
  /** Consecutive failed attempts of the next event. */
  attempts: number;
  /** While backing off: when delivery is tried again. */
  next_attempt_at: string | null;
  last_error: string | null;
  last_delivered_at: string | null;
  /** During a secret rotation's overlap: until when deliveries are also signed with the previous secret. */
  previous_secret_valid_until: string | null;
}

export interface WebhookMessageView {
  /** The event's id: the `webhook-id` of every attempt. */
  id: string;
  event_type: string;
  event_sequence: number;
  status: MessageViewStatus;
  /** Attempts counted for this message; null for one delivered in order (not counted per event). */
  attempts: number | null;
  next_attempt_at: string | null;
  last_error: string | null;
  /** When the event was recorded. */
  created_at: string;
  /** When it was delivered, where known (a message row); null for one delivered in order. */
  delivered_at: string | null;
}

export interface WebhookDeliveryView {
  id: number;
  message_id: string;
  attempt: number;
  /** Messages the row accounts for: 1, or a run of in-order deliveries ending with `message_id`. */
  count: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  next_retry_at: string | null;
  created_at: string;
  /** The delivered event's type (`webhook_test` for a test send). */
  event_type: string | null;
  test: boolean;
}

export interface WebhookTestResult {
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The endpoint as shown at `now` (a previous secret past its overlap is not mentioned). */
export function endpointView(row: EndpointRow, now: number): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    active: row.active,
    disabled_reason: row.disabledReason,
    failing_since: iso(row.failingSince),
    created_by: row.createdBy,
    created_at: new Date(row.createdAt).toISOString(),
    position: row.position,
    attempts: row.attempts,
    next_attempt_at: row.active && row.attempts > 0 ? iso(row.nextAttemptAt) : null,
    last_error: row.lastError,
    last_delivered_at: iso(row.lastDeliveredAt),
    previous_secret_valid_until:
      row.previousSecret !== null && row.previousSecretUntil !== null && row.previousSecretUntil > now ? iso(row.previousSecretUntil) : null,
  };
}

/** Test sends carry their own message id (`msg_…`, dispatch.ts `testMessage`); events theirs (`evt_…`). */
export const isTestMessage = (messageId: string) => messageId.startsWith('msg_');

export function deliveryView(row: DeliveryRow, eventType: string | null): WebhookDeliveryView {
  const test = isTestMessage(row.messageId);
  return {
    event_type: test ? 'webhook_test' : eventType,
    test,
    id: row.id,
    message_id: row.messageId,
    attempt: row.attempt,
    count: row.count,
    status_code: row.statusCode,
    error: row.error,
    duration_ms: row.durationMs,
    next_retry_at: iso(row.nextRetryAt),
    created_at: new Date(row.createdAt).toISOString(),
  };
}
