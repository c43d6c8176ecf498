/**
 * Operator commands: `bun run fpa:<name>`. Job commands run the same code as the schedule.
 * While a server holds a local `file:` database they hand their work to it through the lock
 * file (docs/design.md); otherwise they open the database themselves. Either way they print one
 * summary line and exit non-zero on failure.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { createFingerprintAttendance } from '../app/create';
import { checkKeyRing, describeSamples, sampleSealedData } from '../app/sealed-data';
import { ABSENCE_PARAMS } from '../modules/attendance';
import { BUILTIN_LOOKUP_FIELDS, recordedEmployeeModel } from '../modules/employees';
import { CHECK_CODES, type CheckInput, checkConfiguration, formatIssues } from '../platform/config/check';
import { describeSettings, loadSettings, type SettingKey, type Settings, settingDigests, settingsGivenIn } from '../platform/config/settings';
import type { SealedSample } from '../platform/crypto/sealed-sample';
import { randomToken } from '../platform/crypto/secrets';
import { generateEncryptionKey, TemplateKeyRing } from '../platform/crypto/template-cipher';
import {
  appliedMigrationsText,
  type Database,
  databaseFilePath,
  migrateDatabase,
  migrationsPendingHere,
  migrationsUnknownHere,
  NewerDatabaseError,
  newerDatabaseMessage,
  openDatabase,
  pendingMigrationsMessage,
} from '../platform/db/client';
import { acquireLock, DatabaseLockedError, type LockInfo, liveLockHolder } from '../platform/db/lock';
import { DatabaseUnavailableError, redactDatabaseUrl } from '../platform/db/unavailable';
import { explainFailure, FpaError } from '../platform/errors';
import { OPERATOR_TOKEN_HEADER } from '../platform/http/admin-auth';
import { silentLogger } from '../platform/log';
import { isCalendarDate } from '../platform/time/dates';
import {
  checkCodesMarkdown,
  errorStatusMarkdown,
  eventsMarkdown,
  replaceBlock,
  routesTableMarkdown,
  servedOpenApiDocument,
  settingsTableMarkdown,
} from './readme-blocks';
import { COMMAND_HELP } from './usage';

type Command = (args: string[]) => Promise<number>;

const JOB_COMMANDS = [
  'check-devices',
  'expire-pending-devices',
  'sync-device-clocks',
  'expire-commands',
  'retry-commands',
  'expire-sessions',
  'generate-absences',
  'purge-retention',
  'rotate-keys',
  'rotate-proof-key',
  'deliver-webhooks',
  'reconcile-devices',
  'follow-area-moves',
  'check-completeness',
];

/** How long a script waits for the process holding the database to listen or to let go. */
const HOLDER_WAIT_MS = 30_000;

/**
 * Finds a running server that holds the local database, if any. A holder that serves no API
 * yet is a server starting, or another script working on the file itself: waited for until it
 * listens (its API then) or lets go (null: this script takes the file itself).
 */
async function runningServer(): Promise<Pick<LockInfo, 'apiUrl' | 'consoleBase' | 'token' | 'settings'> | null> {
  const { settings } = loadSettings();
  const file = databaseFilePath(settings.DATABASE_URL);
  if (!file) return null;
  const until = Date.now() + HOLDER_WAIT_MS;
  for (;;) {
    const holder = await liveLockHolder(file);
    if (!holder) return null;
    if (holder.apiUrl) return { apiUrl: holder.apiUrl, consoleBase: holder.consoleBase, token: holder.token, settings: holder.settings };
    if (Date.now() >= until) {
      throw new Error(
        `process ${holder.pid} (since ${holder.startedAt}) has held the database for ${HOLDER_WAIT_MS / 1000} s without serving the API: a server still starting, or another fpa script working on the file itself; wait for it to finish, or stop it`,
      );
    }
    await Bun.sleep(250);
  }
}

