/**
 * Opens the libSQL database and funnels every write through one in-process queue.
 *
 * A local `file:` database has exactly one writer (docs/design.md): one process, write
 * transactions strictly one after another, `BEGIN IMMEDIATE` each, on a connection of their
 * own. Reads use the client's pooled connections (WAL lets them run beside the writer). A
 * remote `libsql://` server serialises writers itself; the queue then only orders this
 * process's own writes.
 */
import { AsyncResource } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Client, createClient, type InStatement, type ResultSet, type Transaction } from '@libsql/client';
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { describeError, isSqliteBusy } from '../errors';
import { yieldToOthers } from '../event-loop';
import { BURST_QUIET_MS } from '../upload-burst';
import { BackgroundCheckpointer, WRITER_CHECKPOINT_PAGES } from './checkpointer';
import { prepareDatabaseFile } from './files';
import { databaseUnavailable } from './unavailable';

export type Orm = LibSQLDatabase;
export type Tx = Parameters<Parameters<Orm['transaction']>[0]>[0];
/** Anything queries can run on: the database itself or an open write transaction. */
export type Queryable = Orm | Tx;

/** Runs one raw statement: a write transaction's `execute`, or the client's for reads. */
export type Execute = (statement: InStatement) => Promise<ResultSet>;

export interface WriteContext {
  tx: Tx;
  /**
   * Runs one raw statement in the same transaction, for the few hot paths where building a
   * 3,000-parameter insert through the query builder costs more than the insert itself.
   */
  execute: Execute;
  /** Runs after the transaction commits (events, wake-ups); never if it rolls back. */
  afterCommit(callback: () => void): void;
}

export interface Database {
  readonly url: string;
  readonly kind: 'file' | 'remote';
  /** Real path of the database file for `file:` URLs (symlinks resolved: what the lock follows). */
  readonly filePath: string | null;
  readonly client: Client;
  /** The thread that checkpoints a `file:` database, when it has one. */
  readonly checkpointer: BackgroundCheckpointer | null;
  /** For reads. Writes go through `write`. */
  readonly orm: Orm;
  write<T>(work: (ctx: WriteContext) => Promise<T>, options?: WriteOptions): Promise<T>;
  /** Write transactions this process has committed so far (a purge's drain, purge.ts). */
  readonly commits: number;
  /**
   * Pulls an embedded replica up to its primary now (true); false, doing nothing, for a database
   * that is its own primary (a `file:` without DATABASE_SYNC_URL, a `libsql://` server).
   */
  sync(): Promise<boolean>;
  close(): Promise<void>;
}

export interface WriteOptions {
  /**
   * Work that may wait (derived state following the log): it runs once the writer has been
   * idle for a moment, or once it is owed for longer than the database's `backgroundMaxWaitMs`,
   * so a burst of terminal uploads is answered first and what follows from it catches up after.
   */
  background?: boolean;
  /**
   * Since when (`performance.now()`) the background work has been owed, when that is earlier
   * than this write: a follower far behind the log counts its wait from the first event it has
   * not applied, so once overdue its steps run one after another instead of waiting again each.
   */
  owedSince?: number;
  /**
   * False for a write whose loss in a power cut only makes something happen again, never lost:
   * a command's `sent` mark (the command is then sent again, as after a lost answer). Its commit
   * skips the WAL's sync (`synchronous = NORMAL`): it is still atomic, visible to every
   * connection at once and safe from a crash of the process; the next durable commit syncs it
   * with everything before it. Punches and everything acknowledged stay durable (the default).
   */
  durable?: boolean;
}

/** The longest a background write yields to the others unless the database is opened with another. */
const BACKGROUND_MAX_WAIT_MS = 10_000;
/** How long no foreground write must have been queued before a background one runs (the same pause as a burst's, upload-burst.ts). */
const BACKGROUND_QUIET_MS = BURST_QUIET_MS;

/**
 * Page cache of the connection a write transaction runs on (KiB). SQLite's default (2 MB) is
 * smaller than what one shared upload transaction touches (the punch indexes, the log, the
 * days): pages would spill to the WAL before the commit and be read back. Only the writer's
 * connection has it (openDatabase). The client opens that connection itself, again after a
 * reconnect, so each write sets it (a no-op once set).
 */
const WRITER_CACHE_KIB = 32_768;

/** How long a statement waits for another connection's lock (ms) before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * The size the `-wal` file is cut back to once it has been checkpointed whole (bytes; SQLite's
 * `journal_size_limit`). Without it the file keeps the size of the largest burst (75-93 MB
 * after every burst, measured) for ever. SQLite applies it when the writer starts the log
 * over, at its next commit, so it must hold on whatever connection the writer is on.
 */
