/**
 * The standalone server: `bun run start`. Serves the terminals, the agent API, the admin API
 * and `/healthz` on one port, migrates the embedded database on start, runs the jobs and the
 * webhook worker in-process, and shuts down cleanly on SIGTERM/SIGINT.
 */
import { type AnyElysia, Elysia } from 'elysia';
import { anyoneHasAnAccount } from '../modules/users';
import { ConfigurationError, formatIssues } from '../platform/config/check';
import { NewerDatabaseError } from '../platform/db/client';
import { DatabaseLockedError } from '../platform/db/lock';
import { explainFailure } from '../platform/errors';
import { apiBodyLimit, TERMINAL_FILE_LIMIT } from '../platform/http/body';
import { notFoundUnder } from '../platform/http/not-found';
import { otherMethodsRefused } from '../platform/http/other-methods';
import { servePathsWhateverTheHost, tagWithRequestId } from '../platform/http/routable-url';
import type { Logger } from '../platform/log';
import { reachableHost } from '../platform/net/lan';
import { localApiBase } from './addresses';
import { API_PREFIX, type CreateOptions, createFingerprintAttendance, type FingerprintAttendance } from './create';

export interface RunningServer {
  fpa: FingerprintAttendance;
  app: AnyElysia;
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface ListenOptions {
  port?: number;
  hostname?: string;
  /**
   * Seconds a connection may send and receive nothing before Bun closes it (Elysia's 30 when
   * unset); administrators' requests are exempt once admitted (platform/http/routable-url.ts).
   */
  idleTimeoutSeconds?: number;
}

export async function startServer(options: CreateOptions & ListenOptions = {}): Promise<RunningServer> {
  const fpa = await createFingerprintAttendance(options);
  const app = serverApp(fpa, fpa.service.runtime.log);
  servePathsWhateverTheHost(app);
  const port = options.port ?? fpa.settings.PORT;
  const hostname = options.hostname ?? fpa.settings.HOST;
  try {
    // Elysia's Bun adapter turns on SO_REUSEPORT: a second server on the same port would then
    // share it silently, requests alternating between two databases. A used port is an error.
    app.listen({
      port,
      hostname,
      reusePort: false,
      ...(options.idleTimeoutSeconds === undefined ? {} : { idleTimeout: options.idleTimeoutSeconds }),
      maxRequestBodySize: requestHardCap(fpa.settings),
    });
  } catch (error) {
    await fpa.close();
    if (isAddressInUse(error)) throw new PortInUseError(hostname, port);
    throw isHostUnusable(error) ? new HostUnusableError(hostname, port, error) : error;
  }
  const actualPort = app.server!.port!;
  const url = localApiBase({ hostname, port: actualPort });
  // The scripts' printed links open where this server is reached, whatever their own HOST says
  // (the plugin's onStart wrote it already, from Bun's view of the address: this is the one asked for).
  fpa.servedAt({ hostname, port: actualPort });
  let stopped = false;
  return {
    fpa,
    app,
    url,
    port: actualPort,
    async stop() {
      if (stopped) return;
      stopped = true;
      // Open live streams would keep app.stop() waiting for their clients: close them first (as the README tells a host to).
      await fpa.service.closeStreams();
      await app.stop();
      await fpa.close();
    },
  };
}

/** The standalone server's app: its health check, readiness and metrics, the plugin, and the error body for every path under /api/ nothing serves. */
function serverApp(fpa: FingerprintAttendance, log: Logger) {
  const health = new Elysia({ name: 'fpa-health', seed: fpa.db.url }).onTransform(tagWithRequestId).get('/healthz', async ({ set }) => {
    try {
      await fpa.db.client.execute('select 1');
      return { status: 'ok' };
    } catch {
      set.status = 503;
      return { status: 'unavailable' };
    }
  });
  return (
    new Elysia()
      .use(health)
      .use(otherMethodsRefused('fpa-health-methods', fpa.db.url, { '/healthz': ['GET'] }))
      // `/readyz` and `/metrics`: this server is its own host, so it serves them (a host chooses: README "Embedding").
      .use(fpa.operations)
      .use(fpa.plugin)
      // This server is its own host: every path under /api/ is the API's, so one nothing serves is
      // answered with the error body too (the plugin claims only /api/fingerprint/ in a host's app).
      .use(notFoundUnder('fpa-api-not-found', fpa.db.url, ['/api', '/api/*'], log))
  );
}

/** Bun's own cap on a request body, at least this, and twice the largest route's cap. */
const HARD_CAP_FLOOR = 64 * 1024 * 1024;

/**
 * Bun's cap on a request body, well above every route's (ADMS_MAX_REQUEST_BYTES, the API's, a
 * terminal's file): each route refuses a larger body itself, with the error body and its limit
 * (413 `payload_too_large`, `max_bytes`), judged on the declared length before a byte is read.
 * Bun's own refusal is a bare 413 with no body and the connection closed, which the console
 * could only word as "The server answered 413." It stays as a hard cap on what Bun takes at all.
 */
function requestHardCap(settings: Parameters<typeof apiBodyLimit>[0] & { ADMS_MAX_REQUEST_BYTES: number }): number {
  return Math.max(HARD_CAP_FLOOR, 2 * Math.max(settings.ADMS_MAX_REQUEST_BYTES, apiBodyLimit(settings), TERMINAL_FILE_LIMIT));
}

/** Another process (maybe another Fingerprint Attendance) already listens on the port. */
export class PortInUseError extends Error {
  constructor(hostname: string, port: number) {
    super(`port ${port} on ${hostname} is already in use by another process; stop it, or set FPA_PORT to a free port`);
    this.name = 'PortInUseError';
  }
}

/** The address to listen on is not one of this machine's (or not an address at all). */
export class HostUnusableError extends Error {
  constructor(hostname: string, port: number, cause: unknown) {
    super(
      `cannot listen on ${hostname}, port ${port} (${cause instanceof Error ? cause.message : String(cause)}): set FPA_HOST to an address of this machine (0.0.0.0 for every interface, 127.0.0.1 for this machine only)`,
    );
    this.name = 'HostUnusableError';
  }
}

/** Not an address of this machine (EADDRNOTAVAIL), or not an address at all (Bun reads it as a socket path: ENOENT; a name that does not resolve). */
function isHostUnusable(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  const message = error instanceof Error ? error.message : '';
  return /EADDRNOTAVAIL|ENOENT|ENOTFOUND|EAI_/.test(`${code} ${message}`);
}

function isAddressInUse(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = 'code' in error ? String(error.code) : '';
  const message = error instanceof Error ? error.message : '';
  return code === 'EADDRINUSE' || /in use|EADDRINUSE/i.test(message);
}

/**
 * The banner's lines about the console: with accounts, sign in with yours (a one-time link stays
 * the operators' way in); with none yet, how to make the owner's (README "People who sign in"),
 * the one-time link as the other way. It said to sign in with a link from fpa:console-link
 * whatever the accounts, which is no way for an owner with an account to sign in.
 */
export function consoleBanner(consoleUrl: string, accounts: boolean): string[] {
  if (accounts) return [`  Console:   ${consoleUrl}  (sign in with your account; operators: a one-time link from npm run fpa:console-link)`];
  return [
    `  Console:   ${consoleUrl}`,
    '             No account yet: create yours, the owner, with  npm run fpa:create-user -- --username <you> --role owner',
    '             (it prints a link to choose your password), or sign in once with a link from  npm run fpa:console-link',
  ];
}

export async function main(): Promise<void> {
  let server: RunningServer;
  try {
    server = await startServer();
  } catch (error) {
    if (error instanceof ConfigurationError) {
      console.error(`fpa: refusing to start, the configuration has errors:\n${formatIssues(error.issues)}`);
    } else if (
      error instanceof DatabaseLockedError ||
      error instanceof NewerDatabaseError ||
      error instanceof PortInUseError ||
      error instanceof HostUnusableError
    ) {
      console.error(`fpa: refusing to start: ${error.message}`);
    } else {
      // The causes too: a refused connection, a directory that cannot be written (explainFailure).
      console.error(`fpa: failed to start: ${explainFailure(error)}`);
    }
    process.exit(1);
  }
  // What people type in: terminals and browsers elsewhere on the network reach the LAN address, not 127.0.0.1.
  const hostname = server.fpa.settings.HOST;
  const reachable = reachableHost(hostname);
  const base = `http://${reachable}:${server.port}`;
  const consoleUrl = server.fpa.settings.CONSOLE_URL || `${base}/console/`;
  console.log(
    JSON.stringify({
      time: new Date().toISOString(),
      level: 'info',
      msg: `Fingerprint Attendance listening on ${hostname}:${server.port}`,
      console: consoleUrl,
      terminals: `${base}${server.fpa.settings.ADMS_URL_PREFIX}`,
      api: `${base}${API_PREFIX}/`,
    }),
  );
  const accounts = await anyoneHasAnAccount(server.fpa.db.orm).catch(() => true);
  console.log(['', ...consoleBanner(consoleUrl, accounts)].join('\n'));
  console.log(`  Terminals: set the terminal's server address to ${reachable}, port ${server.port} (ADMS path ${server.fpa.settings.ADMS_URL_PREFIX})\n`);
  const shutdown = async (signal: string) => {
    console.log(JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: `received ${signal}, shutting down` }));
    await server.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
