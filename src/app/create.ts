/**
 * The embedding surface: `createFingerprintAttendance(...)` builds one instance of the
 * service and returns `{ plugin, service, events, jobs, settings, db, warnings, lock, close }`. A host mounts `plugin` in
 * its Elysia app; the standalone server (server.ts) does the same with nothing around it.
 */
import { Elysia } from 'elysia';
import { AdminAuthenticator, type AuthorizeAdmin } from '../platform/http/admin-auth';
import { deviceRoutes, employeeRoutes, enrolleeRoutes, jobRoutes } from './admin-routes';
import { ConfigurationError, checkConfiguration, type ConfigIssue } from '../platform/config/check';
import { loadSettings, type Settings, type SettingsInput } from '../platform/config/settings';
import { systemClock, type Clock, type Context, type Signals } from './context';
import { createCore, type Core } from './core';
import { createLogger, type Logger } from '../platform/log';
import { TemplateKeyRing } from '../platform/crypto/template-cipher';
import { migrateDatabase, openDatabase, type Database } from '../platform/db/client';
import { acquireLock, type HeldLock } from '../platform/db/lock';
import { meta } from './schema';
import { BUILTIN_LOOKUP_FIELDS, BuiltinEmployeeDirectory, type EmployeeDirectory } from '../modules/employees/directory';
import { FpaEventBus } from '../modules/events/bus';
import { installFeatures, type Features } from './features';
import { apiRouter } from '../platform/http/router';
import { FpaError } from '../platform/errors';
import { API_PREFIX } from '../platform/http/api-prefix';
import { eq } from 'drizzle-orm';

export { API_PREFIX };

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
  plugin: Elysia;
  /** The in-process API (the spec's service operations and each feature's service). */
  service: Service;
  events: FpaEventBus;
  jobs: Core['jobs'];
  settings: Readonly<Settings>;
  db: Database;
  /** Warnings of the configuration check (errors refuse to start). */
  warnings: ConfigIssue[];
  /** The held lock of a `file:` database, if this instance took it. */
  lock: HeldLock | null;
  close(): Promise<void>;
}

export type Service = ReturnType<typeof buildService>;

export async function createFingerprintAttendance(options: CreateOptions = {}): Promise<FingerprintAttendance> {
  const loaded = loadSettings(options.settings ?? {}, options.env ?? process.env);
  const settings = loaded.settings;
  const log = options.logger ?? createLogger(settings.LOG_LEVEL);
  // Errors that need no database first, so a misconfigured start touches nothing.
  // The directory's lookup fields are known before the database opens (the built-in one: `id`).
  const employeeLookupFields = options.employees ? options.employees.lookupFields : BUILTIN_LOOKUP_FIELDS;
  const preIssues = checkConfiguration({ loaded, hostAuthorizesAdmins: Boolean(options.authorizeAdmin), employeeLookupFields });
  if (preIssues.some((i) => i.severity === 'error')) throw new ConfigurationError(preIssues);

  const ownsDb = !options.db;
  const db = options.db ?? (await openDatabase({ url: settings.DATABASE_URL, authToken: settings.DATABASE_AUTH_TOKEN, syncUrl: settings.DATABASE_SYNC_URL, syncIntervalMs: settings.DATABASE_SYNC_INTERVAL }));
  let lock: HeldLock | null = null;
  try {
    if (ownsDb && db.filePath && options.lock !== false) lock = await acquireLock(db.filePath);
    if (options.migrate !== false) await migrateDatabase(db);
    const employees = options.employees ?? new BuiltinEmployeeDirectory(db);
    const recorded = await recordEmployeeModel(db, employees.model);
    const issues = checkConfiguration({
      loaded,
      hostAuthorizesAdmins: Boolean(options.authorizeAdmin),
      recordedEmployeeModel: recorded,
      employeeModel: employees.model,
      employeeLookupFields,
    });
    if (issues.some((i) => i.severity === 'error')) throw new ConfigurationError(issues);
    for (const w of issues) log.warn(w.message, { code: w.code, hint: w.hint });

    const keyRing = await TemplateKeyRing.fromKeys(settings.TEMPLATE_ENCRYPTION_KEYS);
    const events = new FpaEventBus();
    const signalHandlers: Partial<Signals>[] = [];
    const signals: Signals = {
      commandsQueued: (id) => signalHandlers.forEach((h) => h.commandsQueued?.(id)),
      punchesCommitted: (seq) => signalHandlers.forEach((h) => h.punchesCommitted?.(seq)),
      outboxChanged: () => signalHandlers.forEach((h) => h.outboxChanged?.()),
    };
    const ctx: Context = {
      settings,
      db,
      keyRing,
      events,
      clock: options.clock ?? systemClock,
      employees,
      log,
      instanceId: `${process.pid}-${crypto.randomUUID().slice(0, 8)}`,
      signals,
    };
    const auth = new AdminAuthenticator(settings, options.authorizeAdmin);
    if (lock) auth.operatorToken = lock.info.token;
    const core = createCore(ctx, auth);
    const features = installFeatures(core, (handlers) => signalHandlers.push(handlers));

    const api = new Elysia({ name: 'fpa-api', seed: ctx.instanceId, prefix: API_PREFIX })
      .use(deviceRoutes(core))
      .use(employeeRoutes(core))
      .use(enrolleeRoutes(core))
      .use(jobRoutes(core));
    let plugin = new Elysia({ name: 'fingerprint-attendance', seed: ctx.instanceId }).use(api);
    for (const routes of features.routes) plugin = plugin.use(routes) as unknown as typeof plugin;
    // Unknown paths under the API prefix answer the spec's error body, not Elysia's plain text.
    // Every real route is more specific than this wildcard, so it only catches what nothing else does.
    plugin = plugin.use(
      apiRouter(core, 'api-not-found').all(`${API_PREFIX}/*`, ({ request }) => {
        throw new FpaError('not_found', 'no such endpoint', { method: request.method, path: new URL(request.url).pathname });
      }),
    ) as unknown as typeof plugin;

    if (options.startJobs ?? settings.TASK_BACKEND === 'cron') startAll(core, features);
    if (options.startJobs !== false) for (const start of features.background) start();

    let closed = false;
    return {
      plugin: plugin as unknown as Elysia,
      service: buildService(core, features),
      events,
      jobs: core.jobs,
      settings,
      db,
      warnings: issues,
      lock,
      async close() {
        if (closed) return;
        closed = true;
        await core.jobs.stop();
        for (const stop of features.stops) await stop();
        if (ownsDb) await db.close();
        lock?.release();
      },
    };
  } catch (error) {
    lock?.release();
    if (ownsDb) await db.close().catch(() => undefined);
    throw error;
  }
}