export const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

export interface OpenDatabaseOptions {
  url: string;
  authToken?: string;
  syncUrl?: string;
  /** How often an embedded replica pulls from the server (ms); it always reads its own writes. */
  syncIntervalMs?: number;
  /** The longest background writes yield to foreground ones (ms; ATTENDANCE_MAX_LAG). */
  backgroundMaxWaitMs?: number;
  /** Checkpoint a `file:` database from a thread of its own (checkpointer.ts); default on. */
  backgroundCheckpoint?: boolean;
  /** The `-wal` file's size after a complete checkpoint (bytes; default WAL_SIZE_LIMIT_BYTES). */
  walSizeLimitBytes?: number;
  /** Told what the operator should fix about a `file:` database's files (files.ts); default stderr. */
  warn?: (message: string) => void;
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../migrations', import.meta.url));

/** Resolves a `file:` URL to an absolute path, or null for other schemes. */
export function databaseFilePath(url: string): string | null {
  if (!url.startsWith('file:')) return null;
  let path = url.slice('file:'.length);
  const query = path.indexOf('?');
  if (query >= 0) path = path.slice(0, query);
  if (path.startsWith('//')) path = path.replace(/^\/\/(localhost)?/, '');
  if (path === ':memory:' || path === '') return null;
  return resolve(path);
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const { client, filePath, writerClient } = await openConnections(options);
  const orm = drizzle(client);
  const writer = { orm: writerClient === client ? orm : drizzle(writerClient), client: writerClient, filePath };
  const walLimit = Math.max(0, Math.floor(options.walSizeLimitBytes ?? WAL_SIZE_LIMIT_BYTES));
  const checkpointer = filePath && options.backgroundCheckpoint !== false ? new BackgroundCheckpointer(filePath, walLimit, reportOnce()) : null;
  // Behind the thread, the writer's own checkpoint is only a safety net; without it, SQLite's
  // default stands and no statement is spent on it in each write.
  const writerCheckpoint = checkpointer ? `PRAGMA wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}` : null;
  // Set in each write transaction: the cache (WRITER_CACHE_KIB), then the WAL's size limit,
  // per transaction like the cache: the pool's next connection would not have it, and the
  // writer's commit is where SQLite cuts the log back. Secure delete: what a delete or an update
  // frees is zeroed, not left in the file's free space, where a destroyed template could be
  // carved out and decrypted with the installation's key (erase.ts empties the WAL after one).
  const pragmas = filePath
    ? [
        `PRAGMA cache_size = -${WRITER_CACHE_KIB}`,
        `PRAGMA journal_size_limit = ${walLimit}`,
        'PRAGMA secure_delete = 1',
        ...(writerCheckpoint ? [writerCheckpoint] : []),
      ]
    : [];

  const queue = new WriteQueue(options.backgroundMaxWaitMs ?? BACKGROUND_MAX_WAIT_MS);
  // Only a connection of the writer's own can change how its commits sync between writes.
  const syncMode = writerClient !== client ? new WriterSyncMode(writerClient) : null;
  let commits = 0;
  const write = <T>(work: (ctx: WriteContext) => Promise<T>, writeOptions: WriteOptions = {}): Promise<T> =>
    queue.push(
      async () => {
        await syncMode?.set(writeOptions.durable !== false);
        const result = await runWrite(writer, pragmas, work);
        commits++;
        return result;
      },
      writeOptions.background === true,
      writeOptions.owedSince,
    );

  return {
    url: options.url,
    kind: filePath ? 'file' : 'remote',
    filePath,
    client,
    checkpointer,
    orm,
    write,
    get commits() {
      return commits;
    },
    sync: replicaSync(client, options.syncUrl),
    async close() {
      await queue.drained();
      await checkpointer?.stop();
      if (writerClient !== client) writerClient.close();
      client.close();
    },
  };
}

/** Database.sync: an embedded replica pulls from its primary; any other database is its own primary. */
function replicaSync(client: Client, syncUrl: string | undefined): () => Promise<boolean> {
  return async () => {
    if (!syncUrl) return false;
    await client.sync();
    return true;
  };
}

/**
 * The clients of a database: the pool, and the writer's connection. A `file:` database's writes
 * run on a connection of their own: the pool's connections are lent to reads as well, and each
 * would keep the writer's large page cache (WRITER_CACHE_KIB) once a write had borrowed it, so a
 * long read (a month's export) filled a second 32 MB cache of its own. A replica and an in-memory
 * database have a single connection, which both share. A database that cannot be opened or
 * reached is a DatabaseUnavailableError naming it and saying why (unavailable.ts).
 */
async function openConnections(options: OpenDatabaseOptions): Promise<{ client: Client; filePath: string | null; writerClient: Client }> {
  let opened: { client: Client; filePath: string | null } | null = null;
  try {
    opened = await openClient(options);
    const { client, filePath } = opened;
    const writerClient =
      filePath && !options.syncUrl ? createClient({ url: `file:${filePath}`, timeout: BUSY_TIMEOUT_MS, intMode: 'number', concurrency: 1 }) : client;
    return { client, filePath, writerClient };
  } catch (error) {
    opened?.client.close();
    throw databaseUnavailable(options.url, databaseFilePath(options.url), error, [options.authToken ?? '']);
  }
}

/** The libSQL client of the options' URL, its files prepared first (a replica synced, a file in WAL mode). */
async function openClient(options: OpenDatabaseOptions): Promise<{ client: Client; filePath: string | null }> {
  const requestedPath = databaseFilePath(options.url);
  // Directory 0700 and files 0600 before SQLite creates anything (files.ts), then the real file.
  const prepared = requestedPath ? prepareDatabaseFile(requestedPath, { createFile: !options.syncUrl }) : null;
  for (const warning of prepared?.warnings ?? []) (options.warn ?? ((m: string) => console.error(`fpa: ${m}`)))(warning);
  const filePath = prepared?.realPath ?? null;
  const client = createClient({
    url: filePath ? `file:${filePath}` : options.url,
    authToken: options.authToken || undefined,
    syncUrl: options.syncUrl || undefined,
    // Without periodic sync a replica would never see commands, punches or outbox rows
    // written by other instances.
    syncInterval: options.syncUrl ? Math.max(1, Math.round((options.syncIntervalMs ?? 1000) / 1000)) : undefined,
    // The busy timeout must be a client option: per-connection PRAGMAs are lost when the
    // pool opens a new connection (libsql-client-ts#288).
    timeout: BUSY_TIMEOUT_MS,
    intMode: 'number',
  });
  try {
    if (options.syncUrl) {
      await client.sync();
      // The replica's files exist now: 0600 like any other (files.ts).
      if (filePath) prepareDatabaseFile(filePath);
    }
    // WAL is a property of the file, so setting it once holds for every connection. A server's
    // first statement tells whether it answers at all: here, not in the middle of a migration.
    await client.execute(filePath ? 'PRAGMA journal_mode = WAL' : 'SELECT 1');
  } catch (error) {
    client.close();
    throw error;
  }
  return { client, filePath };
}

/**
 * One write transaction: the writer's PRAGMAs (WRITER_CACHE_KIB, the WAL's size limit, its
 * checkpoint), the work, then its after-commit callbacks once it has committed.
 */
async function runWrite<T>(
  db: { orm: Orm; client: Client; filePath: string | null },
  pragmas: readonly string[],
  work: (ctx: WriteContext) => Promise<T>,
): Promise<T> {
  const callbacks: Array<() => void> = [];
  let result: T;
  try {
    result = await db.orm.transaction(async (tx) => {
      const context = writeContext(tx, (cb) => callbacks.push(cb));
      for (const pragma of pragmas) await context.execute(pragma);
      return work(context);
    });
  } catch (error) {
    // A statement that failed with SQLITE_BUSY stays unfinalized on its pooled connection,
    // and the next transaction there fails at COMMIT (libsql-client-ts#352). Fresh
    // connections end that; the write itself still fails, so nothing is acknowledged.
    if (db.filePath && isSqliteBusy(error)) {
      try {
        await db.client.reconnect();
      } catch {
        // the write's own error is the one to report
      }
    }
    throw error;
  }
  for (const callback of callbacks) {
    try {
      callback();
    } catch (error) {
      console.error(`fpa: after-commit callback failed: ${describeError(error)}`);
    }
  }
  return result;
}

/**
 * How the writer's connection syncs its commits (WriteOptions.durable), switched between writes
 * only when it changes: SQLite refuses to change it inside a transaction. `relaxed` is true
 * whenever the connection may sync less than in full; a connection opened anew (a reconnect)
 * syncs in full, so the mark can only err on the safe side.
 */
class WriterSyncMode {
  private relaxed = false;