/** What an answer of the API carries when it refuses (the spec's error body). */
interface ErrorBody {
  error?: { message?: unknown; details?: { errors?: unknown } };
}

/** Why the running server refused a command's request, for its one error line: a 400 names each value it refused. */
export function refusal(handed: { status: number; json: ErrorBody }): string {
  const reason = String(handed.json.error?.message ?? 'no reason given');
  const errors = handed.json.error?.details?.errors;
  const each = Array.isArray(errors)
    ? errors.map((e: { path?: unknown; message?: unknown }) => `${String(e.path ?? '')} ${String(e.message ?? 'invalid')}`.trim())
    : [];
  return `the running server refused (${handed.status}): ${reason}${each.length > 0 ? `: ${each.join('; ')}` : ''}`;
}

/**
 * The FPA_* variables of this script's environment whose settings the running server does not
 * share: the server does the work with its own settings, so these do not apply (`FPA_RETENTION_PUNCHES_DAYS=30
 * npm run fpa:purge-retention` once purged with the server's 0 without a word). Compared by the
 * digests the server wrote in the lock file; a server of an older release wrote none, and every
 * variable given is named. DATABASE_URL applies: it found the server.
 */
function variablesNotApplied(server: Pick<LockInfo, 'token' | 'settings'>, appliesHere: readonly SettingKey[]): string[] {
  const given = settingsGivenIn(process.env);
  for (const key of ['DATABASE_URL' as const, ...appliesHere]) given.delete(key);
  if (given.size === 0) return [];
  const mine = settingDigests(loadSettings().settings, server.token);
  return [...given].filter(([key]) => server.settings[key] !== mine[key]).map(([, variable]) => variable);
}

/** The warning of a script whose own settings do not apply where its work is done (exit code unchanged). */
function warnNotApplied(command: string, variables: readonly string[]): void {
  if (variables.length === 0) return;
  const [which, verb, them] =
    variables.length === 1 ? [variables[0], 'does', 'it'] : [`${variables.slice(0, -1).join(', ')} and ${variables.at(-1)}`, 'do', 'them'];
  console.error(
    `fpa:${command}: warning: run by the running server with its own settings; ${which} given here ${verb} not apply: restart the server with ${them}, or stop it and run the script`,
  );
}

/**
 * POSTs to the running server's API with the operator token of the lock file, for `command`,
 * warning when FPA_* variables of its own do not apply there (`appliesHere`: settings the script
 * still uses itself, such as CONSOLE_URL for the links it prints); `T`: the body it answers when it accepts.
 */
