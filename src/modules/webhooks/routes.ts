/** `webhooks/` (API.md): endpoints, their messages and attempt log, redelivery by hand. */
import { t } from 'elysia';
import type { Core } from '../../app/core';
import { adminRouter, limitOf } from '../../platform/http/router';
import { MAX_URL_LENGTH, type WebhookService } from './service';

export function webhookRoutes(core: Core, webhooks: WebhookService) {
  return adminRouter(core, 'admin-webhooks')
    .post(
      '/webhooks',
      async ({ body, admin, set }) => {
        const created = await webhooks.create({ url: body.url, events: body.events, by: admin.by });
        set.status = 201;
        return created;
      },
      {
        body: t.Object(
          {
            url: t.String({ minLength: 1, maxLength: MAX_URL_LENGTH }),
            events: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 20 })),
          },
          { additionalProperties: false },
        ),
      },
    )
    .get('/webhooks', ({ query }) => webhooks.list({ cursor: query.cursor, limit: limitOf(query) }))
    .get('/webhooks/:id', ({ params }) => webhooks.get(params.id))
    .delete('/webhooks/:id', async ({ params, admin, set }) => {
      await webhooks.remove(params.id, { by: admin.by });
      set.status = 204;
    })
    .post('/webhooks/:id/enable', ({ params, admin }) => webhooks.enable(params.id, { by: admin.by }))
    .get('/webhooks/:id/deliveries', ({ params, query }) =>
      webhooks.deliveries(params.id, { cursor: query.cursor, limit: limitOf(query), message: query.message || undefined }),
    )
    .get('/webhooks/:id/messages', ({ params, query }) =>
      webhooks.messages(params.id, { cursor: query.cursor, limit: limitOf(query), status: query.status || undefined }),
    )
    .post('/webhooks/:id/messages/:message/redeliver', ({ params, admin }) => webhooks.redeliver(params.id, params.message, { by: admin.by }));
}
