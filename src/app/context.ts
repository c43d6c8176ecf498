/**
 * What every feature service is given: settings, database, key ring, events, clock and the
 * employee directory. Injected rather than imported so tests and hosts can vary each one.
 */
import type { Settings } from '../platform/config/settings';
import type { TemplateKeyRing } from '../platform/crypto/template-cipher';
import type { Database } from '../platform/db/client';
import type { EmployeeDirectory } from '../modules/employees/directory';
import type { FpaEventBus } from '../modules/events/bus';
import type { Logger } from '../platform/log';

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** In-process signals between features of one instance (not events for hosts). */
export interface Signals {
  /** A device has new pending commands (lets polls skip the database when idle). */
  commandsQueued(deviceId: string): void;
  /** New punches were committed up to this sequence (wakes WebSocket streams). */
  punchesCommitted(lastSequence: number): void;
  /** New outbox rows are due (wakes the webhook worker). */
  outboxChanged(): void;
}

export interface Context {
  readonly settings: Readonly<Settings>;
  readonly db: Database;
  readonly keyRing: TemplateKeyRing;
  readonly events: FpaEventBus;
  readonly clock: Clock;
  readonly employees: EmployeeDirectory;
  readonly log: Logger;
  /** Identifies this instance in job leases and outbox claims. */
  readonly instanceId: string;
  readonly signals: Signals;
}
