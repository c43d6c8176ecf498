/**
 * The single-writer lock of a local `file:` database (DESIGN.md). The running server writes
 * `<db>.lock` beside the database: its process id, the base URL of its job endpoint and a
 * random operator token, readable by the owner only. A second server refuses to start;
 * `bun run fpa:*` scripts find the server through it and hand their work over. A lock whose
 * process no longer exists (a crash, a kill -9) is taken over.
 */
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomToken } from '../crypto/secrets';

export interface LockInfo {
  pid: number;
  /** Base URL of the API (`http://127.0.0.1:3000/api/fingerprint/v1/`); empty until listening. */
  apiUrl: string;
  token: string;
  startedAt: string;
}

export class DatabaseLockedError extends Error {
  constructor(
    readonly lockPath: string,
    readonly holder: LockInfo,
  ) {
    super(
      `the database is in use by another Fingerprint Attendance process (pid ${holder.pid}, lock ${lockPath}); ` +
        'a local file: database has exactly one writer. Stop that process, or point both at a libSQL server (libsql://…).',
    );
    this.name = 'DatabaseLockedError';
  }
}

export function lockPathFor(databaseFile: string): string {
  return `${databaseFile}.lock`;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readLock(lockPath: string): LockInfo | null {
  try {
    const parsed = JSON.parse(readFileSync(lockPath, 'utf8')) as Partial<LockInfo>;
    if (typeof parsed.pid !== 'number' || typeof parsed.token !== 'string') return null;
    return {
      pid: parsed.pid,
      apiUrl: typeof parsed.apiUrl === 'string' ? parsed.apiUrl : '',
      token: parsed.token,
      startedAt: typeof parsed.startedAt === 'string' ? parsed.startedAt : '',
    };
  } catch {
    return null;
  }
}

/** The live holder of a lock, or null when there is none or it is stale. */
export function liveLockHolder(lockPath: string): LockInfo | null {
  const info = readLock(lockPath);
  if (!info) return null;
  return processExists(info.pid) ? info : null;
}

export interface HeldLock {
  readonly path: string;
  readonly info: LockInfo;
  setApiUrl(url: string): void;
  release(): void;
}

function writeExclusive(path: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, JSON.stringify(info));
  } finally {
    closeSync(fd);
  }
  return true;
}

export function acquireLock(databaseFile: string): HeldLock {
  const path = lockPathFor(databaseFile);
  const info: LockInfo = { pid: process.pid, apiUrl: '', token: randomToken(32), startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (writeExclusive(path, info)) {
      let released = false;
      return {
        path,
        info,
        setApiUrl(url: string) {
          info.apiUrl = url;
          const tmp = `${path}.${process.pid}.tmp`;
          const fd = openSync(tmp, 'w', 0o600);
          try {
            writeSync(fd, JSON.stringify(info));
          } finally {
            closeSync(fd);
          }
          renameSync(tmp, path);
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
        },
      };
    }
    const holder = readLock(path);
    if (holder && processExists(holder.pid) && holder.pid !== process.pid) throw new DatabaseLockedError(path, holder);
    if (holder && holder.pid === process.pid) {
      throw new DatabaseLockedError(path, holder);
    }
    // Stale (crashed holder or unreadable file): take it over.
    try {
      unlinkSync(path);
    } catch {
      // raced with another starter; retry
    }
  }
  const holder = readLock(path);
  throw new DatabaseLockedError(path, holder ?? { pid: -1, apiUrl: '', token: '', startedAt: '' });
}
