/**
 * `npm run fpa:restore -- <backup>`: the README's rollback (README "Upgrade", "Backups"). Run
 * with the server stopped: it takes the database's single-writer lock (platform/db/lock.ts), so
 * it refuses while a server (or another script) holds the file, and no server starts half-way.
 * The work itself, counters carried forward, is platform/db/restore.ts.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { loadSettings } from '../platform/config/settings';
import { formatDuration } from '../platform/config/values';
import { databaseFilePath } from '../platform/db/client';
import { acquireLock, DatabaseLockedError } from '../platform/db/lock';
import { backupFileOf, type RestoreOutcome, replacedAt, restoreDatabase } from '../platform/db/restore';
import { registerCommand, UsageError } from './run';

async function restoreCommand(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new UsageError('give one backup: a copy of data/ (a directory) or its database file');
  const { settings } = loadSettings();
  const file = databaseFilePath(settings.DATABASE_URL);
  if (!file || settings.DATABASE_SYNC_URL) {
    // A libSQL server (and the primary of a replica) is restored with its own tools; its feeds
    // then refuse cursors from before the restore (409 cursor_ahead).
    console.error('fpa:restore: only a local file: database without DATABASE_SYNC_URL is restored by this command; restore a libSQL server with its own tools');
    return 1;
  }
  // What the path holds is checked first: a path that is no backup is refused with the server up.
  const backupFile = backupFileOf(positionals[0]!, basename(file));
  const lock = await acquireLock(file).catch((error: unknown) => {
    if (error instanceof DatabaseLockedError) throw new Error(`${error.message} Stop the server before restoring.`);
    throw error;
  });
  try {
    const outcome = restoreDatabase(file, backupFile);
    console.log(summary(file, outcome, settings.RESTORE_KEEP_REPLACED));
    return 0;
  } finally {
    lock.release();
  }
}

function summary(file: string, outcome: RestoreOutcome, keepMs: number): string {
  const counters = [...outcome.counters].map(([table, seq]) => `${table} ${seq}`).join(', ');
  const carried =
    outcome.carried.length > 0 ? `carried forward from the replaced database: ${outcome.carried.join(', ')}` : 'none was higher in the replaced database';
  const kept = outcome.keptAs ? keptUntil(outcome.keptAs, keepMs) : 'there was no database to replace';
  return `fpa:restore: ${outcome.backupFile} is now the database at ${file}; next numbers after: ${counters || 'none yet'} (${carried}); ${kept}`;
}

/**
 * When the replaced database goes: the server deletes it RESTORE_KEEP_REPLACED after the restore
 * (at a start or a retention purge): it holds everyone as of the restore, and the deletions and
 * consent withdrawals after it never reach it.
 */
function keptUntil(keptAs: string, keepMs: number): string {
  const until = new Date((replacedAt(keptAs) ?? Date.now()) + keepMs).toISOString().replace(/\.\d+Z$/, 'Z');
  const when = keepMs > 0 ? 'at its first start or retention purge after that' : 'at its next start or retention purge';
  return (
    `the replaced database is kept as ${keptAs} until ${until} (RESTORE_KEEP_REPLACED ${formatDuration(keepMs)}): the server deletes it ${when}, ` +
    'for the deletions and consent withdrawals after the restore never reach it'
  );
}

registerCommand(
  'restore',
  restoreCommand,
  [
    'usage: npm run fpa:restore -- <backup>',
    'Puts a backup (a copy of data/ taken while stopped, a directory fpa:backup wrote, or its database file) in place of the database, the server stopped; every counter (punch and event sequences, command ids, device PINs) continues after the highest ever handed out, and the replaced database is kept aside for RESTORE_KEEP_REPLACED (7d), then the server deletes it.',
  ].join('\n'),
);
