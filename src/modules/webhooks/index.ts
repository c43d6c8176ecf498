/** Webhooks: endpoints following the event log, signed deliveries with retries, recovery by hand. */

export type { WebhookBacklog } from './backlog';
export { webhookJobs } from './jobs';
export { Webhooks } from './module';
export { webhookRoutes } from './routes';
export { WEBHOOK_SETTINGS } from './runtime';
export { rotateWebhookSecrets, sealedWebhookSecretSamples } from './secrets';
export type { WebhookEndpointView } from './views';
