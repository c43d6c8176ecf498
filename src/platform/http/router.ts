/**
 * The base of every API router: a named Elysia instance (name + seed, so two configured
 * copies of the plugin are not merged) with a local error handler that answers the spec's
 * error body. Administrator routers add `admin` to the context with `adminRouter`.
 */
import { Elysia } from 'elysia';
import type { Metrics } from '../metrics';
import type { Runtime } from '../runtime';
import type { AdminAuthenticator } from './admin-auth';
import { apiBodyLimit, readJsonBody, readRecordsBody, settleBody } from './body';
import { handleApiError } from './errors';

/** What every router needs: the runtime (settings, log, instance id) and the administrator check. */
export interface Http {
  runtime: Runtime;
  auth: AdminAuthenticator;
}

/** How a router reads bodies: JSON objects (every route), or records as CSV or a JSON array (imports). */
export type BodyKind = 'json' | 'records';

/**
 * Bodies are read by `readJsonBody` (JSON only, under the cap; `readRecordsBody` for a router of
 * imports); a refused body is raised by `settleBody` after authentication, and at the latest
 * before the handler runs.
 */
export function apiRouter(http: Http, name: string, body: BodyKind = 'json') {
  const limit = apiBodyLimit(http.runtime.settings);
  const read = body === 'records' ? readRecordsBody : readJsonBody;
  const timing = requestTiming(http.runtime.metrics);
  return new Elysia({ name: `fpa-${name}`, seed: http.runtime.instanceId })
    .onTransform(({ request }) => timing.start(request))
    .onAfterResponse(({ request, route, set }) => timing.end(request, route, set.status))
    .onError(handleApiError(http.runtime.log))
    .onParse(({ request }) => read(request, limit))
    .onBeforeHandle((context) => settleBody(context));
}

/**
 * A router whose every route requires an administrator; `admin.by` names the caller.
 * `derive` (not `resolve`) so the caller is checked before the body is validated: an
 * anonymous request is always 401, whatever it sends.
 */
export function adminRouter(http: Http, name: string, options: { allowOperatorToken?: boolean; queryToken?: boolean; body?: BodyKind } = {}) {
  return apiRouter(http, name, options.body).derive(async (context) => {
    // The peer address decides whether the lock file's operator token may count (loopback only).
    const peerIp = context.server?.requestIP(context.request)?.address ?? null;
    const admin = await http.auth.authenticate(context.request, { ...options, peerIp });
    settleBody(context);
    return { admin };
  });
}

/** Reads `?limit=` within 1..1000 (default 100). */
export function limitOf(query: Record<string, string | undefined>): number {
  const raw = query.limit;
  if (raw === undefined || raw === '') return 100;
  const n = Number(raw);
  return Number.isFinite(n) ? Math.max(1, Math.min(1000, Math.trunc(n))) : 100;
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
