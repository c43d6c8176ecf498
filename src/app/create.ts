/**
 * The embedding surface: `createFingerprintAttendance(...)` builds one instance of the
 * service and returns `{ plugin, operations, service, events, jobs, settings, db, warnings, lock, openapi, close }`. A host mounts
 * `plugin` in its Elysia app (and `operations` if it wants `/readyz` and `/metrics`); the standalone server (server.ts) mounts both.
 */
import type { AnyElysia } from 'elysia';
import type { EmployeeDirectory } from '../modules/employees';
import { BUILTIN_LOOKUP_FIELDS, BuiltinEmployeeDirectory, recordEmployeeModel } from '../modules/employees';
import type { EventBus } from '../modules/events';
import type { JobRunner } from '../modules/jobs';
import { enrollmentGate } from '../modules/sign-in-factors';
import { type ConfigIssue, ConfigurationError, checkConfiguration, effectiveEmployeeModel } from '../platform/config/check';
import { loadSettings, type Settings, type SettingsInput } from '../platform/config/settings';
import { DigestSecrets } from '../platform/crypto/digest-secrets';
import { TemplateKeyRing } from '../platform/crypto/template-cipher';
import { appliedMigrationsText, type Database, migrateDatabase, migrationsPendingHere, openDatabase } from '../platform/db/client';
import { acquireLock, type HeldLock, type LockInfo } from '../platform/db/lock';
import { AdminAuthenticator, type AuthorizeAdmin } from '../platform/http/admin-auth';
import { createLogger, type Logger } from '../platform/log';
import { Metrics } from '../platform/metrics';
import { type Clock, type Runtime, systemClock } from '../platform/runtime';
import { UploadBurst } from '../platform/upload-burst';
import { recordServedAt, type ServedAt } from './addresses';
import type { JsonObject } from './docs/openapi';
import type { FpaEvents } from './events';
import { jobDefinitions } from './jobs';
import { buildModules, type Modules } from './modules';
import { buildPlugin } from './plugin';
import { checkKeyRing } from './sealed-data';
import { buildService, type Service } from './service';

export interface CreateOptions {
  /** Settings in code (SCREAMING_CASE keys); `FPA_*` environment variables override them. */
  settings?: SettingsInput;
  /** Environment to read `FPA_*` from (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** An open database to share (for example two instances in one process). */
  db?: Database;
  /** The host's employee directory; default: the built-in employees table. */
  employees?: EmployeeDirectory;
  /** The host's own administrator check, instead of (or besides) JWTs. */
  authorizeAdmin?: AuthorizeAdmin;
  clock?: Clock;
  logger?: Logger;
  /** Start the in-process schedules now (default: when TASK_BACKEND is `cron`; with `external`
   *  nothing is ever scheduled). `false` (scripts) also keeps background work such as the webhook
   *  worker from starting. */
  startJobs?: boolean;
  /** Take the single-writer lock of a `file:` database (default true when this call opens it). */
  lock?: boolean;
  /** Skip migrations (they already ran). */
  migrate?: boolean;
}

export interface FingerprintAttendance {
  /** The API under `/api/fingerprint/`, the terminals' `/iclock/`, the console's `/console/` (and its sign-in paths). */
  plugin: AnyElysia;
  /** `/readyz` and `/metrics` at the root, as the standalone server serves them: not in `plugin` (a host's own paths); a host mounts this to have them. */
  operations: AnyElysia;
  /** The in-process API (the spec's service operations and each module's service). */
  service: Service;
  /** Typed in-process events, after commit (the durable log is `events/`). */
  events: EventBus<FpaEvents>;
  jobs: JobRunner;
  settings: Readonly<Settings>;
  db: Database;
  /** Warnings of the configuration check (errors refuse to start). */
  warnings: ConfigIssue[];
  /** The held lock of a `file:` database, if this instance took it. */
  lock: HeldLock | null;
  /** The OpenAPI 3.1 document of the plugin's API (what `docs/json` serves), generated from its routes. */
  openapi(): JsonObject;
  /**
   * Where the host serves the plugin, for the lock file (the scripts reach the API there, and a
   * second instance's DatabaseLockedError names it). Written by itself when the host's Elysia app
   * listens (`app.listen`); a host serving it otherwise (`Bun.serve({ fetch: app.fetch })`, a
   * socket path) calls this once it listens.
   */
  servedAt(at: ServedAt): void;
  close(): Promise<void>;
}

