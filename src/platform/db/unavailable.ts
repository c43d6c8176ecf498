/**
 * A database that cannot be opened or reached, said so an operator can act on it: which database
 * (its URL, credentials hidden) and why, in words (connection refused; a directory that does not
 * exist or is not writable), instead of the driver's `ConnectionFailed("…: 14")` or drizzle's
 * `Failed query: CREATE TABLE …` without its cause.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { hideUrlSecrets } from '../url-secrets';

export class DatabaseUnavailableError extends Error {
  constructor(url: string, reason: string, cause: unknown) {
    super(`cannot open the database ${redactDatabaseUrl(url)}: ${reason}`, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

/** The URL with its credentials replaced by `***` (the same rule as `fpa:check --print`); never throws. */
export function redactDatabaseUrl(url: string): string {
  return url.startsWith('file:') ? url : hideUrlSecrets(url);
}

/**
 * The error to throw for a database that failed to open: `filePath` is the local file of a
 * `file:` URL (its directory is then looked at), `secrets` texts to keep out of the message.
 */
export function databaseUnavailable(url: string, filePath: string | null, error: unknown, secrets: readonly string[] = []): DatabaseUnavailableError {
  let reason = (filePath ? fileProblem(filePath) : null) ?? networkProblem(error) ?? fileSystemProblem(error) ?? innermostMessage(error);
  for (const secret of [url, ...secrets]) if (secret) reason = reason.replaceAll(secret, url === secret ? redactDatabaseUrl(url) : '***');
  return new DatabaseUnavailableError(url, reason, error);
}

/**
 * A database file that is not there, for a command that only reads it (`fpa:backup`, which must
 * not make an empty one): which database, and why in words (its directory missing, or the file).
 */
export function missingDatabaseFile(url: string, filePath: string): DatabaseUnavailableError {
  const directory = dirname(filePath);
  const reason = existsSync(directory)
    ? `there is no database file ${filePath} (is FPA_DATABASE_URL right, and is this the directory the server runs in? The server makes it at its first start)`
    : (fileProblem(filePath) ?? `the directory ${directory} does not exist`);
  return new DatabaseUnavailableError(url, reason, null);
}

/** What is wrong with the place of a database file, looked at on disk; null when nothing shows. */
function fileProblem(path: string): string | null {
  const directory = dirname(path);
  let existing = directory;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  if (!statSync(existing).isDirectory()) return `${existing} is a file, not a directory: the database's directory ${directory} cannot be made there`;
  if (existing !== directory) {
    return writable(existing)
      ? `the directory ${directory} does not exist (is FPA_DATABASE_URL right, and is this the directory the server runs in?)`
      : `the directory ${directory} does not exist, and ${existing} is not writable by this user to create it`;
  }
  if (!writable(directory)) return `the directory ${directory} is not writable by this user (SQLite writes its -wal and lock files beside the database)`;
  if (existsSync(path) && !readableAndWritable(path)) return `the file ${path} is not readable and writable by this user`;
  return null;
}

/** Whether this user may do `mode` to `path` (access(2)). */
function allowed(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

/** A directory this user may create files in. */
const writable = (path: string) => allowed(path, constants.W_OK | constants.X_OK);
const readableAndWritable = (path: string) => allowed(path, constants.R_OK | constants.W_OK);

/** The error codes of a cause chain (system errors, fetch's, the driver's). */
function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') codes.push(code);
    const inMessage = /\b(E[A-Z]{4,})\b/.exec(e.message)?.[1];
    if (inMessage) codes.push(inMessage);
  }
  return codes;
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (no libSQL server listens at that address and port)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved (DNS did not answer)',
  ETIMEDOUT: 'the connection timed out',
  ECONNRESET: 'the server closed the connection',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  CERT_HAS_EXPIRED: 'the server’s TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the server’s TLS certificate is self-signed',
};

function networkProblem(error: unknown): string | null {
  for (const code of codesOf(error)) if (NETWORK_REASONS[code]) return NETWORK_REASONS[code];
  const text = chainText(error);
  if (/\b401\b|unauthori[sz]ed/i.test(text)) return 'the server refused the credentials (FPA_DATABASE_AUTH_TOKEN)';
  return null;
}

const FILE_SYSTEM_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  ENOENT: 'a directory on its path does not exist and could not be created',
  ENOTDIR: 'a part of its path is a file, not a directory',
  EEXIST: 'a part of its path is a file, not a directory',
};

function fileSystemProblem(error: unknown): string | null {
  for (const code of codesOf(error)) if (FILE_SYSTEM_REASONS[code]) return `${FILE_SYSTEM_REASONS[code]} (${innermostMessage(error)})`;
  return null;
}

function chainText(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) parts.push(e.message);
  return parts.join(' ');
}

/** The deepest message of the chain, first line only (drizzle's query text stays out). */
function innermostMessage(error: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    if (!e.message.startsWith('Failed query:')) message = e.message;
  }
  return (message.split('\n')[0] ?? '').slice(0, 300);
}
