/**
 * Punches out: polling (`punches/latest/`, `punches/`), webhooks (outbox rows written with the
 * punches, a worker that delivers them) and the WebSocket stream.
 *
 * The webhook worker is part of serving, not a periodic job: it runs in every serving
 * instance whatever TASK_BACKEND says, unless WEBHOOK_WORKER is off; then `deliver-webhooks`
 * (job, script, or its every-minute schedule under TASK_BACKEND=cron) drains the outbox.
 */
import { API_PREFIX } from '../../platform/http/api-prefix';
import { Elysia } from 'elysia';
import type { Core } from '../../app/core';
import type { Signals } from '../../app/context';
import type { FeatureParts } from '../../app/features';
import { punchRoutes } from '../punches/routes';
import { PunchStreamHub, punchStreamRoutes } from '../punches/stream';
import { writePunchMessages } from './outbox';
import { webhookRoutes } from './routes';
import { WebhookService } from './service';
import { DeliveryWorker } from './worker';


export function installIntegrations(core: Core, onSignals: (handlers: Partial<Signals>) => void) {
  const { ctx } = core;
  const worker = new DeliveryWorker(ctx);
  const webhooks = new WebhookService(ctx, worker);
  const hub = new PunchStreamHub(ctx);

  // Outbox rows commit in the same transaction as the punches they announce.
  core.punches.onInsert(async (tx, rows) => {
    await writePunchMessages(tx, rows, ctx.clock.now());
  });
  onSignals({
    punchesCommitted: () => {
      worker.wake();
      hub.wake();
    },
    outboxChanged: () => worker.wake(),
  });

  core.jobs.register({
    name: 'deliver-webhooks',
    // With the in-process worker on, a schedule would only duplicate it.
    schedule: ctx.settings.WEBHOOK_WORKER ? null : '10 * * * * *',
    description: 'Delivers the webhook messages that are due now, once (the worker does this continuously).',
    run: async () => ({ ...(await worker.deliverDue()) }),
  });

  const routes = new Elysia({ name: 'fpa-integrations', seed: ctx.instanceId, prefix: API_PREFIX })
    .use(punchRoutes(core))
    .use(punchStreamRoutes(core, hub))
    .use(webhookRoutes(core, webhooks));

  const parts: FeatureParts<{ webhooks: WebhookService; punches: Core['punches']; closeStreams: () => Promise<void> }> = {
    routes: [routes as unknown as Elysia],
    background: ctx.settings.WEBHOOK_WORKER ? [() => worker.start()] : [],
    stops: [() => hub.stop(), () => worker.stop()],
    /** `closeStreams`: a host stopping its app closes the punch streams first (open WebSockets keep a Bun server's stop() waiting). */
    service: { webhooks, punches: core.punches, closeStreams: () => hub.stop() },
  };
  return parts;
}
