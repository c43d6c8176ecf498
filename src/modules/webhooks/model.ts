/** The webhooks module's HTTP model. */
import { t } from 'elysia';
import { Body, Instant, Int, Nullable, OneOf, Page, PageQuery, Text } from '../../platform/http/model';
import { MAX_URL_LENGTH } from './endpoints';
import { WEBHOOK_EVENTS } from './outbox';
import { OUTBOX_STATUSES } from './tables';

export const WebhookParams = t.Object({ id: Text({ maxLength: 100, description: 'Endpoint id (UUID).' }) });
export const MessageParams = t.Object({ id: Text({ maxLength: 100 }), message: Text({ maxLength: 100, description: 'Message id (`msg_…`).' }) });

export const Webhook = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    url: t.String({ format: 'uri' }),
    events: t.Array(t.String(), { description: 'Event types delivered, e.g. `punch_received`.' }),
    active: t.Boolean(),
    disabled_reason: Nullable(t.String()),
    failing_since: Nullable(Instant()),
    created_by: t.String(),
    created_at: Instant(),
  },
  { title: 'Webhook' },
);

export const WebhookWithSecret = t.Composite(
  [Webhook, t.Object({ secret: t.String({ description: 'Signing secret (Standard Webhooks `whsec_…`); shown this one time.' }) })],
  { title: 'WebhookWithSecret' },
);

export const WebhookCreate = Body(
  {
    url: Text({ maxLength: MAX_URL_LENGTH, description: 'https URL of the receiver (private addresses only with WEBHOOK_ALLOW_PRIVATE_NETWORKS).' }),
    events: t.Optional(t.Array(OneOf(WEBHOOK_EVENTS), { minItems: 1, maxItems: 20, description: 'Event types to receive (default `punch_received`).' })),
  },
  { title: 'WebhookCreate' },
);

export const WebhookMessage = t.Object(
  {
    id: t.String(),
    event_type: t.String(),
    punch_sequence: Nullable(Int()),
    status: OneOf(OUTBOX_STATUSES),
    attempts: Int(),
    next_attempt_at: Nullable(Instant()),
    last_error: Nullable(t.String()),
    created_at: Instant(),
    delivered_at: Nullable(Instant()),
  },
  { title: 'WebhookMessage' },
);

export const WebhookDelivery = t.Object(
  {
    id: Int(),
    message_id: t.String(),
    attempt: Int(),
    status_code: Nullable(Int()),
    error: Nullable(t.String()),
    duration_ms: Int(),
    next_retry_at: Nullable(Instant()),
    created_at: Instant(),
  },
  { title: 'WebhookDelivery' },
);

export const WebhookList = { query: t.Object(PageQuery), response: Page(Webhook) };
export const MessageList = { query: t.Object({ status: t.Optional(OneOf(OUTBOX_STATUSES)), ...PageQuery }), response: Page(WebhookMessage) };
export const DeliveryList = { query: t.Object({ message: t.Optional(Text({ maxLength: 100 })), ...PageQuery }), response: Page(WebhookDelivery) };
