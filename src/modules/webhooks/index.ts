/** Webhooks: endpoints, signed deliveries with retries, redelivery by hand. */
export { Webhooks } from './service';
export { webhookRoutes } from './routes';
export type { WebhookEndpointView } from './endpoints';
export { webhookJobs } from './jobs';