  constructor(private readonly client: Client) {}

  async set(durable: boolean): Promise<void> {
    const relax = !durable;
    if (relax === this.relaxed) return;
    // Marked relaxed before relaxing and full only once full: a failed switch leaves it relaxed.
    if (relax) this.relaxed = true;
    await this.client.execute(relax ? 'PRAGMA synchronous = NORMAL' : 'PRAGMA synchronous = FULL');
    this.relaxed = relax;
  }
}

/** Logs a failure of the checkpoint thread once a minute at most (it retries every round). */
function reportOnce(): (message: string) => void {
  let lastAt = Number.NEGATIVE_INFINITY;
  return (message) => {
    const now = performance.now();
    if (now - lastAt < 60_000) return;
    lastAt = now;
    console.error(`fpa: ${message}`);
  };
}

/** A full write context for code that is handed only the drizzle transaction (command handlers). */
export function writeContext(tx: Tx, afterCommit: (cb: () => void) => void): WriteContext {
  return { tx, afterCommit, execute: (statement) => libsqlTransactionOf(tx).execute(statement) };
}

/**
 * The libSQL transaction under a drizzle transaction (drizzle-orm 0.45's LibSQLSession keeps it
 * as `session.tx`). Checked at run time, so a drizzle upgrade that moves it fails loudly here.
 */
function libsqlTransactionOf(tx: Tx): Transaction {
  const inner = (tx as unknown as { session?: { tx?: Transaction } }).session?.tx;
  if (!inner || typeof inner.execute !== 'function') throw new Error('drizzle transaction without a libSQL transaction (drizzle-orm changed?)');
  return inner;
}

/**
 * Applies this release's migrations not applied yet. A database migrated by a newer release is
 * refused (NewerDatabaseError): drizzle would apply nothing and the server would serve tables
 * it does not know.
 */
export async function migrateDatabase(db: Database): Promise<void> {
  const unknown = await migrationsUnknownHere(db);
  if (unknown.length > 0) throw new NewerDatabaseError(unknown);
  await migrate(db.orm, { migrationsFolder: MIGRATIONS_FOLDER });
}

/** A migration applied to the database (`__drizzle_migrations`): its file's hash and its journal time. */
export interface AppliedMigration {
  hash: string;
  createdAt: number;
}

/**
 * Migrations the database holds that this release does not have: neither their hash nor their
 * time is one of `migrations/`. Both must be unknown: an edited migration file (a new hash, its
 * time unchanged) is still this release's. None before the first migration.
 */
export async function migrationsUnknownHere(db: Database): Promise<AppliedMigration[]> {
  const table = await db.client.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'");
  if (table.rows.length === 0) return [];
  const applied = await db.client.execute('SELECT hash, created_at FROM __drizzle_migrations');
  const ours = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  const hashes = new Set(ours.map((m) => m.hash));
  const times = new Set(ours.map((m) => m.folderMillis));
  return applied.rows
    .map((row) => ({ hash: String(row.hash), createdAt: Number(row.created_at) }))
    .filter((m) => !hashes.has(m.hash) && !times.has(m.createdAt));
}

/** This release's migrations (`migrations/meta/_journal.json`): each file's tag and its journal time. */
function journalEntries(): { tag: string; when: number }[] {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string; when: number }[] };
  return journal.entries;
}

