/**
 * What the modules are given, injected rather than imported so tests and hosts can vary each
 * part. The composition root holds the whole `Runtime`: every setting, the database, the template
 * key ring, a clock, a logger, this instance's id, the metrics and the upload-burst gate. A module
 * gets only what it uses (issue 22): a `ModuleRuntime` whose settings are the ones it declares
 * (its `runtime.ts`), copied by `runtimeFor`, so it can neither name another module's settings
 * (the type refuses it) nor read them (they are not there); the key ring reaches only the modules
 * that encrypt or seal (`Sealing`), secrets derived from it only those that keep keyed digests
 * (`Digesting`), the upload-burst gate only the ones that mark or wait on it.
 */
import type { Settings } from './config/settings';
import type { DigestSecrets } from './crypto/digest-secrets';
import type { TemplateKeyRing } from './crypto/template-cipher';
import type { Database } from './db/client';
import type { Logger } from './log';
import type { Metrics } from './metrics';
import type { UploadBurst } from './upload-burst';

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** What any module is given: the settings it declares (K), and the shared means. */
export interface ModuleRuntime<K extends keyof Settings = never> {
  readonly settings: Readonly<Pick<Settings, K>>;
  readonly db: Database;
  readonly clock: Clock;
  readonly log: Logger;
  /** Identifies this instance in job leases and outbox claims. */
  readonly instanceId: string;
  readonly metrics: Metrics;
}

/** Given besides to a module that encrypts or seals (templates, staged uploads, secrets, proof keys). */
export interface Sealing {
  readonly keyRing: TemplateKeyRing;
}

/**
 * Given besides to a module that keeps keyed digests (HMAC) of secrets it must check: secrets
 * derived from the template keys for one purpose (platform/crypto/digest-secrets.ts), never the
 * keys themselves, which stay with the modules that encrypt.
 */
export interface Digesting {
  readonly digestSecrets: (purpose: string) => DigestSecrets;
}

/** Given besides to a module that marks terminals' uploads or yields to a burst of them. */
export interface UploadGate {
  /** Terminals' uploads as they arrive: deliveries yield to a burst of them (WEBHOOK_MAX_LAG). */
  readonly uploads: UploadBurst;
}

/** The whole runtime, held by the composition root, the jobs and the routes. */
export interface Runtime extends ModuleRuntime<keyof Settings>, Sealing, Digesting, UploadGate {}

/**
 * The runtime of one module: the shared means and a frozen copy of only the settings it
 * declares (nothing else is on the object, so no other setting can be read at run time).
 */
export function runtimeFor<const K extends keyof Settings>(runtime: Runtime, keys: readonly K[]): ModuleRuntime<K> {
  const settings = {} as Pick<Settings, K>;
  for (const key of keys) settings[key] = runtime.settings[key];
  const { db, clock, log, instanceId, metrics } = runtime;
  return { settings: Object.freeze(settings), db, clock, log, instanceId, metrics };
}

/** The runtime of a module that encrypts or seals: its settings and the key ring. */
export function sealingRuntimeFor<const K extends keyof Settings>(runtime: Runtime, keys: readonly K[]): ModuleRuntime<K> & Sealing {
  return { ...runtimeFor(runtime, keys), keyRing: runtime.keyRing };
}

/** The runtime of a module that keeps keyed digests: its settings and the digest secrets, not the key ring. */
export function digestingRuntimeFor<const K extends keyof Settings>(runtime: Runtime, keys: readonly K[]): ModuleRuntime<K> & Digesting {
  return { ...runtimeFor(runtime, keys), digestSecrets: runtime.digestSecrets };
}