export async function callRunningServer<T extends object = Record<string, unknown>>(
  command: string,
  path: string,
  body: unknown,
  appliesHere: readonly SettingKey[] = [],
): Promise<{ status: number; json: T & ErrorBody; apiUrl: string; consoleBase: string } | null> {
  const server = await runningServer();
  if (!server) return null;
  warnNotApplied(command, variablesNotApplied(server, appliesHere));
  let response: Response;
  try {
    response = await fetch(`${server.apiUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [OPERATOR_TOKEN_HEADER]: server.token },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new ServerGoneError(server.apiUrl, error);
  }
  const json = (await response.json().catch(() => ({}))) as T & ErrorBody;
  return { status: response.status, json, apiUrl: server.apiUrl, consoleBase: server.consoleBase };
}

/**
 * The running server went away before it answered (stopped, killed, restarted): said in words,
 * with the system's code, not the HTTP client's text and its advice about `fetch()`.
 */
export class ServerGoneError extends Error {
  constructor(apiUrl: string, cause: unknown) {
    const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : null;
    super(`the running server (${apiUrl}) stopped answering before it replied${code ? ` (${code})` : ''}`);
    this.name = 'ServerGoneError';
  }
}

/** The options of the job scripts that take any (their job's parameters); the others take none. */
const JOB_OPTIONS: Record<string, readonly string[]> = { 'generate-absences': ABSENCE_PARAMS };

/** A job script's options as its job's parameters: each a date, and one date or a range, never both. */
function jobParams(name: string, args: string[]): Record<string, string> {
  const accepted = JOB_OPTIONS[name] ?? [];
  const options = Object.fromEntries(accepted.map((key) => [key, { type: 'string' as const }]));
  const { values } = parseArgs({ args, options, allowPositionals: false, strict: true });
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (typeof value !== 'string') continue;
    if (!isCalendarDate(value)) throw new UsageError(`--${key} "${value}" is not a date (YYYY-MM-DD)`);
    params[key] = value;
  }
  if (params.date !== undefined && (params.from !== undefined || params.to !== undefined)) {
    throw new UsageError(`--date ${params.date} and --from/--to exclude each other: give one date, or a range`);
  }
  return params;
}

async function runJob(name: string, args: string[]): Promise<number> {
  const params = jobParams(name, args);
  const handed = await callRunningServer(name, `jobs/${name}/run/`, { params }).catch((error: unknown) => {
    if (!(error instanceof ServerGoneError)) throw error;
    // The job may have run, in part or whole: a run cut off is recorded as interrupted at the
    // server's next start, and a job run again does what the last run did not.
    throw new Error(
      `${error.message}: whether the job ran is not known. Once a server runs again, \`GET jobs/\` (or the console's Operations) shows its last run; running it again finishes what it did not do.`,
    );
  });
  if (handed) {
    // Parameters the job cannot run with (a date not over yet): refused before it ran, as here.
    if (handed.status === 400) throw new UsageError(refusal(handed));
    const summary = String(handed.json.summary ?? JSON.stringify(handed.json));
    console.log(`${summary} (run by the running server)`);
    return handed.status === 200 && handed.json.status === 'succeeded' ? 0 : 1;
  }
  const fpa = await createFingerprintAttendance({ startJobs: false, logger: silentLogger });
  try {
    const outcome = await fpa.jobs.run(name, { wait: true, trigger: 'script', params });
    console.log(outcome.summary);
    return outcome.status === 'succeeded' ? 0 : 1;
  } catch (error) {
    if (error instanceof FpaError && error.code === 'validation_error') throw new UsageError(error.message);
    throw error;
  } finally {
    await fpa.close();
  }
}

/**
 * What `fpa:check` reads of the database, without migrating or locking anything: the employee
 * model recorded at the first migration, whether a newer release migrated it, and whether the
 * key ring (when its keys are well formed) opens the sealed data. A database that cannot be
 * opened (a file that is not a database, one this user cannot read, a server that does not
 * answer) is said as start-up says it (fpa.E031: start refuses it); what cannot be read of one
 * that opened adds nothing.
 */
async function databaseFacts(
  settings: Settings,
): Promise<Pick<CheckInput, 'recordedEmployeeModel' | 'migratedByNewerRelease' | 'pendingMigrations' | 'sealedData' | 'unopenableDatabase'>> {
  let db: Database | null = null;
  try {
    db = await openDatabase({ url: settings.DATABASE_URL, authToken: settings.DATABASE_AUTH_TOKEN });
    const unknown = await migrationsUnknownHere(db);
    const ring = await TemplateKeyRing.fromKeys(settings.TEMPLATE_ENCRYPTION_KEYS).catch(() => null);
    return {
      recordedEmployeeModel: await recordedEmployeeModel(db),
      ...(unknown.length > 0 ? { migratedByNewerRelease: newerDatabaseMessage(unknown) } : await pendingFacts(settings, db)),
      ...(ring ? { sealedData: await checkKeyRing(db, ring) } : {}),
    };
  } catch (error) {
    return error instanceof DatabaseUnavailableError ? { unopenableDatabase: error.message } : {};
  } finally {
    await db?.close();
  }
}

