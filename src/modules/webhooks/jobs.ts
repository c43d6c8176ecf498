import type { JobDefinition } from '../jobs';
import type { Webhooks } from './module';

export function webhookJobs(webhooks: Webhooks): JobDefinition[] {
  return [
    {
      name: 'deliver-webhooks',
      // With the in-process worker on, a schedule would only duplicate it.
      schedule: webhooks.ctx.settings.WEBHOOK_WORKER ? null : '10 * * * * *',
      description:
        "Delivers the webhook messages that are due now, once: each endpoint up to the log's head, and the messages queued by hand (the worker does this continuously).",
      run: async () => ({ ...(await webhooks.worker.deliverDue()) }),
    },
  ];
}
