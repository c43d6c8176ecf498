/** The webhooks module's HTTP model. */
import { t } from 'elysia';
import { Body, Instant, InstantInput, Int, Nullable, OneOf, Page, PageQuery, Text } from '../../platform/http/model';

export const MAX_URL_LENGTH = 2048;

/** A message as shown: `held` is a pending one whose endpoint is disabled. */
export const MESSAGE_VIEW_STATUSES = ['pending', 'held', 'delivered', 'dead'] as const;

export const WebhookParams = t.Object({ id: Text({ maxLength: 100, description: 'Endpoint id (UUID).' }) });
export const MessageParams = t.Object({
  id: Text({ maxLength: 100 }),
  message: Text({ maxLength: 100, description: 'Message id: the event id (`evt_…`), the `webhook-id` of its deliveries.' }),
});

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
    position: Int({ description: 'Every subscribed event up to this sequence of the event log was handed off (delivered, or dead-lettered).' }),
    attempts: Int({ description: 'Consecutive failed attempts of the next message.' }),
    next_attempt_at: Nullable(Instant('While backing off: when delivery is tried again.')),
    last_error: Nullable(t.String()),
    last_delivered_at: Nullable(Instant()),
    previous_secret_valid_until: Nullable(
      Instant('During a secret rotation (`rotate-secret`): until when deliveries are also signed with the previous secret.'),
    ),
  },
  { title: 'Webhook' },
);

export const WebhookWithSecret = t.Composite(
  [Webhook, t.Object({ secret: t.String({ description: 'Signing secret (Standard Webhooks `whsec_…`); shown this one time.' }) })],
  { title: 'WebhookWithSecret' },
);

export const WebhookCreate = Body(
  {
    url: Text({
      maxLength: MAX_URL_LENGTH,
      description:
        'https URL of the receiver (plain http only on a private or loopback address, and those only inside WEBHOOK_ALLOWED_NETWORKS; link-local and metadata addresses never).',
    }),
    events: t.Optional(
      // At least one, said by the service (webhooks/service.ts `validateEvents`): an empty list is
      // told the event types it may hold, as an unknown type is, not only that the shape is wrong.
      t.Array(t.String({ pattern: '^[a-z_]{1,64}$' }), {
        maxItems: 50,
        description: 'Event types to receive, at least one, any type of the event log (default `punch_received`).',
      }),
    ),
  },
  { title: 'WebhookCreate' },
);

export const WebhookMessage = t.Object(
  {
    id: t.String({ description: 'The event id: the `webhook-id` of every attempt.' }),
    event_type: t.String(),
    event_sequence: Int(),
    status: OneOf(MESSAGE_VIEW_STATUSES),
    attempts: Nullable(Int({ description: 'Null for a message delivered in order (not counted per message).' })),
    next_attempt_at: Nullable(Instant()),
    last_error: Nullable(t.String()),
    created_at: Instant('When the event was recorded.'),
    delivered_at: Nullable(Instant('Where known: null for a message delivered in order.')),
  },
  { title: 'WebhookMessage' },
);

export const WebhookDelivery = t.Object(
  {
    id: Int(),
    message_id: t.String(),
    attempt: Int(),
    count: Int({ description: 'Messages this row accounts for: 1, or a run of in-order deliveries ending with `message_id`.' }),
    status_code: Nullable(Int()),
    error: Nullable(t.String()),
    duration_ms: Int(),
    next_retry_at: Nullable(Instant()),
    created_at: Instant(),
    event_type: Nullable(t.String({ description: 'The type of the event delivered (`webhook_test` for a test send); null once the event is pruned.' })),
    test: t.Boolean({ description: 'A test send (`POST webhooks/{id}/test/`), not an event.' }),
  },
  { title: 'WebhookDelivery' },
);

export const WebhookTestResult = t.Object(
  {
    status_code: Nullable(Int({ description: 'The receiver’s HTTP status; null when no answer came.' })),
    error: Nullable(t.String()),
    duration_ms: Int(),
  },
  { title: 'WebhookTestResult' },
);

export const WebhookRecover = {
  body: Body({ since: InstantInput('Messages of events recorded at or after this instant are sent again.') }, { title: 'WebhookRecover' }),
  response: t.Object({ requeued: Int({ description: 'Messages that will be sent.' }) }, { title: 'WebhookRecovered' }),
};

export const WebhookList = { query: t.Object(PageQuery), response: Page(Webhook) };
export const MessageList = { query: t.Object({ status: t.Optional(OneOf(MESSAGE_VIEW_STATUSES)), ...PageQuery }), response: Page(WebhookMessage) };
export const DeliveryList = { query: t.Object({ message: t.Optional(Text({ maxLength: 100 })), ...PageQuery }), response: Page(WebhookDelivery) };

export const EventTypeList = t.Object({ results: t.Array(t.String()) }, { title: 'EventTypeList' });
