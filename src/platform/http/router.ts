/**
 * The base of every API router: a named Elysia instance (name + seed, so two configured
 * copies of the plugin are not merged) with local error hooks that answer the spec's error
 * body, whatever onError the host registered around the plugin. Administrator routers add
 * `admin` to the context with `adminRouter`.
 *
 * A router also names how its routes are authenticated (`security`, merged by Elysia into the
 * `detail` of every route it declares): the OpenAPI document (src/app/docs/openapi.ts) reads
 * it from the routes, so the document says what the router really checks.
 */
import { Elysia } from 'elysia';
import { FpaError } from '../errors';
import type { Metrics } from '../metrics';
import { setContextActor } from '../request-context';
import type { Runtime } from '../runtime';
import { type AreaScope, scopeOf } from '../scope';
import type { AdminAuthenticator } from './admin-auth';
import { apiBodyLimit, NO_BYTES, readJsonBody, readRecordsBody, readTerminalFileBody, settledBody, TERMINAL_FILE_LIMIT } from './body';
import type { Caller } from './caller';
import { apiErrorAnswers } from './errors';
import { pointerSegment } from './json-keys';
import { AnyParameters, NoOtherParameters } from './model';
import { authorize } from './policy';
import { peerAddress, waitForTheHandler } from './routable-url';

/** What every router needs: the runtime (settings, log, instance id) and the administrator check. */
export interface Http {
  runtime: Runtime;
  auth: AdminAuthenticator;
  /**
   * Where the server serving this instance listens, once known: the standalone server's listen, a
   * host's start (the plugin's onStart), or what a host serving it some other way says
   * (`fpa.servedAt`). Null until then; routes that name the server's own address read it when
   * Elysia has no server to tell them (a host's `Bun.serve({ fetch: app.fetch })`).
   */
  served?: { at: { hostname: string; port: number } | null };
}

/** The security schemes of the API, by their name in the OpenAPI document. */
export const SECURITY_SCHEMES = {
  /** `Authorization: Bearer <JWT>` of an administrator. */
  admin: 'AdminJWT',
  /** The lock file's local operator token, in the `x-fpa-operator-token` header. */
  operator: 'OperatorToken',
  /** `Authorization: Agent <key>` of an enrollment agent. */
  agent: 'AgentKey',
} as const;

/** OpenAPI security requirements: any one of the listed schemes lets a caller in. */
type Security = Record<string, string[]>[];

/**
 * How a router reads bodies: JSON objects (every route), records as CSV or a JSON array (imports),
 * a file a terminal wrote, or not at all (the catch-all of unknown paths: a path nobody serves is
 * 404, a wrong method 405, whatever body came with it).
 */
export type BodyKind = 'json' | 'records' | 'terminal-file' | 'none';

export interface RouterOptions {
  security?: Security;
  /** Pass a JSON `null` body on to the routes' schemas instead of refusing it (src/platform/http/body.ts). */
  allowNullBody?: boolean;
  /** Default `json`. */
  body?: BodyKind;
  /** Checks the caller before a body is read (adminRouter, for a terminal's file); throws to refuse, and then nothing is read. */
  admitBeforeReading?: (context: AdmitContext) => Promise<void>;
  /**
   * Let the query carry parameters no schema names. Only where we do not write the query: the
   * catch-all that answers 404 and 405 (src/app/plugin.ts: a path nobody serves is not found,
   * whatever its query says) and the single sign-on trips (the provider's redirect). Every other
   * route refuses a parameter it does not take (NoOtherParameters in ./model.ts).
   */
  anyQuery?: boolean;
}

/**
 * Bodies are read by `readJsonBody` (JSON only, under the cap; `readRecordsBody` for a router of
 * imports); a refused body is raised by `settledBody` after authentication, and at the latest
 * before the handler runs. Queries are closed: a parameter the route does not take is refused
 * (NoOtherParameters), checked with the route's own query schema: after the caller is admitted
 * where a router admits in `derive` (adminRouter, the agent API), and always before the handler,
 * so before any byte of a file.
 */
export function apiRouter(http: Http, name: string, options: RouterOptions = {}) {
  const limit = apiBodyLimit(http.runtime.settings);
  const timing = requestTiming(http.runtime.metrics);
  const bodyOptions = { allowNull: options.allowNullBody ?? false };
  // onError and mapResponse both: the error body answers whatever onError a host registered before the plugin (errors.ts).
  const errors = apiErrorAnswers(http.runtime.log);
  return new Elysia({ name: `fpa-${name}`, seed: http.runtime.instanceId, ...(options.security ? { detail: { security: options.security } } : {}) })
    .onTransform(({ request }) => timing.start(request))
    .onAfterResponse(({ request, route, set }) => timing.end(request, route, set.status))
    .onError(errors.onError)
    .mapResponse(errors.mapResponse)
    .onParse(({ request, route, server }) => {
      if (options.body === 'none') return NO_BYTES;
      if (options.body === 'records') return readRecordsBody(request, limit);
      if (options.body === 'terminal-file') return readTerminalFile({ request, route, server }, options.admitBeforeReading);
      return readJsonBody(request, limit, bodyOptions);
    })
    .onBeforeHandle((context) => {
      context.body = settledBody(context.body);
    })
    .onBeforeHandle(({ request }) => {
      if (!options.anyQuery) refuseRepeatedParameters(request.url);
    })
    .guard({ schema: 'standalone', query: options.anyQuery ? AnyParameters : NoOtherParameters });
}

