/**
 * How webhook endpoints, their messages and their delivery attempts are shown: the answer
 * shapes of the API and the functions that build them from the rows.
 */
import type { Static } from '@sinclair/typebox';
import type { WebhookTestResult as TestResult, Webhook, WebhookDelivery, WebhookMessage } from './model';
import type { webhookDeliveries, webhookEndpoints } from './tables';

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export type WebhookEndpointView = Static<typeof Webhook>;

export type WebhookMessageView = Static<typeof WebhookMessage>;
export type MessageViewStatus = WebhookMessageView['status'];

export type WebhookDeliveryView = Static<typeof WebhookDelivery>;

export type WebhookTestResult = Static<typeof TestResult>;

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
    // Backing off: after failed attempts of the next message, or after a dead letter (its next message may be unsent).
    next_attempt_at: row.active && (row.attempts > 0 || row.nextAttemptAt > now) ? iso(row.nextAttemptAt) : null,
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
