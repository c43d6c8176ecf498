/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime, Sealing, UploadGate } from '../../platform/runtime';

export const WEBHOOK_SETTINGS = [
  // The window of the dead letters health/ and /metrics count (backlog.ts): that of the attempts kept.
  'RETENTION_DELIVERIES_DAYS',
  'WEBHOOK_ALLOWED_NETWORKS',
  'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
  'WEBHOOK_BATCH_SIZE',
  'WEBHOOK_CONCURRENCY',
  'WEBHOOK_DISABLE_AFTER',
  'WEBHOOK_MAX_ATTEMPTS',
  'WEBHOOK_MAX_LAG',
  'WEBHOOK_RETRY_BACKOFF',
  'WEBHOOK_SECRET_ROTATION_OVERLAP',
  'WEBHOOK_TIMEOUT',
  'WEBHOOK_WORKER',
] as const satisfies readonly (keyof Settings)[];

export type WebhookRuntime = ModuleRuntime<(typeof WEBHOOK_SETTINGS)[number]> & Sealing & UploadGate;
