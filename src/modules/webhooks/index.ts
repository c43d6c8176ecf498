/** Webhooks: endpoints following the event log, signed deliveries with retries, recovery by hand. */

export type { WebhookEndpointView } from './endpoints';
export { webhookJobs } from './jobs';
export { webhookRoutes } from './routes';
export { Webhooks } from './service';