/**
 * This release's migrations the database has not applied, by tag: those drizzle's migrator would
 * apply (its journal time after the last one applied), every one on a database never migrated.
 * A server of an older release leaves some: it migrated the database to its own journal.
 */
export async function migrationsPendingHere(db: Database): Promise<{ pending: string[]; total: number }> {
  const entries = journalEntries();
  const table = await db.client.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'");
  const last = table.rows.length === 0 ? null : (await db.client.execute('SELECT max(created_at) AS last FROM __drizzle_migrations')).rows[0]?.last;
  const lastAt = last === null || last === undefined ? Number.NEGATIVE_INFINITY : Number(last);
  return { pending: entries.filter((e) => e.when > lastAt).map((e) => e.tag), total: entries.length };
}

/** The migrations applied, as `fpa:migrate` and a start say them: `applied 2 migrations: a, b` (first … last from three on). */
export function appliedMigrationsText(applied: readonly string[]): string {
  const which = applied.length === 1 ? applied[0] : applied.length === 2 ? applied.join(', ') : `${applied[0]} … ${applied.at(-1)}`;
  return `applied ${applied.length} migration${applied.length === 1 ? '' : 's'}: ${which}`;
}

/** What `fpa:migrate` and `fpa:check` (fpa.W010) say of migrations not applied yet. */
export function pendingMigrationsMessage({ pending, total }: { pending: readonly string[]; total: number }): string {
  const range = pending.length === 1 ? pending[0] : `${pending[0]} to ${pending[pending.length - 1]}`;
  return `${pending.length} of this release's ${total} migrations ${pending.length === 1 ? 'is' : 'are'} not applied to the database (${range})`;
}