/** Migrations of this release not applied yet, and the pid of a server holding the file meanwhile (an older release). */
async function pendingFacts(settings: Settings, db: Database): Promise<Pick<CheckInput, 'pendingMigrations'>> {
  const state = await migrationsPendingHere(db);
  if (state.pending.length === 0) return {};
  const file = databaseFilePath(settings.DATABASE_URL);
  const holder = file ? await liveLockHolder(file).catch(() => null) : null;
  return { pendingMigrations: { message: pendingMigrationsMessage(state), ...(holder ? { holderPid: holder.pid } : {}) } };
}

/**
 * The sealed data a database already holds, read without creating it: a `file:` database that
 * does not exist yet holds none. `fpa:init` writes no new key beside data it could not open.
 */
async function sealedDataIn(settings: Settings): Promise<SealedSample[]> {
  const file = databaseFilePath(settings.DATABASE_URL);
  if (file && !existsSync(file)) return [];
  const db = await openDatabase({ url: settings.DATABASE_URL, authToken: settings.DATABASE_AUTH_TOKEN });
  try {
    return await sampleSealedData(db);
  } finally {
    await db.close();
  }
}

/**
 * `fpa:migrate` while a server holds the database: it applied its release's migrations when it
 * started. When this release has more, that server is an older release (still running after the
 * new one was installed): nothing is migrated under it, and the operator is told to stop it.
 */
async function migratedByHolder(settings: Settings, locked: DatabaseLockedError): Promise<number> {
  const db = await openDatabase({ url: settings.DATABASE_URL, authToken: settings.DATABASE_AUTH_TOKEN });
  const [unknown, state] = await Promise.all([migrationsUnknownHere(db), migrationsPendingHere(db)]).finally(() => db.close());
  if (unknown.length > 0) throw new NewerDatabaseError(unknown);
  if (state.pending.length === 0) {
    console.log('fpa:migrate: a running server holds the database and applied the migrations when it started; nothing to do');
    return 0;
  }
  const who = locked.holder ? `the server running on it (pid ${locked.holder.pid})` : 'the server running on it';
  console.error(
    `fpa:migrate: ${pendingMigrationsMessage(state)}: ${who} is an older release. Stop it, then run fpa:migrate again (or start this release, which applies them).`,
  );
  return 1;
}

/** What `fpa:migrate` says it did to the database at `where`: the migrations it applied (first … last), or none. */
function migratedMessage(applied: readonly string[], where: string): string {
  if (applied.length === 0) return `the database at ${where} is already up to date`;
  return `${appliedMigrationsText(applied)} (the database at ${where})`;
}

