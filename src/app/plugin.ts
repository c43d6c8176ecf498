/**
 * The Elysia plugin a host mounts: every module's routes under the API prefix, the terminals'
 * endpoints under ADMS_URL_PREFIX, the console, the docs, and catch-alls that answer unknown API paths
 * (and any other path under `/api/fingerprint/`) with the spec's error body. Every hook is local: the plugin never touches the host's routes.
 */
import { Elysia } from 'elysia';
import { anomalyRoutes } from '../modules/anomalies';
import { areaRoutes } from '../modules/areas';
import { attendanceRoutes } from '../modules/attendance';
import { auditRoutes } from '../modules/audit';
import { calendarRoutes, scheduleRoutes } from '../modules/calendar';
import { commandRoutes } from '../modules/commands';
import { completenessRoutes } from '../modules/completeness';
import { consoleLinkRoutes, consoleRoutes } from '../modules/console';
import { deviceRoutes } from '../modules/devices';
import { diagnosticRoutes } from '../modules/diagnostics';
import { employeeImportRoutes } from '../modules/employee-import';
import { employeeRoutes } from '../modules/employees';
import { enrolleeRoutes } from '../modules/enrollees';
import { agentRoutes, biometricRoutes, enrollmentRoutes } from '../modules/enrollment';
import { eventRoutes } from '../modules/events';
import { fleetRoutes } from '../modules/fleet';
import { healthRoutes, operationsRoutes } from '../modules/health';
import { jobRoutes } from '../modules/jobs';
import { deletionProofRoutes, proofKeyRoutes } from '../modules/proofs';
import { punchRoutes, punchStreamRoutes } from '../modules/punches';
import { reportRoutes } from '../modules/reports';
import { consoleFactorRoutes, factorRoutes, type SessionOpener } from '../modules/sign-in-factors';
import { usbImportRoutes } from '../modules/terminals';
import { apiKeyRoutes, signInRoutes, userRoutes } from '../modules/users';
import { webhookRoutes } from '../modules/webhooks';
import { FpaError } from '../platform/errors';
import { API_NAMESPACE, API_PREFIX } from '../platform/http/api-prefix';
import { notFoundUnder } from '../platform/http/not-found';
import { tagWithRequestId } from '../platform/http/routable-url';
import { apiRouter, type Http } from '../platform/http/router';
import type { ServedAt } from './addresses';
import { buildOpenApiDocument, type JsonObject, type RouteLike } from './docs/openapi';
import { type DocumentSource, docsRoutes } from './docs/routes';
import { FPA_EVENT_TYPES } from './event-catalog';
import type { Modules } from './modules';

/** Every API route, without prefix: what the OpenAPI document is generated from. */
export function apiRoutes(http: Http, m: Modules) {
  // In two halves: one chain of every route's plugin is deeper than TypeScript instantiates.
  return new Elysia({ name: 'fpa-api-routes', seed: http.runtime.instanceId }).use(fleetRoutesOf(http, m)).use(attendanceRoutesOf(http, m));
}

/** Terminals, people, their biometrics and punches. */
function fleetRoutesOf(http: Http, m: Modules) {
  return new Elysia({ name: 'fpa-api-fleet-routes', seed: http.runtime.instanceId })
    .use(agentRoutes(http, m.enrollment))
    .use(enrollmentRoutes(http, m.enrollment))
    .use(deviceRoutes(http, m.devices))
    .use(commandRoutes(http, { devices: m.devices, commands: m.commands }))
    .use(fleetRoutes(http, { fleet: m.fleet, enrollees: m.enrollees, devices: m.devices }))
    .use(areaRoutes(http, m.areas))
    .use(employeeRoutes(http, m.employees))
    .use(enrolleeRoutes(http, m.enrollees))
    .use(employeeImportRoutes(http, m.employeeImport))
    .use(biometricRoutes(http, { enrollment: m.enrollment, enrollees: m.enrollees }))
    .use(deletionProofRoutes(http, m.proofs))
    .use(punchRoutes(http, m.punches, m.corrections))
    .use(punchStreamRoutes(http, { hub: m.punchStream, source: m.punchSource, quota: m.streamQuota, members: m.members }))
    .use(usbImportRoutes(http, m.terminals.usbImport))
    .use(completenessRoutes(http, m.completeness));
}

/** Attendance, integrations, operations and who may sign in. */
function attendanceRoutesOf(http: Http, m: Modules) {
  return new Elysia({ name: 'fpa-api-attendance-routes', seed: http.runtime.instanceId })
    .use(eventRoutes(http, { events: m.events, hub: m.eventStream, quota: m.streamQuota, members: m.members, eventTypes: FPA_EVENT_TYPES }))
    .use(calendarRoutes(http, m.calendar))
    .use(scheduleRoutes(http, m.calendar.schedules))
    .use(attendanceRoutes(http, m.attendance, { reports: m.reports, board: m.board, locks: m.locks }))
    .use(anomalyRoutes(http, m.anomalies))
    .use(reportRoutes(http, m.reportFiles))
    .use(webhookRoutes(http, m.webhooks.service))
    .use(jobRoutes(http, m.jobs))
    .use(auditRoutes(http, m.audit))
    .use(healthRoutes(http, m.health))
    .use(diagnosticRoutes(http, m.diagnostics))
    .use(consoleLinkRoutes(http, m.console))
    .use(userRoutes(http, { users: m.users, signIn: m.signIn, sessions: m.console }))
    .use(apiKeyRoutes(http, m.apiKeys))
    .use(factorRoutes(http, { factors: m.factors, users: m.factorUsers }));
}