export async function createFingerprintAttendance(options: CreateOptions = {}): Promise<FingerprintAttendance> {
  const loaded = loadSettings(options.settings ?? {}, options.env ?? process.env);
  const settings = loaded.settings;
  const log = options.logger ?? createLogger(settings.LOG_LEVEL);
  // Errors that need no database first, so a misconfigured start touches nothing.
  refuseErrors(checkConfiguration({ loaded, ...hostChoices(options) }));

  const ownsDb = !options.db;
  const db = options.db ?? (await openOwnDatabase(settings, log));
  let lock: HeldLock | null = null;
  try {
    if (ownsDb && db.filePath && options.lock !== false) lock = await acquireLock(db.filePath);
    if (lock?.tookOverFrom) sayTakenOver(log, lock.tookOverFrom);
    if (options.migrate !== false) await migrateAndSay(db, log);
    const directory = options.employees ?? new BuiltinEmployeeDirectory(db);
    const recorded = await recordEmployeeModel(db, effectiveEmployeeModel(settings, options.employees?.model));
    const keyRing = await TemplateKeyRing.fromKeys(settings.TEMPLATE_ENCRYPTION_KEYS);
    // A key ring that opens none of the data at rest is refused before anything is sealed with it.
    const sealedData = await checkKeyRing(db, keyRing);
    const issues = checkConfiguration({ loaded, recordedEmployeeModel: recorded, sealedData, ...hostChoices(options) });
    refuseErrors(issues);
    for (const w of issues) log.warn(w.message, { code: w.code, hint: w.hint });

    const runtime = runtimeOf(settings, db, log, keyRing, options);
    const assembled = await assemble(runtime, directory, lock, options);
    await startServing(assembled.modules, settings, options);
    return instance({ ...assembled, runtime, issues, lock, ownsDb });
  } catch (error) {
    lock?.release();
    if (ownsDb) await db.close().catch(() => undefined);
    throw error;
  }
}

/** What the configuration check needs to know of the host: its employee model and lookup fields. */
function hostChoices(options: CreateOptions) {
  return {
    hostEmployeeModel: options.employees?.model,
    // The directory's lookup fields are known before the database opens (the built-in one: `id`).
    employeeLookupFields: options.employees ? options.employees.lookupFields : BUILTIN_LOOKUP_FIELDS,
  };
}

function refuseErrors(issues: ConfigIssue[]): void {
  if (issues.some((i) => i.severity === 'error')) throw new ConfigurationError(issues);
}

/** A start after a kill or a power cut: the database was left locked by a process that ended. */
function sayTakenOver(log: Logger, previous: LockInfo): void {
  log.warn('the database was left locked by a process that ended without releasing it (a kill, a power cut); taken over', {
    previous_pid: previous.pid,
    previous_since: previous.startedAt,
  });
}

/** Applies the migrations not applied yet, and says which at start (fpa:migrate says it the same way). */
async function migrateAndSay(db: Database, log: Logger): Promise<void> {
  const { pending } = await migrationsPendingHere(db);
  await migrateDatabase(db);
  if (pending.length > 0) log.info(appliedMigrationsText(pending), { migrations: pending.length });
}

function openOwnDatabase(settings: Readonly<Settings>, log: Logger): Promise<Database> {
  return openDatabase({
    url: settings.DATABASE_URL,
    authToken: settings.DATABASE_AUTH_TOKEN,
    syncUrl: settings.DATABASE_SYNC_URL,
    syncIntervalMs: settings.DATABASE_SYNC_INTERVAL,
    backgroundMaxWaitMs: settings.ATTENDANCE_MAX_LAG,
    warn: (message) => log.warn(message),
  });
}

/** The whole runtime, held here; each module is given its own part of it (app/modules.ts). */
function runtimeOf(settings: Readonly<Settings>, db: Database, log: Logger, keyRing: TemplateKeyRing, options: CreateOptions): Runtime {
  return {
    settings,
    db,
    keyRing,
    digestSecrets: (purpose) => new DigestSecrets(settings.TEMPLATE_ENCRYPTION_KEYS, purpose),
    clock: options.clock ?? systemClock,
    log,
    instanceId: `${process.pid}-${crypto.randomUUID().slice(0, 8)}`,
    metrics: new Metrics(),
    uploads: new UploadBurst(settings.WEBHOOK_MAX_LAG),
  };
}

