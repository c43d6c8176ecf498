/**
 * The files of a local `file:` database at rest: where they live and who may read them.
 *
 * - The database, its `-wal` and `-shm`, the lock files beside it (`.lock`, `.writer`) are
 *   0600. The database file is created 0600 before SQLite opens it: SQLite creates `-wal`
 *   and `-shm` (and the journal) with the database file's own permissions, whatever the
 *   umask, so they follow without touching the process's umask (an embedding host's own).
 *   Files of an earlier release (0644) are tightened on start.
 * - The directory the service creates for them is 0700. An existing directory open to group
 *   or others is tightened when this process owns it and it holds nothing but this database's
 *   files (a `data/` an earlier release made 0755); any other (the working directory, a shared
 *   one) is left as it is and reported: the files themselves are 0600 anyway, but whoever may
 *   write the directory may rename or replace them.
 * - The path is resolved to the real file (symlinks, `..`): the single-writer lock is taken
 *   beside the file itself, so a second server started through another path to the same file
 *   finds the lock (lock.ts). SQLite puts `-wal` beside the real file too.
 *
 * Never opens an existing database file: closing any descriptor of a file drops this
 * process's POSIX locks on it, SQLite's included. Modes are changed by path.
 */
import { chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

const FILE_MODE = 0o600;
const DIRECTORY_MODE = 0o700;
/** Permission bits for group and others. */
const OPEN_TO_OTHERS = 0o077;
/**
 * What SQLite, an embedded replica (`-info`, `-client_wal_index`), lock.ts and a restore
 * (restore.ts: `.restoring` while it runs, `.replaced-<time>` kept after) write beside a database `<name>`.
 */
const COMPANION_SUFFIXES = [
  '-wal',
  '-shm',
  '-journal',
  '-info',
  '-client_wal_index',
  '.lock',
  '.writer',
  '.writer-journal',
  '.writer-wal',
  '.writer-shm',
  '.restoring',
  '.replaced-',
];

export interface PreparedDatabaseFile {
  /** The database file's real path (symlinks and `..` resolved). */
  realPath: string;
  /** What the operator should know (a directory left open to others, hard links). */
  warnings: string[];
}

/**
 * The real path of a database file; for one not created yet, its directory's real path and
 * its name (or the path as it is when the directory does not exist either).
 */
export function realDatabasePath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    try {
      return join(realpathSync(dirname(absolute)), basename(absolute));
    } catch {
      return absolute;
    }
  }
}

/**
 * Creates the directory (0700) and the database file (0600) if missing, tightens the modes of
 * what is there, and answers the real path. Idempotent; safe while the database is open.
 *
 * `createFile: false` leaves a missing database file to its opener: an embedded replica refuses
 * a database file without its metadata (`-info`), so it is tightened after its first sync.
 */
export function prepareDatabaseFile(path: string, options: { createFile?: boolean } = {}): PreparedDatabaseFile {
  const warnings: string[] = [];
  const absolute = resolve(path);
  const created = mkdirSync(dirname(absolute), { recursive: true, mode: DIRECTORY_MODE });
  if (options.createFile !== false) createPrivateFile(absolute);
  const realPath = realDatabasePath(absolute);
  if (!enforcesModes()) return { realPath, warnings };

  const directory = dirname(realPath);
  // mkdir's mode passes through the umask; set it exactly on what this call made.
  if (created !== undefined) {
    for (let dir = dirname(absolute); dir.length >= created.length && dir.startsWith(created); dir = dirname(dir)) chmodSync(dir, DIRECTORY_MODE);
  }
  tightenDirectory(directory, basename(realPath), warnings);
  for (const file of [realPath, ...COMPANION_SUFFIXES.map((suffix) => realPath + suffix)]) tightenFile(file);
  const links = existsSync(realPath) ? statSync(realPath).nlink : 1;
  if (links > 1) {
    warnings.push(
      `the database file ${realPath} has ${links} hard links: a server opening it through another link would not see this one's lock (and SQLite keeps a separate -wal per name); keep one name for it`,
    );
  }
  return { realPath, warnings };
}

/** Permission bits mean nothing to Windows; and a file is only changed by its owner. */
function enforcesModes(): boolean {
  return process.platform !== 'win32' && typeof process.getuid === 'function';
}

function ownedByUs(uid: number): boolean {
  return uid === process.getuid?.();
}

/**
 * Creates an empty file 0600 unless it exists (SQLite takes an empty file for an empty database).
 * Exclusive create: an existing file is never opened here (see above). Answers whether it made it.
 */
export function createPrivateFile(file: string): boolean {
  try {
    const fd = openSync(file, 'wx', FILE_MODE);
    try {
      // The umask may only take bits away, never add: this is for a umask without the owner's.
      if (enforcesModes()) fchmodSync(fd, FILE_MODE);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function tightenFile(file: string): void {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(file);
  } catch {
    return;
  }
  if (stat.isFile() && (stat.mode & OPEN_TO_OTHERS) !== 0 && ownedByUs(stat.uid)) chmodSync(file, FILE_MODE);
}

function tightenDirectory(directory: string, name: string, warnings: string[]): void {
  const stat = statSync(directory);
  if ((stat.mode & OPEN_TO_OTHERS) === 0) return;
  const ours = (entry: string) => entry === name || COMPANION_SUFFIXES.some((suffix) => entry.startsWith(name + suffix));
  // lock.ts writes `<name>.lock.<pid>.tmp` and renames it: covered by the `.lock` prefix.
  if (ownedByUs(stat.uid) && readdirSync(directory).every(ours)) {
    chmodSync(directory, DIRECTORY_MODE);
    return;
  }
  const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
  warnings.push(
    `the directory ${directory} holding the database is open to group or others (mode ${mode}); the database files are 0600, but whoever may write the directory may rename or replace them: chmod 700 it or give the database a directory of its own`,
  );
}
