/**
 * Puts a backup of a local `file:` database in place of the current one without handing out any
 * number twice (`npm run fpa:restore`, README "Backups"). The caller holds the single-writer
 * lock (lock.ts): no server has the file open.
 *
 * The backup is the README's: a copy of `data/` taken while the server was stopped (the database
 * file and, beside it, its `-wal` if one was left), or the database file itself. It is never
 * opened where it lies (SQLite may write to a file it opens): it is copied beside the database as
 * `<db>.restoring` (with its `-wal`), checked there, given every AUTOINCREMENT counter
 * (`sqlite_sequence`) and every counter of the service's own (`fpa_counters`: the device PINs
 * handed out, which terminals hold) at the higher of the two databases' values, and checkpointed into one
 * file. The current database is checkpointed too and kept as `<db>.replaced-<time>` (the time
 * of the restore, UTC), a safety net for a few days: it holds everyone as of the restore, their
 * sealed templates included, and no deletion, consent withdrawal, retention or deletion proof
 * after the restore ever reaches it, so the server deletes it once RESTORE_KEEP_REPLACED has passed
 * (removeReplacedBefore: at start, and in the daily retention purge). The restored file then
 * takes its name in one rename, so there is never a moment without a database at that name, nor
 * a `-wal` of one file beside the other.
 *
 * The files are read with Bun's own SQLite (`bun:sqlite`), whose `close()` closes the file at
 * once: a libSQL client's connections are closed when they are collected, and one left open
 * would checkpoint or remove a `-wal` by its name after the rename. SQLite's file format is the
 * same for both.
 *
 * Only `sqlite_sequence` and `fpa_counters` are changed, tables every release's schema has: the
 * release that wrote the backup starts on the result as on the backup itself (a rollback), and
 * the next numbers of punches, events, terminal commands, every other AUTOINCREMENT id and the
 * device PINs follow the highest ever handed out, so a poller's cursor, a terminal's command id
 * and a PIN a terminal holds for someone are never given to something else.
 */

import { Database as SqliteFile } from 'bun:sqlite';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { createPrivateFile, realDatabasePath } from './files';

const SQLITE_HEADER = 'SQLite format 3\0';
/** The table drizzle records applied migrations in: every release's database has it. */
const MIGRATIONS_TABLE = '__drizzle_migrations';

/** A backup that is not one (a missing path, a directory without the database, another kind of file). */
export class BackupRefusedError extends Error {
  override name = 'BackupRefusedError';
}

export interface RestoreOutcome {
  /** The backup's database file that was restored. */
  backupFile: string;
  /** Where the replaced database is kept (null: there was none). */
  keptAs: string | null;
  /** Every counter of the restored database: AUTOINCREMENT's by table, the service's own as `fpa_counters.<name>`. */
  counters: Map<string, number>;
  /** The tables whose counter came from the replaced database (higher than the backup's). */
  carried: string[];
}

/** The database file of a backup given as `path`: the file itself, or the database's name inside a directory copy of `data/`. */
export function backupFileOf(path: string, databaseName: string): string {
  const absolute = resolve(path);
  if (!existsSync(absolute)) throw new BackupRefusedError(`${absolute} does not exist`);
  if (!statSync(absolute).isDirectory()) return checkedDatabaseFile(absolute);
  const inside = join(absolute, databaseName);
  if (existsSync(inside)) return checkedDatabaseFile(inside);
  const found = readdirSync(absolute).filter((name) => isSqliteFile(join(absolute, name)));
  throw new BackupRefusedError(
    `${absolute} has no ${databaseName} (the database's name in DATABASE_URL)` +
      (found.length > 0 ? `; SQLite files there: ${found.join(', ')} (give the one to restore as the backup)` : ': it is not a copy of data/'),
  );
}

function checkedDatabaseFile(file: string): string {
  if (!statSync(file).isFile()) throw new BackupRefusedError(`${file} is not a file`);
  if (!isSqliteFile(file)) throw new BackupRefusedError(`${file} is not a SQLite database (no "SQLite format 3" header)`);
  return file;
}

function isSqliteFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    const fd = openSync(file, 'r');
    try {
      const header = Buffer.alloc(SQLITE_HEADER.length);
      return readSync(fd, header, 0, header.length, 0) === header.length && header.toString('latin1') === SQLITE_HEADER;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

/** Whether two paths name one file (symlinks, `..`, hard links). */
function sameFile(a: string, b: string): boolean {
  if (!existsSync(b)) return false;
  const [x, y] = [statSync(a), statSync(b)];
  return x.dev === y.dev && x.ino === y.ino;
}

/** Restores `backupFile` as the database at `databaseFile` (its real path), counters carried forward. */
export function restoreDatabase(databaseFile: string, backupFile: string): RestoreOutcome {
  const target = realDatabasePath(databaseFile);
  if (sameFile(backupFile, target)) throw new BackupRefusedError(`${backupFile} is the database itself, not a backup of it`);
  const staged = `${target}.restoring`;
  removeDatabaseFiles(staged);
  try {
    copyPrivate(backupFile, staged);
    if (existsSync(`${backupFile}-wal`)) copyPrivate(`${backupFile}-wal`, `${staged}-wal`);
    // The backup is checked before the current database is touched at all.
    checkBackup(staged, backupFile);
    const current: Counters = existsSync(target) ? countersOfCurrent(target) : new Map();
    const { counters, carried } = carryCountersForward(staged, current);
    const keptAs = putInPlace(staged, target);
    return { backupFile, keptAs, counters, carried };
  } catch (error) {
    removeDatabaseFiles(staged);
    throw error;
  }
}

/** The current database's counters, its WAL checkpointed into the file (it is kept as it stands). */
function countersOfCurrent(target: string): Counters {
  const db = new SqliteFile(target);
  try {
    const counters = countersOf(db);
    checkpointWhole(db, target);
    return counters;
  } finally {
    // SQLite removes the -wal when its last connection closes after a complete checkpoint.
    db.close();
  }
}

/** Refuses a staged copy that is damaged or not a database of this service. */
function checkBackup(staged: string, backupFile: string): void {
  const db = new SqliteFile(staged);
  try {
    const check = String(db.query('PRAGMA quick_check').values()[0]?.[0]);
    if (check !== 'ok') throw new BackupRefusedError(`${backupFile} is damaged (quick_check: ${check})`);
    if (!hasTable(db, MIGRATIONS_TABLE) || !hasTable(db, 'sqlite_sequence')) {
      throw new BackupRefusedError(`${backupFile} is not a Fingerprint Attendance database (no ${MIGRATIONS_TABLE} or sqlite_sequence table)`);
    }
  } finally {
    db.close();
  }
}

/** Gives the staged copy the higher of each counter; it is one file afterwards. */
function carryCountersForward(staged: string, current: Counters): { counters: Map<string, number>; carried: string[] } {
  const db = new SqliteFile(staged);
  try {
    const own = countersOf(db);
    const carried = [...current.values()].filter((c) => c.value > (own.get(c.label)?.value ?? 0) && hasTable(db, c.kind.table));
    // A table of a newer release that the backup does not have keeps its AUTOINCREMENT counter
    // too: rolled forward again, its migration creates the table and its ids go on from there.
    db.transaction(() => {
      for (const { kind, name, value } of carried) {
        db.run(`delete from ${kind.table} where name = ?`, [name]);
        db.run(`insert into ${kind.table} (name, ${kind.column}) values (?, ?)`, [name, value]);
      }
    }).immediate();
    const counters = new Map([...countersOf(db).values()].map((c) => [c.label, c.value]));
    checkpointWhole(db, staged);
    return { counters, carried: carried.map((c) => c.label).sort() };
  } finally {
    db.close();
  }
}

function hasTable(db: SqliteFile, name: string): boolean {
  return db.query("select 1 from sqlite_master where type = 'table' and name = ?").get(name) !== null;
}

/** Where numbers that only grow are kept: AUTOINCREMENT's, and the service's own (device PINs handed out, the roster's version). */
interface CounterKind {
  table: string;
  column: string;
  label(name: string): string;
}

const COUNTER_KINDS: readonly CounterKind[] = [
  { table: 'sqlite_sequence', column: 'seq', label: (name) => name },
  { table: 'fpa_counters', column: 'value', label: (name) => `fpa_counters.${name}` },
];

/** Every counter of a database, by label (the table for AUTOINCREMENT's, `fpa_counters.<name>` for the service's). */
type Counters = Map<string, { kind: CounterKind; name: string; label: string; value: number }>;

function countersOf(db: SqliteFile): Counters {
  const counters: Counters = new Map();
  for (const kind of COUNTER_KINDS.filter((k) => hasTable(db, k.table))) {
    for (const [name, value] of db.query(`select name, ${kind.column} from ${kind.table}`).values()) {
      const label = kind.label(String(name));
      counters.set(label, { kind, name: String(name), label, value: Number(value) });
    }
  }
  return counters;
}

/** Copies every page of the WAL into the database file; refuses to go on if SQLite could not. */
function checkpointWhole(db: SqliteFile, file: string): void {
  // Its first column is `busy`: 1 when a reader or writer kept it from finishing.
  const [busy] = db.query('PRAGMA wal_checkpoint(TRUNCATE)').values()[0] ?? [0];
  if (Number(busy) !== 0) throw new Error(`${file} could not be checkpointed (another process has it open?)`);
}

/** Keeps the current database as `<db>.replaced-<time>` and renames the staged one into its place. */
function putInPlace(staged: string, target: string): string | null {
  for (const file of [`${staged}-wal`, `${target}-wal`]) {
    // A non-empty WAL beside either file would be applied to the wrong one (or lost): checkpointed above.
    if (existsSync(file) && statSync(file).size > 0) throw new Error(`${file} still holds pages after a complete checkpoint; nothing was changed`);
  }
  removeCompanions(staged);
  removeCompanions(target);
  let keptAs: string | null = null;
  if (existsSync(target)) {
    keptAs = replacedName(target, Date.now());
    try {
      // A second name first, then the restored file over the first in one rename: the database's
      // name never points at nothing, whatever moment the process dies.
      linkSync(target, keptAs);
    } catch {
      renameSync(target, keptAs);
    }
  }
  renameSync(staged, target);
  if (process.platform !== 'win32') syncFile(dirname(target));
  return keptAs;
}

/** Where a restore keeps the database it replaced: `<db>.replaced-2026-03-09T10-15-00Z` (UTC, `:` written `-`). */
function replacedName(target: string, at: number): string {
  return `${target}.replaced-${new Date(at)
    .toISOString()
    .replaceAll(':', '-')
    .replace(/\.\d+Z$/, 'Z')}`;
}

/** The time of the restore in a replaced database's name (`…replaced-2026-03-09T10-15-00Z`); null for another name. */
export function replacedAt(file: string): number | null {
  const stamp = /\.replaced-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})Z$/.exec(file);
  if (!stamp) return null;
  const at = Date.parse(`${stamp[1]}T${stamp[2]}:${stamp[3]}:${stamp[4]}Z`);
  return Number.isNaN(at) ? null : at;
}

