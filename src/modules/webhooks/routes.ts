/** `webhooks/` (docs/api.md): endpoints, secret rotation, a test send, their messages and attempt log, redelivery and recovery by hand. */
import { Elysia, t } from 'elysia';
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import {
  DeliveryList,
  EventTypeList,
  MessageList,
  MessageParams,
  Webhook,
  WebhookCreate,
  WebhookList,
  WebhookMessage,
  WebhookParams,
  WebhookRecover,
  WebhookTestResult,
  WebhookWithSecret,
} from './model';
import type { WebhookService } from './service';

const tags = ['webhooks'];

export function webhookRoutes(http: Http, webhooks: WebhookService) {
  return new Elysia({ name: 'fpa-webhook-routes', seed: http.runtime.instanceId }).use(endpointRoutes(http, webhooks)).use(deliveryRoutes(http, webhooks));
}

/** The endpoints themselves: added, listed, removed, enabled again, their secret rotated. */
function endpointRoutes(http: Http, webhooks: WebhookService) {
  return adminRouter(http, 'webhooks')
    .post(
      '/webhooks',
      async ({ body, admin, set }) => {
        const created = await webhooks.create({ url: body.url, events: body.events, by: admin.by });
        set.status = 201;
        return created;
      },
      {
        body: WebhookCreate,
        response: { 201: WebhookWithSecret, ...errors('webhook_url_refused') },
        detail: { summary: 'Add a webhook endpoint; its signing secret is shown this one time', tags },
      },
    )
    .get('/webhooks', ({ query }) => webhooks.list({ cursor: query.cursor, limit: query.limit ?? 100 }), {
      query: WebhookList.query,
      response: { 200: WebhookList.response, ...errors('invalid_cursor') },
      detail: { summary: 'List webhook endpoints (never their secrets)', tags },
    })
    .get('/webhooks/event-types', () => ({ results: [...webhooks.eventTypes] }), {
      response: { 200: EventTypeList, ...errors() },
      detail: { summary: 'The event types an endpoint can subscribe to (the README describes each, with an example)', tags },
    })
    .get('/webhooks/:id', ({ params }) => webhooks.get(params.id), {
      params: WebhookParams,
      response: { 200: Webhook, ...errors('not_found') },
      detail: { summary: 'One webhook endpoint (never its secret)', tags },
    })
    .delete(
      '/webhooks/:id',
      async ({ params, admin, set }) => {
        await webhooks.remove(params.id, { by: admin.by });
        set.status = 204;
      },
      {
        params: WebhookParams,
        response: { 204: t.Void(), ...errors('not_found') },
        detail: { summary: 'Remove a webhook endpoint', tags },
      },
    )
    .post('/webhooks/:id/enable', ({ params, admin }) => webhooks.enable(params.id, { by: admin.by }), {
      params: WebhookParams,
      response: { 200: Webhook, ...errors('not_found', 'webhook_url_refused') },
      detail: { summary: 'Enable an endpoint again after it was disabled; delivery resumes where it stopped', tags },
    })
    .post('/webhooks/:id/rotate-secret', ({ params, admin }) => webhooks.rotateSecret(params.id, { by: admin.by }), {
      params: WebhookParams,
      response: { 200: WebhookWithSecret, ...errors('not_found', 'conflict') },
      detail: {
        summary:
          'Give the endpoint a new signing secret, shown this one time; for WEBHOOK_SECRET_ROTATION_OVERLAP deliveries carry signatures with both the new and the old secret',
        tags,
      },
    });
}

/** What an endpoint was sent: a test send, its messages and attempts, redelivery and recovery by hand. */
function deliveryRoutes(http: Http, webhooks: WebhookService) {
  return adminRouter(http, 'webhook-deliveries')
    .post('/webhooks/:id/test', ({ params, admin }) => webhooks.test(params.id, { by: admin.by }), {
      params: WebhookParams,
      response: { 200: WebhookTestResult, ...errors('not_found') },
      detail: { summary: 'Send a signed `webhook_test` event now and answer the attempt', tags },
    })
    .post('/webhooks/:id/recover', ({ params, body, admin }) => webhooks.recover(params.id, body.since, { by: admin.by }), {
      params: WebhookParams,
      body: WebhookRecover.body,
      response: { 200: WebhookRecover.response, ...errors('not_found') },
      detail: { summary: 'Send again every message since an instant that was not delivered (failed, dead-lettered, held)', tags },
    })
    .get(
      '/webhooks/:id/deliveries',
      ({ params, query }) => webhooks.deliveries(params.id, { cursor: query.cursor, limit: query.limit ?? 100, message: query.message || undefined }),
      {
        params: WebhookParams,
        query: DeliveryList.query,
        response: { 200: DeliveryList.response, ...errors('not_found', 'invalid_cursor') },
        detail: { summary: 'Delivery attempts with status code, error and next retry', tags },
      },
    )
    .get(
      '/webhooks/:id/messages',
      ({ params, query }) => webhooks.messages(params.id, { cursor: query.cursor, limit: query.limit ?? 100, status: query.status }),
      {
        params: WebhookParams,
        query: MessageList.query,
        response: { 200: MessageList.response, ...errors('not_found', 'invalid_cursor') },
        detail: { summary: 'Messages of an endpoint (one per subscribed event since it was created), newest first', tags },
      },
    )
    .post('/webhooks/:id/messages/:message/redeliver', ({ params, admin }) => webhooks.redeliver(params.id, params.message, { by: admin.by }), {
      params: MessageParams,
      response: { 200: WebhookMessage, ...errors('not_found', 'conflict') },
      detail: { summary: 'Deliver a message again (for example a dead-lettered one)', tags },
    });
}
