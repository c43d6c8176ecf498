/**
 * What every module is given: settings, the database, the template key ring, a clock, a logger
 * and this instance's id. Injected rather than imported, so tests and hosts can vary each one.
 */
import type { Settings } from './config/settings';
import type { TemplateKeyRing } from './crypto/template-cipher';
import type { Database } from './db/client';
import type { Logger } from './log';
import type { Metrics } from './metrics';
import type { UploadBurst } from './upload-burst';

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface Runtime {
  readonly settings: Readonly<Settings>;
  readonly db: Database;
  readonly keyRing: TemplateKeyRing;
  readonly clock: Clock;
  readonly log: Logger;
  /** Identifies this instance in job leases and outbox claims. */
  readonly instanceId: string;
  readonly metrics: Metrics;
  /** Terminals' uploads as they arrive: deliveries yield to a burst of them (WEBHOOK_MAX_LAG). */
  readonly uploads: UploadBurst;
}