/** What removeReplacedBefore did: the files it deleted, and those it could not (with why). */
export interface ReplacedRemoval {
  removed: string[];
  failed: { file: string; reason: string }[];
}

/**
 * Deletes the databases a restore replaced beside `databaseFile` (`<db>.replaced-<time>`) whose
 * restore was before `cutoff`, with any `-wal`, `-shm` or `-journal` a reader of one left. Other
 * files are never touched, nor a replaced database of another database file in the directory.
 */
export function removeReplacedBefore(databaseFile: string, cutoff: number): ReplacedRemoval {
  const target = realDatabasePath(databaseFile);
  const prefix = `${basename(target)}.replaced-`;
  const outcome: ReplacedRemoval = { removed: [], failed: [] };
  let names: string[];
  try {
    names = readdirSync(dirname(target));
  } catch {
    return outcome;
  }
  for (const name of names.filter((n) => n.startsWith(prefix))) {
    const file = join(dirname(target), name);
    const at = replacedAt(file);
    if (at === null || at >= cutoff) continue;
    try {
      // Inside the try: a dangling link or an unreadable entry is a warning, never a failed start.
      if (!statSync(file).isFile()) continue;
      for (const suffix of ['-wal', '-shm', '-journal']) if (existsSync(`${file}${suffix}`)) unlinkSync(`${file}${suffix}`);
      unlinkSync(file);
      outcome.removed.push(file);
    } catch (error) {
      outcome.failed.push({ file, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return outcome;
}

/**
 * Deletes the copy an unfinished restore left beside `databaseFile` (`<db>.restoring`, staged
 * before the backup is put in place: a restore stopped by a kill or a power cut leaves it). Only
 * while this process holds the database's lock, so no restore is running: at start and in the
 * daily purge. Answers the file deleted, or null when there was none.
 */
export function removeUnfinishedRestore(databaseFile: string): string | null {
  const staged = `${realDatabasePath(databaseFile)}.restoring`;
  if (!existsSync(staged)) return null;
  removeDatabaseFiles(staged);
  if (existsSync(`${staged}-journal`)) unlinkSync(`${staged}-journal`);
  return existsSync(staged) ? null : staged;
}

/** The -wal and -shm of a database file that is closed and checkpointed (empty or stale). */
function removeCompanions(file: string): void {
  for (const suffix of ['-wal', '-shm']) {
    try {
      unlinkSync(`${file}${suffix}`);
    } catch {
      // not there
    }
  }
}

function removeDatabaseFiles(file: string): void {
  removeCompanions(file);
  try {
    unlinkSync(file);
  } catch {
    // not there
  }
}

/** Copies a file, 0600 from its first byte (files.ts: the copy holds what the database does), to disk. */
function copyPrivate(from: string, to: string): void {
  createPrivateFile(to);
  copyFileSync(from, to);
  // copyFile gives an existing destination the source's mode (libuv): set it back.
  if (process.platform !== 'win32') chmodSync(to, 0o600);
  syncFile(to);
}

/** Makes a file's bytes, or a directory's entries (the renames), durable. */
function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