/** The modules, who may call the API, the jobs and the plugin, built over one runtime. */
async function assemble(runtime: Runtime, directory: EmployeeDirectory, lock: HeldLock | null, options: CreateOptions) {
  const auth = new AdminAuthenticator(runtime.settings, options.authorizeAdmin);
  if (lock) auth.operatorToken = lock.info.token;
  const modules = buildModules(runtime, directory);
  // A SQL migration cannot encrypt: an earlier release's clear webhook secrets are sealed here.
  await modules.webhooks.sealClearSecrets();
  // Nor fold accents: names stored before migration 0039 get the key the sort by name orders by.
  const keyed = await modules.enrollees.changes.keyNames();
  if (keyed > 0) runtime.log.info('the names of people stored by an earlier release were keyed for the sort by name', { people: keyed });
  // Holding a file database's writer lock, no other process can be delivering webhooks or
  // running jobs: claims and leases found belong to a process that died. Not so for an embedded
  // replica: its file is this instance's own copy, and other live instances write the primary.
  if (lock && !runtime.settings.DATABASE_SYNC_URL) {
    await modules.webhooks.releaseClaims();
    await modules.jobs.releaseLeases();
  }
  // A console session (cookie + CSRF header) counts as an administrator on every admin route.
  // A user whose role requires a second factor and who has none reaches only their profile until they set one up.
  auth.browserSessions = enrollmentGate(modules.console, modules.factors, modules.factorUsers);
  // `Authorization: Bearer fpa_key_…` counts as the key's caller on every admin route.
  auth.apiKeys = modules.apiKeys;
  for (const job of jobDefinitions(runtime, modules)) modules.jobs.register(job);
  // Where the instance is served, once its server listens: in the lock file for the scripts, and
  // for the routes that name the server's own address (invite links).
  const served: { at: ServedAt | null } = { at: null };
  const servedAt = (at: ServedAt) => {
    served.at = at;
    recordServedAt(lock, runtime.settings, at);
  };
  const http = { runtime, auth, served };
  const { plugin, openapi, operations } = buildPlugin(http, modules, servedAt);
  return { modules, plugin, openapi, operations, servedAt };
}

async function startServing(modules: Modules, settings: Readonly<Settings>, options: CreateOptions): Promise<void> {
  if (options.startJobs ?? settings.TASK_BACKEND === 'cron') modules.jobs.start();
  // The webhook worker is part of serving: it runs whatever TASK_BACKEND says, but not in scripts.
  if (options.startJobs !== false) {
    // A database fpa:restore replaced is kept only RESTORE_KEEP_REPLACED: a server that is not up at the daily purge deletes it here.
    modules.retention.forgetReplacedDatabases();
    modules.webhooks.startWorker();
    // Derived state follows the log in every serving instance (it catches up from where it stood).
    modules.attendance.follower.start();
    modules.anomalies.follower.start();
    // The server's own heartbeat: a start after an outage asks terminals to re-upload its range.
    await modules.heartbeat.start();
  }
}

interface Built extends Awaited<ReturnType<typeof assemble>> {
  runtime: Runtime;
  issues: ConfigIssue[];
  lock: HeldLock | null;
  ownsDb: boolean;
}

/** The instance a host holds: what it mounts, calls and listens to, and how it closes. */
function instance({ modules, plugin, operations, openapi, servedAt, runtime, issues, lock, ownsDb }: Built): FingerprintAttendance {
  let closed = false;
  return {
    plugin,
    operations,
    service: buildService(modules, runtime),
    events: modules.events,
    jobs: modules.jobs,
    settings: runtime.settings,
    db: runtime.db,
    warnings: issues,
    lock,
    openapi: openapi.document,
    servedAt,
    async close() {
      if (closed) return;
      closed = true;
      await modules.jobs.stop();
      modules.heartbeat.stop();
      await modules.attendance.follower.stop();
      await modules.anomalies.follower.stop();
      await modules.punchStream.stop();
      await modules.eventStream.stop();
      await modules.webhooks.stop();
      // Refused registrations counted in memory and not written yet (devices/refusals.ts).
      await modules.devices.refusals.flush();
      if (ownsDb) await runtime.db.close();
      lock?.release();
    },
  };
}

export type { Employee, EmployeeDirectory } from '../modules/employees';
export type { PunchView } from '../modules/punches';
export type { Settings, SettingsInput } from '../platform/config/settings';
export { FpaError } from '../platform/errors';
export { API_PREFIX } from '../platform/http/api-prefix';
export type { FpaEvents } from './events';
export type { Service } from './service';