/** The database holds migrations of a newer release (README, Upgrade step 4: rolling back needs the backup). */
export class NewerDatabaseError extends Error {
  constructor(readonly unknown: readonly AppliedMigration[]) {
    super(newerDatabaseMessage(unknown));
    this.name = 'NewerDatabaseError';
  }
}

/** What start, `fpa:migrate` and `fpa:check` (fpa.E023) say of a database migrated by a newer release. */
export function newerDatabaseMessage(unknown: readonly AppliedMigration[]): string {
  const newest = Math.max(...unknown.map((m) => m.createdAt));
  const when = Number.isFinite(newest) && newest > 0 ? `, the newest made ${new Date(newest).toISOString().slice(0, 10)}` : '';
  const count = unknown.length === 1 ? '1 migration' : `${unknown.length} migrations`;
  return `this database was migrated by a newer release (${count} this release does not have${when}): start that release, or restore the backup taken before upgrading`;
}

/**
 * Whether every migration of `migrations/` is applied (`/readyz`): drizzle records each applied
 * migration in `__drizzle_migrations`; the journal lists them all.
 */
export async function isMigrated(db: Database): Promise<boolean> {
  const applied = await db.client.execute('select count(*) as n from __drizzle_migrations');
  return Number(applied.rows[0]?.n ?? 0) >= journalEntries().length;
}

interface QueuedWrite {
  run(): Promise<void>;
  queuedAt: number;
}

/**
 * The process's write transactions, strictly one after another. Foreground writes keep their
 * order and go first. A background write waits for a quiet moment (no foreground write queued
 * or finished for BACKGROUND_QUIET_MS: between two bursts of uploads, not between two uploads of one
 * burst, which would stall the terminals behind it on the one JavaScript thread), and at most
 * `maxWaitMs` from when it was owed, so a steady stream of uploads cannot starve it: an overdue
 * background write takes its turn after the foreground write running, then those queued next.
 */
class WriteQueue {
  private readonly foreground: QueuedWrite[] = [];
  private readonly background: QueuedWrite[] = [];
  private running: Promise<void> | null = null;
  private lastForegroundAt = Number.NEGATIVE_INFINITY;
  private wakeUp: (() => void) | null = null;

  constructor(private readonly maxWaitMs: number) {}

  push<T>(work: () => Promise<T>, background: boolean, owedSince?: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const now = performance.now();
      // Run in the caller's async context, not the context of whoever started the drain: the
      // request's actor (audit rows name it, request-context.ts) and its request id go with it.
      const inCallersContext = AsyncResource.bind(work);
      const queued: QueuedWrite = { run: () => inCallersContext().then(resolve, reject), queuedAt: Math.min(now, owedSince ?? now) };
      if (background) this.background.push(queued);
      else {
        this.foreground.push(queued);
        this.lastForegroundAt = now;
        this.wakeUp?.();
      }
      this.running ??= this.drain();
    });
  }

  /** Resolves once every write queued so far has finished. */
  async drained(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    // Never inside the caller's synchronous turn: a write begins after it returns, as with a promise chain.
    await Promise.resolve();
    try {
      for (;;) {
        const foreground = this.foreground.shift();
        const background = foreground ? undefined : this.dueBackground();
        const next = foreground ?? background;
        if (!next) {
          if (this.background.length === 0) return;
          await this.waitForQuiet();
          continue;
        }
        await next.run();
        if (foreground) this.lastForegroundAt = performance.now();
        // A turn of the event loop after every write (event-loop.ts). A chain of writes, each
        // queued as the last one ends (a follower's steps, a read's catch-up, a recompute's
        // groups), otherwise ran back to back without one: requests were not even read, and an
        // overdue follower held every terminal 10 s after a long burst. Writes of the requests
        // read meanwhile queue now, foreground ones first.
        await yieldToOthers();
      }
    } finally {
      this.running = null;
    }
  }

  private dueBackground(): QueuedWrite | undefined {
    const oldest = this.background[0];
    if (!oldest) return undefined;
    const now = performance.now();
    const quiet = now - this.lastForegroundAt >= BACKGROUND_QUIET_MS;
    return quiet || now - oldest.queuedAt >= this.maxWaitMs ? this.background.shift() : undefined;
  }

  /** Sleeps until the oldest background write is due, or a foreground write arrives. */
  private async waitForQuiet(): Promise<void> {
    const now = performance.now();
    const oldest = this.background[0]!;
    const delay = Math.max(0, Math.min(this.lastForegroundAt + BACKGROUND_QUIET_MS - now, oldest.queuedAt + this.maxWaitMs - now));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, delay);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
    this.wakeUp = null;
  }
}