const commands: Record<string, Command> = {
  async check(args) {
    const { values } = parseArgs({ args, options: { print: { type: 'boolean' }, codes: { type: 'boolean' } }, strict: true });
    if (values.codes) {
      for (const [code, c] of Object.entries(CHECK_CODES)) console.log(`${code}\t${c.severity}\t${c.meaning}`);
      return 0;
    }
    const loaded = loadSettings();
    // A file database that is not there is not made by a check (a mistyped path would then start empty): it is said.
    const file = databaseFilePath(loaded.settings.DATABASE_URL);
    const missing = file !== null && !loaded.settings.DATABASE_SYNC_URL && !existsSync(file);
    const database = missing
      ? { missingDatabaseFile: file }
      : checkConfiguration({ loaded }).some((i) => i.code === 'fpa.E012')
        ? {}
        : await databaseFacts(loaded.settings);
    // The standalone server always uses the built-in employee directory.
    const issues = checkConfiguration({ loaded, ...database, employeeLookupFields: BUILTIN_LOOKUP_FIELDS });
    if (values.print) console.log(JSON.stringify(describeSettings(loaded.settings), null, 2));
    console.log(formatIssues(issues));
    const errors = issues.filter((i) => i.severity === 'error').length;
    console.log(`fpa:check: ${errors} error(s), ${issues.length - errors} warning(s)`);
    return errors > 0 ? 1 : 0;
  },

  async migrate(args) {
    parseArgs({ args, options: {}, strict: true });
    const { settings } = loadSettings();
    const file = databaseFilePath(settings.DATABASE_URL);
    // A local file has one writer: while a server holds it, that server migrated it at start-up
    // to its own release's migrations; otherwise hold the lock while migrating so no server starts half-way.
    const lock = file ? await acquireLock(file).catch((error: unknown) => (error instanceof DatabaseLockedError ? error : Promise.reject(error))) : null;
    if (lock instanceof DatabaseLockedError) return migratedByHolder(settings, lock);
    const db = await openDatabase({
      url: settings.DATABASE_URL,
      authToken: settings.DATABASE_AUTH_TOKEN,
      syncUrl: settings.DATABASE_SYNC_URL,
      syncIntervalMs: settings.DATABASE_SYNC_INTERVAL,
    });
    try {
      // What drizzle's migrator applies: this release's migrations after the last one applied.
      const { pending } = await migrationsPendingHere(db);
      await migrateDatabase(db);
      console.log(`fpa:migrate: ${migratedMessage(pending, file ? settings.DATABASE_URL : '(server)')}`);
      return 0;
    } finally {
      await db.close();
      lock?.release();
    }
  },

  /** Rewrites the generated blocks of README.md (settings, check codes, routes, error statuses). */
  async readme(args) {
    parseArgs({ args, options: {}, strict: true });
    const path = new URL('../../README.md', import.meta.url);
    let text = await Bun.file(path).text();
    text = replaceBlock(text, 'settings', settingsTableMarkdown());
    text = replaceBlock(text, 'codes', checkCodesMarkdown());
    text = replaceBlock(text, 'routes', routesTableMarkdown(await servedOpenApiDocument()));
    text = replaceBlock(text, 'errors', errorStatusMarkdown());
    text = replaceBlock(text, 'events', eventsMarkdown());
    await Bun.write(path, text);
    console.log('README.md: settings, check codes, routes and error statuses regenerated');
    return 0;
  },

  async 'generate-key'(args) {
    parseArgs({ args, options: {}, strict: true });
    console.log(generateEncryptionKey());
    return 0;
  },

  /**
   * Writes a `.env` with a fresh encryption key and admin secret if there is none (quick start),
   * but never beside a database holding data sealed under another key: a new key opens none of
   * it, and the server would seal new data under it (two keys needed from then on).
   */
  async init(args) {
    const { values } = parseArgs({ args, options: { 'if-missing': { type: 'boolean' } }, strict: true });
    const { settings } = loadSettings();
    if (existsSync('.env') || (values['if-missing'] && settings.TEMPLATE_ENCRYPTION_KEYS.length > 0)) {
      if (!values['if-missing']) console.log('fpa:init: .env exists; nothing written');
      return 0;
    }
    const sealed = await sealedDataIn(settings);
    if (sealed.length > 0) {
      const { kinds, keyIds } = describeSamples(sealed);
      console.error(
        `fpa:init: the database ${redactDatabaseUrl(settings.DATABASE_URL)} already holds data sealed under a template key (${kinds.join(', ')}; key id ${keyIds.join(', ') || 'unreadable'}), and there is no .env: a new key would open none of it, so none was written.\n` +
          '  Bring the .env (or FPA_TEMPLATE_ENCRYPTION_KEYS) this database was used with, its key reading `fpa1:<id>:…` with an id named here, then start again.',
      );
      return 1;
    }
    const lines = [
      '# Written by `npm run fpa:init` for a local quick start. Keep it secret; back up the key:',
      '# templates encrypted with it cannot be read without it.',
      `FPA_TEMPLATE_ENCRYPTION_KEYS=${generateEncryptionKey()}`,
      `FPA_ADMIN_JWT_SECRET=${randomToken(32)}`,
      '',
    ];
    writeFileSync('.env', lines.join('\n'), { mode: 0o600 });
    console.log('fpa:init: wrote .env with a new template key and admin JWT secret (npm run fpa:admin-token prints a token)');
    return 0;
  },

  /** Prints an administrator JWT signed with ADMIN_JWT_SECRET (for trying the API). */
  async 'admin-token'(args) {
    const { values } = parseArgs({ args, options: { sub: { type: 'string' }, ttl: { type: 'string' } }, strict: true });
    // The server refuses a token without a subject (401 "the token has no subject"): never print one.
    if (values.sub !== undefined && values.sub.trim() === '') throw new UsageError('--sub is empty: give the name the token acts as (default: operator)');
    const { settings } = loadSettings();
    if (!settings.ADMIN_JWT_SECRET) {
      console.error('fpa:admin-token: FPA_ADMIN_JWT_SECRET is not set');
      return 1;
    }
    let jwt = withLifetime(
      new SignJWT({ scope: settings.ADMIN_SCOPE })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(values.sub?.trim() ?? 'operator')
        .setIssuedAt(),
      values.ttl,
    );
    if (settings.ADMIN_JWT_ISSUER) jwt = jwt.setIssuer(settings.ADMIN_JWT_ISSUER);
    if (settings.ADMIN_JWT_AUDIENCE) jwt = jwt.setAudience(settings.ADMIN_JWT_AUDIENCE);
    console.log(await jwt.sign(new TextEncoder().encode(settings.ADMIN_JWT_SECRET)));
    return 0;
  },
};

