/**
 * `npm run fpa:backup -- <directory>`: a consistent copy of the database taken while the server
 * runs (or not): platform/db/backup.ts. It takes no lock: it only reads, beside the server.
 */
import { parseArgs } from 'node:util';
import { loadSettings } from '../platform/config/settings';
import { BackupTargetError, backupDatabase } from '../platform/db/backup';
import { databaseFilePath } from '../platform/db/client';
import { DatabaseUnavailableError } from '../platform/db/unavailable';
import { registerCommand, UsageError } from './run';

async function backupCommand(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new UsageError('give one directory for the backup, e.g. data.bak-$(date +%F)');
  const { settings } = loadSettings();
  const file = databaseFilePath(settings.DATABASE_URL);
  if (!file || settings.DATABASE_SYNC_URL) {
    console.error('fpa:backup: only a local file: database without DATABASE_SYNC_URL is backed up by this command; back up a libSQL server with its own tools');
    return 1;
  }
  try {
    const started = Date.now();
    const copy = await backupDatabase(file, positionals[0]!);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `fpa:backup: ${file} copied to ${copy.file} (${copy.bytes} bytes, ${seconds} s, checked); keep the .env (its keys) apart: the copy's templates and secrets are sealed under them. Restore it with npm run fpa:restore -- ${positionals[0]}`,
    );
    return 0;
  } catch (error) {
    // A target it will not write, or a database that is not there: said in a line, no driver code.
    if (!(error instanceof BackupTargetError) && !(error instanceof DatabaseUnavailableError)) throw error;
    console.error(`fpa:backup: ${error.message}`);
    return 1;
  }
}

registerCommand(
  'backup',
  backupCommand,
  [
    'usage: npm run fpa:backup -- <directory>',
    'Copies the database, consistent, into <directory> (made when missing; the shape fpa:restore takes), while the server runs or not; the .env with its keys is not in it.',
  ].join('\n'),
);
