/**
 * The single-writer lock of a local `file:` database (docs/design.md).
 *
 * Who holds the database is decided by an operating-system lock, not by a process id: the
 * holder keeps a write transaction open on a small SQLite file beside the database
 * (`<db>.writer`). SQLite's file locks die with the process, so a crash or `kill -9` frees
 * them at once, and a reused process id (a container restarting as PID 1) cannot fool it.
 *
 * Beside it, `<db>.lock` (readable by the owner only) tells scripts how to reach the holder:
 * its process id, the base URL of its API and a random operator token. `bun run fpa:*`
 * scripts hand their work to that server; when nobody holds the OS lock the file is stale and
 * the next holder overwrites it.
 *
 * Both are named after the database's real path (files.ts): a second server reaching the same
 * file through a symlink or another spelling of the path finds the same lock and refuses.
 */
import { closeSync, fchmodSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { type Client, createClient, type Transaction } from '@libsql/client';
import { randomToken } from '../crypto/secrets';
import { isSqliteBusy } from '../errors';
import { createPrivateFile, prepareDatabaseFile, realDatabasePath } from './files';
import { databaseUnavailable } from './unavailable';

export interface LockInfo {
  pid: number;
  /** Base URL of the API (`http://127.0.0.1:3000/api/fingerprint/v1/`); empty until listening. */
  apiUrl: string;
  /**
   * Where the console's links open, as the server gives them (CONSOLE_URL, else the address it
   * listens on as people reach it: its LAN address when it listens on every interface), for the
   * scripts' printed links; empty until listening, and in the lock files of older releases.
   */
  consoleBase: string;
  token: string;
  startedAt: string;
  /**
   * A digest of each of the holder's settings under its token (config/settings.ts
   * settingDigests), by key: a script handing it work names the FPA_* variables of its own that
   * do not apply there. Empty until listening, and in the lock files of older releases.
   */
  settings: Record<string, string>;
}

/** Who holds the database, as an error tells it: never the holder's operator token (nor its settings' digests). */
export type LockHolder = Omit<LockInfo, 'token' | 'settings'>;

export class DatabaseLockedError extends Error {
  /**
   * The holder without its token: the error reaches hosts' logs (Bun prints an uncaught error with
   * its properties), and the token lets a local caller act as an operator on the holder's API.
   */
  readonly holder: LockHolder | null;

  constructor(
    readonly lockPath: string,
    holder: LockInfo | null,
  ) {
    super(
      `the database is in use by another Fingerprint Attendance process${holder ? ` (pid ${holder.pid}${servingAt(holder)}, since ${holder.startedAt})` : ''}; ` +
        'a local file: database has exactly one writer. Stop that process, or point both at a libSQL server (libsql://…).',
    );
    this.name = 'DatabaseLockedError';
    this.holder = holder ? { pid: holder.pid, apiUrl: holder.apiUrl, consoleBase: holder.consoleBase, startedAt: holder.startedAt } : null;
  }
}

/** `, serving <API>` once the holder listens; nothing while it starts (or for a script working on the file itself). */
function servingAt(holder: LockInfo): string {
  return holder.apiUrl ? `, serving ${holder.apiUrl}` : '';
}

export function lockPathFor(databaseFile: string): string {
  return `${realDatabasePath(databaseFile)}.lock`;
}

function writerPathFor(databaseFile: string): string {
  return `${realDatabasePath(databaseFile)}.writer`;
}

export function readLock(lockPath: string): LockInfo | null {
  try {
    const parsed = JSON.parse(readFileSync(lockPath, 'utf8')) as Partial<LockInfo>;
    if (typeof parsed.pid !== 'number' || typeof parsed.token !== 'string') return null;
    return {
      pid: parsed.pid,
      apiUrl: typeof parsed.apiUrl === 'string' ? parsed.apiUrl : '',
      consoleBase: typeof parsed.consoleBase === 'string' ? parsed.consoleBase : '',
      token: parsed.token,
      startedAt: typeof parsed.startedAt === 'string' ? parsed.startedAt : '',
      settings: digestsOf(parsed.settings),
    };
  } catch {
    return null;
  }
}

/** The settings' digests of a lock file: strings by key, or none (an older release's file). */
function digestsOf(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** Takes the OS lock, or returns null when another process (or instance) holds it. */
async function takeWriterLock(databaseFile: string): Promise<{ client: Client; tx: Transaction } | null> {
  const writerPath = writerPathFor(databaseFile);
  try {
    // 0600 before SQLite creates it with its default mode (its journal follows its mode).
    createPrivateFile(writerPath);
  } catch {
    // no directory yet: opening it fails below as it always did
  }
  const client = createClient({ url: `file:${writerPath}`, timeout: 1 });
  try {
    // BEGIN IMMEDIATE takes SQLite's RESERVED lock, which excludes every other writer,
    // in this process or any other, until the transaction ends or the process dies.
    const tx = await client.transaction('write');
    return { client, tx };
  } catch (error) {
    client.close();
    if (isSqliteBusy(error)) return null;
    throw error;
  }
}

function writeInfo(path: string, info: LockInfo): void {
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    // A leftover temporary file keeps its mode through open(): set it.
    fchmodSync(fd, 0o600);
    writeSync(fd, JSON.stringify(info));
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/**
 * The OS lock as takeWriterLock takes it; a lock that cannot even be tried (the database's
 * directory missing or not writable) is a DatabaseUnavailableError saying so (unavailable.ts).
 */
async function tryWriterLock(databaseFile: string): Promise<{ client: Client; tx: Transaction } | null> {
  try {
    return await takeWriterLock(databaseFile);
  } catch (error) {
    throw databaseUnavailable(`file:${databaseFile}`, databaseFile, error);
  }
}

/** The live holder of the database, or null when no process holds it. */
export async function liveLockHolder(databaseFile: string): Promise<LockInfo | null> {
  const probe = await tryWriterLock(databaseFile);
  if (probe) {
    await probe.tx.rollback().catch(() => undefined);
    probe.client.close();
    return null;
  }
  return readLock(lockPathFor(databaseFile));
}

export interface HeldLock {
  readonly path: string;
  readonly info: LockInfo;
  /** What the lock file said of a process that ended holding it (a kill, a power cut); null when it was released. */
  readonly tookOverFrom: LockInfo | null;
  /** The server listens: where its API is, where the console's links open, and its settings' digests (LockInfo). */
  setAddresses(addresses: Pick<LockInfo, 'apiUrl' | 'consoleBase' | 'settings'>): void;
  release(): void;
}

export async function acquireLock(databaseFile: string): Promise<HeldLock> {
  // The directory exists from here (0700), and the lock is named after the real file (a script
  // may lock before the first open; the file itself is left to its opener: files.ts).
  let realPath: string;
  try {
    realPath = prepareDatabaseFile(databaseFile, { createFile: false }).realPath;
  } catch (error) {
    throw databaseUnavailable(`file:${databaseFile}`, databaseFile, error);
  }
  const path = lockPathFor(realPath);
  const held = await tryWriterLock(realPath);
  if (!held) throw new DatabaseLockedError(path, readLock(path));
  const info: LockInfo = { pid: process.pid, apiUrl: '', consoleBase: '', token: randomToken(32), startedAt: new Date().toISOString(), settings: {} };
  // Whatever `<db>.lock` says now is stale: nobody else can hold the OS lock. A release removes
  // the file, so one still there was left by a process that ended without releasing it.
  const tookOverFrom = readLock(path);
  try {
    writeInfo(path, info);
  } catch (error) {
    held.tx.close();
    held.client.close();
    throw error;
  }
  let released = false;
  return {
    path,
    info,
    tookOverFrom,
    setAddresses({ apiUrl, consoleBase, settings }) {
      // A host's server started again after the instance closed: no lock file to write any more.
      if (released) return;
      info.apiUrl = apiUrl;
      info.consoleBase = consoleBase;
      info.settings = settings;
      writeInfo(path, info);
    },
    release() {
      if (released) return;
      released = true;
      const current = readLock(path);
      if (current && current.token === info.token) {
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      }
      held.tx.close();
      held.client.close();
    },
  };
}