for (const name of JOB_COMMANDS) commands[name] = (args) => runJob(name, args);

/** What `--help` prints, per command (usage.ts for the commands above, the feature's own for the others). */
const help: Record<string, string> = { ...COMMAND_HELP };

/** Registers a command from a feature module (create-agent, simulate-device), with what its `--help` prints. */
export function registerCommand(name: string, command: Command, usage: string): void {
  commands[name] = command;
  help[name] = usage;
}

/** The `--help` of a command: its usage line and what it does. */
export function helpOf(name: string): string {
  return help[name] ?? `usage: npm run fpa:${name}`;
}

/** The command names, for the usage line and the test that every job has one. */
export function commandNames(): string[] {
  return Object.keys(commands).sort();
}

/** An option's value a command cannot take: a typo to fix (exit 2), like an unknown option. */
export class UsageError extends Error {}

/** node:util parseArgs refusing an option or a value (its errors carry an `ERR_PARSE_ARGS_*` code), or a UsageError. */
function isUsageError(error: unknown): error is Error {
  if (error instanceof UsageError) return true;
  return error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('ERR_PARSE_ARGS_');
}

/** Sets admin-token's `--ttl` as jose reads a lifetime (`12h`, `30m`, `7d`); one it cannot read is a UsageError. */
function withLifetime(jwt: SignJWT, ttl: string | undefined): SignJWT {
  try {
    return jwt.setExpirationTime(ttl ?? '12h');
  } catch {
    throw new UsageError(`--ttl "${ttl}" is not a lifetime (for example 30m, 12h or 7d)`);
  }
}

export async function runCli(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const command = name ? commands[name] : undefined;
  const usage = `usage: npm run fpa:<command> [-- options]\ncommands: ${commandNames().join(', ')}\nnpm run fpa:<command> -- --help shows a command's options`;
  if (!command) {
    if (name === '--help') console.log(usage);
    else console.error(usage);
    return name === '--help' ? 0 : 2;
  }
  // Asked for, help is an answer (exit 0), whatever else is on the line.
  if (args.includes('--help')) {
    console.log(helpOf(name!));
    return 0;
  }
  try {
    return await command(args);
  } catch (error) {
    if (isUsageError(error)) {
      // An option the command does not know is a typo to fix, not something to ignore.
      console.error(`fpa:${name}: ${error.message}`);
      return 2;
    }
    console.error(`fpa:${name} failed: ${explainFailure(error)}`);
    return 1;
  }
}