function startAll(core: Core, features: Features): void {
  core.jobs.start();
  for (const start of features.starts) start();
}

/** Records the employee model at the first migration; returns what was recorded. */
async function recordEmployeeModel(db: Database, model: string): Promise<string> {
  return db.write(async ({ tx }) => {
    await tx.insert(meta).values({ key: 'employee_model', value: model }).onConflictDoNothing();
    const row = await tx.query.meta.findFirst({ where: eq(meta.key, 'employee_model') });
    return row!.value;
  });
}

function buildService(core: Core, features: Features) {
  const { devices, enrollees, templates } = core;
  return {
    /** Approves a pending device and backfills every in-scope enrollee onto it. */
    approveDevice: (device: string, options: { by: string; areas?: string[] }) => devices.approveDevice(device, options),
    disableDevice: (device: string, options: { by: string }) => devices.disableDevice(device, options),
    /** Creates an enrollee with an auto-generated device PIN. */
    createEnrollee: (employee: string, options: { areas?: string[]; by?: string } = {}) => enrollees.createEnrollee(employee, options),
    giveConsent: (enrollee: string, consent: { version: string; method: string; by: string }) => enrollees.giveConsent(enrollee, consent),
    withdrawConsent: (enrollee: string, options: { by: string }) => enrollees.withdrawConsent(enrollee, options),
    deleteEnrollee: (enrollee: string, options: { by: string }) => enrollees.deleteEnrollee(enrollee, options),
    /** Validates, encrypts, versions, stores and fans out one template. */
    storeTemplate: (
      enrollee: string,
      finger: number,
      data: Uint8Array,
      options: { algorithmVersion: string; quality?: number; by: string; source?: 'api' | 'agent' | 'device' | 'remote'; device?: string | null },
    ) =>
      templates.storeTemplate({
        enrolleeId: enrollee,
        fingerIndex: finger,
        data,
        algorithmVersion: options.algorithmVersion,
        quality: options.quality ?? null,
        source: options.source ?? 'api',
        sourceDeviceId: options.device ?? null,
        by: options.by,
      }),
    /**
     * SPEC `start_enrollment_session(enrollee, device or agent, fingers)`: a remote session on the
     * terminal with serial `device`, or an agent session for the agent with id `agent` (exactly one).
     */
    startEnrollmentSession: async (enrollee: string, options: { device?: string; agent?: string; fingers: number[]; by: string }) => {
      const { device, agent, fingers, by } = options;
      const given = (value: string | undefined): value is string => typeof value === 'string' && value !== '';
      if (given(device) === given(agent)) {
        throw new FpaError('validation_error', 'give exactly one of device and agent', { fields: ['device', 'agent'] });
      }
      return given(device)
        ? features.service.startRemoteEnrollment(enrollee, { device, fingers, by })
        : features.service.startAgentSession(enrollee, { agent: agent!, fingers, by });
    },
    ...features.service,
    core,
  };
}

export type { Settings, SettingsInput } from '../platform/config/settings';
export type { EmployeeDirectory, Employee } from '../modules/employees/directory';
export type { FpaEvents, FpaEventName } from '../modules/events/bus';
export type { PunchView } from '../modules/punches/view';
export { FpaError };
