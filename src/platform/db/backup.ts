/**
 * An online backup (`npm run fpa:backup -- <directory>`): one consistent copy of a `file:`
 * database taken while the server runs and terminals push, by SQLite's `VACUUM INTO` on a
 * connection of its own. That is a read transaction: it sees one committed state (the WAL's
 * frames included), never a half-written one, and the server's writes go on beside it. The copy
 * is written as `<directory>/<database's name>`, the shape `fpa:restore` takes (a copy of
 * `data/`): first under a `.partial` name, renamed once complete and checked, so an interrupted
 * backup never looks like one. It holds what the database holds: templates and secrets sealed
 * under the keys in `.env`, which is not in it (keep the two apart).
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { type Client, createClient } from '@libsql/client';
import { createPrivateFile } from './files';
import { missingDatabaseFile } from './unavailable';

export class BackupTargetError extends Error {}

/** Where the copy of `databaseFile` goes for this target: `<target>/<name>`, a new file in a directory (made when missing). */
export function backupTargetOf(target: string, databaseFile: string): string {
  const directory = resolve(target);
  if (existsSync(directory) && !statSync(directory).isDirectory()) {
    throw new BackupTargetError(`${directory} is a file: give a directory for the backup (it gets ${basename(databaseFile)})`);
  }
  const file = join(directory, basename(databaseFile));
  if (existsSync(file)) throw new BackupTargetError(`${file} exists already: a backup never overwrites one; give a new directory`);
  if (resolve(databaseFile) === file) throw new BackupTargetError('the backup would be the database itself');
  return file;
}

/**
 * Copies the database into `target` (backupTargetOf's file), checked; its size in bytes. A
 * database that is not there is a DatabaseUnavailableError saying which and why, before anything
 * is made (opened, SQLite would make an empty one, or fail with `ConnectionFailed(…: 14)` when its
 * directory is missing); whatever fails after, no `.partial` file is left behind.
 */
export async function backupDatabase(databaseFile: string, target: string): Promise<{ file: string; bytes: number }> {
  const file = backupTargetOf(target, databaseFile);
  if (!existsSync(databaseFile)) throw missingDatabaseFile(`file:${databaseFile}`, databaseFile);
  mkdirSync(resolve(target), { recursive: true, mode: 0o700 });
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  let source: Client | null = null;
  try {
    // Made empty and 0600 first (VACUUM INTO fills an empty file): written under the umask, the copy
    // would be readable by others for as long as it takes, in a directory that already existed.
    createPrivateFile(partial);
    source = createClient({ url: `file:${databaseFile}` });
    await source.execute({ sql: 'vacuum into ?', args: [partial] });
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    source?.close();
  }
  await checked(partial);
  renameSync(partial, file);
  return { file, bytes: statSync(file).size };
}

/** SQLite's own check of the copy, before it is given its name. */
async function checked(file: string): Promise<void> {
  const copy = createClient({ url: `file:${file}` });
  try {
    const { rows } = await copy.execute('pragma quick_check');
    const verdict = String(rows[0]?.[0] ?? '');
    if (verdict !== 'ok') throw new Error(`the copy failed SQLite's quick_check: ${verdict}`);
  } catch (error) {
    rmSync(file, { force: true });
    throw error;
  } finally {
    copy.close();
  }
}
