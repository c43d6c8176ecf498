/** Webhooks: endpoints, signed deliveries with retries, redelivery by hand. */

export type { WebhookEndpointView } from './endpoints';
export { webhookJobs } from './jobs';
export { webhookRoutes } from './routes';
export { Webhooks } from './service';