/**
 * A parameter given twice is refused (400 naming it), as one the route does not take is: which
 * of the two was meant is a guess, and the last one silently won (`punches/?employee=E01&employee=E02`
 * answered E02's punches to whoever meant E01's, or both). Checked after the caller is admitted,
 * like the rest of the query.
 */
function refuseRepeatedParameters(url: string): void {
  const start = url.indexOf('?');
  if (start < 0 || !url.includes('&', start)) return;
  const seen = new Set<string>();
  for (const name of new URLSearchParams(url.slice(start + 1)).keys()) {
    if (seen.has(name)) {
      throw new FpaError('validation_error', `query parameter ${JSON.stringify(name)} given more than once; give it once`, {
        in: 'query',
        errors: [{ path: `/${pointerSegment(name)}`, message: 'given more than once' }],
      });
    }
    seen.add(name);
  }
}

/** What admitting a caller needs of a request. */
export interface AdmitContext {
  request: Request;
  route: string;
  server: Parameters<typeof peerAddress>[0];
}

/** An admitted caller and the area scope the services filter by (a type, as Elysia's `derive` wants a record). */
type Admitted = {
  admin: Caller;
  scope: AreaScope;
};

/**
 * A terminal's file, read once its caller is admitted (when the router checks it first). A
 * refused caller's file is not read; the refusal itself is answered by `derive`, which checks
 * again: thrown here, Elysia would wrap it as a parse error (400).
 */
async function readTerminalFile(context: AdmitContext, admit: RouterOptions['admitBeforeReading']) {
  try {
    await admit?.(context);
  } catch {
    return NO_BYTES;
  }
  return readTerminalFileBody(context.request, TERMINAL_FILE_LIMIT);
}

/**
 * The one door of every administrator route and stream: who calls (401 without a valid
 * credential), and whether their role may call this route (403 `forbidden`, policy.ts). It
 * answers the caller and the area scope the services filter by.
 */
export async function admitAdmin(http: Http, context: AdmitContext, options: { allowOperatorToken?: boolean; queryToken?: boolean } = {}): Promise<Admitted> {
  // The peer address decides whether the lock file's operator token may count (loopback only).
  const peerIp = peerAddress(context.server, context.request);
  const admin = await http.auth.authenticate(context.request, { ...options, peerIp });
  // The audit log names this caller (kind and id) for every row written on its behalf.
  setContextActor({ ...admin.actor, by: admin.by });
  authorize(admin, context.request.method, context.route);
  // An administrator waits for the answer however long the work takes (a purge at ten million
  // punches runs for a minute): Bun's idle timeout would otherwise reset the connection.
  waitForTheHandler(context.server, context.request);
  return { admin, scope: scopeOf(admin) };
}

/**
 * The same door again, for a caller already in (an open stream): its credentials checked anew
 * (session ended, key revoked, account disabled) and its role and areas as they are now. No side
 * effects of a request (audit actor, handler timeout).
 */
export async function readmitAdmin(http: Http, context: AdmitContext, options: { queryToken?: boolean } = {}): Promise<Admitted> {
  const admin = await http.auth.authenticate(context.request, { ...options, peerIp: peerAddress(context.server, context.request) });
  authorize(admin, context.request.method, context.route);
  return { admin, scope: scopeOf(admin) };
}

/**
 * A router whose every route requires an administrator; `admin.by` names the caller, `scope`
 * the areas it may see. `derive` (not `resolve`) so the caller is checked before the body is
 * validated: an anonymous request is always 401, whatever it sends.
 */
export function adminRouter(http: Http, name: string, options: { allowOperatorToken?: boolean; body?: BodyKind } = {}) {
  const security: Security = [{ [SECURITY_SCHEMES.admin]: [] }];
  if (options.allowOperatorToken) security.push({ [SECURITY_SCHEMES.operator]: [] });
  // A terminal's file may be 10 MiB: its caller is checked before a byte of it is read, and the
  // answer kept for `derive`. Other bodies are small, and read first as Elysia does.
  const admittedBeforeReading = new WeakMap<Request, Admitted>();
  const admitBeforeReading =
    options.body === 'terminal-file'
      ? async (context: AdmitContext) => {
          admittedBeforeReading.set(context.request, await admitAdmin(http, context, options));
        }
      : undefined;
  return apiRouter(http, name, { security, body: options.body, admitBeforeReading }).derive(async (context) => {
    const admitted =
      admittedBeforeReading.get(context.request) ??
      (await admitAdmin(http, { request: context.request, route: context.route, server: context.server }, options));
    context.body = settledBody(context.body);
    return admitted;
  });
}

/**
 * `fpa_http_request_duration_seconds`, measured with local hooks (a global `onRequest` would
 * reach the host's routes), labelled by the route as registered, never the raw path.
 */
export function requestTiming(metrics: Metrics) {
  const started = new WeakMap<Request, number>();
  return {
    start(request: Request): void {
      if (!started.has(request)) started.set(request, performance.now());
    },
    end(request: Request, route: string, status: number | string | undefined): void {
      const begin = started.get(request);
      if (begin === undefined) return;
      started.delete(request);
      metrics.httpDuration.observe({ method: request.method, route, status: String(status ?? 200) }, (performance.now() - begin) / 1000);
    },
  };
}