/** The OpenAPI document of the API, generated on first use from the served routes. */
export interface OpenApi extends DocumentSource {
  document(): JsonObject;
}

function openApiOf(routes: { readonly routes: readonly RouteLike[] }): OpenApi {
  let text: string | undefined;
  const json = () => (text ??= JSON.stringify(buildOpenApiDocument(routes.routes, { prefix: API_PREFIX })));
  return {
    json,
    // A fresh copy each time: callers may change it.
    document: () => JSON.parse(json()),
  };
}

interface MethodRoute {
  method: string;
  pattern: RegExp;
}

/**
 * What a path serves, from an instance's own routes, for the catch-all: Elysia never answers
 * 405 itself (a wrong method on a known path falls through to `.all('/*')` like an unknown path).
 */
function methodIndex(routes: () => readonly { method: string; path: string }[]) {
  let index: MethodRoute[] | undefined;
  return (pathname: string): { allow: string[]; websocket: boolean } => {
    index ??= routes()
      .filter((r) => r.method !== 'ALL' && !r.path.includes('*'))
      .map((r) => ({
        method: r.method,
        // `:param` matches one segment; the trailing slash is optional, as Elysia routes it.
        pattern: new RegExp(
          `^${r.path
            .replace(/\/+$/, '')
            .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
            .replace(/:[^/]+/g, '[^/]+')}/?$`,
        ),
      }));
    const matching = index.filter((r) => r.pattern.test(pathname));
    const allow = new Set(matching.map((r) => (r.method === 'WS' ? 'GET' : r.method)));
    // Elysia answers HEAD on every GET route.
    if (matching.some((r) => r.method === 'GET')) allow.add('HEAD');
    return { allow: [...allow].sort(), websocket: matching.some((r) => r.method === 'WS') };
  };
}

/** A finished second step (a second factor, single sign-on) opens the user's console session; its cookie. */
function sessionOpener(m: Modules): SessionOpener {
  return async (request, user, how) => {
    const session = await m.signIn.openById(user.id, how === 'sso' ? 'sso' : 'password');
    if (!session) throw new FpaError('unauthorized', 'this account can no longer sign in', {});
    return m.console.cookieFor(request, session);
  };
}

/**
 * `listening`: the host's server started, at this address (the lock file's, for the scripts:
 * app/addresses.ts). Elysia runs a plugin's `onStart` for the app it is mounted in, which is
 * what is wanted here: the plugin learns where the host serves it.
 */
export function buildPlugin(http: Http, m: Modules, listening: (at: ServedAt) => void) {
  const routes = apiRoutes(http, m);
  const openapi = openApiOf(routes);
  const api = new Elysia({ name: 'fpa-api', seed: http.runtime.instanceId, prefix: API_PREFIX }).use(routes).use(docsRoutes(http, openapi));
  const served = methodIndex(() => api.routes);
  // Unknown paths under the API prefix answer the spec's error body, not Elysia's plain text;
  // a known path asked with a method it does not serve is 405 with `Allow`. Every real route is
  // more specific than this wildcard, so it only catches what nothing else does. Its query is
  // open and its body unread: a path nobody serves is not found, whatever it carries.
  api.use(
    apiRouter(http, 'api-not-found', { anyQuery: true, body: 'none' }).all('/*', ({ request }) => {
      const path = new URL(request.url).pathname;
      const { allow, websocket } = served(path);
      if (websocket && request.method === 'GET') {
        throw new FpaError('upgrade_required', 'this endpoint is a WebSocket: send the upgrade handshake', { path });
      }
      if (allow.length > 0) {
        throw new FpaError('method_not_allowed', `${request.method} is not allowed here`, { method: request.method, path, allow });
      }
      throw new FpaError('not_found', 'no such endpoint', { method: request.method, path });
    }),
  );
  const plugin = new Elysia({ name: 'fingerprint-attendance', seed: http.runtime.instanceId })
    // Local: every route of the plugin, never the host's (request-context.ts).
    .onTransform(tagWithRequestId)
    // A socket path (no port) has no address to give: the host says it (`fpa.servedAt`).
    .onStart(({ server }) => {
      if (server?.port) listening({ hostname: server.hostname ?? '', port: server.port });
    })
    .use(m.terminals.routes())
    .use(proofKeyRoutes(http, m.proofs))
    .use(consoleRoutes(http, m.console, { admsUrlPrefix: http.runtime.settings.ADMS_URL_PREFIX }))
    .use(signInRoutes(http, { signIn: m.signIn, invites: m.users.invites, sessions: m.console }))
    .use(consoleFactorRoutes(http, { signIn: m.factorSignIn, factors: m.factors, sso: m.sso, openSession: sessionOpener(m) }))
    .use(api)
    // The rest of the API's own namespace (`/api/fingerprint/`, another version): the error body, not Elysia's text.
    .use(notFoundUnder('fpa-namespace-not-found', http.runtime.instanceId, [API_NAMESPACE, `${API_NAMESPACE}/*`], http.runtime.log));
  return { plugin, openapi, operations: operationsPlugin(http, m) };
}

/**
 * `/readyz` and `/metrics` at the server's root: the standalone server mounts them beside the
 * plugin; a host mounts them only if it wants them (`fpa.operations`), since those paths are
 * usually its own (its probes, its Prometheus endpoint). The plugin claims none of them.
 */
function operationsPlugin(http: Http, m: Modules) {
  return new Elysia({ name: 'fingerprint-attendance-operations', seed: http.runtime.instanceId })
    .onTransform(tagWithRequestId)
    .use(operationsRoutes(http, m.health));
}
