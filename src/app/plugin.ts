/**
 * The Elysia plugin a host mounts: every module's routes under the API prefix, the terminals'
 * endpoints under ADMS_URL_PREFIX, the docs, and a catch-all that answers unknown API paths
 * with the spec's error body. Every hook is local: the plugin never touches the host's routes.
 */
import { type AnyElysia, Elysia } from 'elysia';
import { attendanceRoutes } from '../modules/attendance';
import { auditRoutes } from '../modules/audit';
import { biometricRoutes } from '../modules/biometrics';
import { calendarRoutes, scheduleRoutes } from '../modules/calendar';
import { commandRoutes } from '../modules/commands';
import { deviceRoutes } from '../modules/devices';
import { employeeRoutes } from '../modules/employees';
import { enrolleeRoutes } from '../modules/enrollees';
import { agentRoutes, enrollmentRoutes } from '../modules/enrollment';
import { eventRoutes } from '../modules/events';
import { healthRoutes, operationsRoutes } from '../modules/health';
import { jobRoutes } from '../modules/jobs';
import { punchRoutes, punchStreamRoutes } from '../modules/punches';
import { webhookRoutes } from '../modules/webhooks';
import { FpaError } from '../platform/errors';
import { API_PREFIX } from '../platform/http/api-prefix';
import { apiRouter, type Http } from '../platform/http/router';
import type { Modules } from './modules';

/** Every API route, without prefix: what the OpenAPI document is generated from. */
export function apiRoutes(http: Http, m: Modules) {
  return new Elysia({ name: 'fpa-api-routes', seed: http.runtime.instanceId })
    .use(agentRoutes(http, m.enrollment))
    .use(enrollmentRoutes(http, m.enrollment))
    .use(deviceRoutes(http, m.devices))
    .use(commandRoutes(http, { devices: m.devices, commands: m.commands }))
    .use(employeeRoutes(http, m.employees))
    .use(enrolleeRoutes(http, m.enrollees))
    .use(biometricRoutes(http, { biometrics: m.biometrics, enrollees: m.enrollees }))
    .use(punchRoutes(http, m.punches, m.corrections))
    .use(punchStreamRoutes(http, { hub: m.punchStream, source: m.punchSource, quota: m.streamQuota }))
    .use(eventRoutes(http, { events: m.events, hub: m.eventStream, quota: m.streamQuota }))
    .use(calendarRoutes(http, m.calendar))
    .use(scheduleRoutes(http, m.calendar.schedules))
    .use(attendanceRoutes(http, m.attendance, m.reports))
    .use(webhookRoutes(http, m.webhooks.service))
    .use(jobRoutes(http, m.jobs))
    .use(auditRoutes(http, m.audit))
    .use(healthRoutes(http, m.health));
}

export function buildPlugin(http: Http, m: Modules, docs: AnyElysia) {
  const api = new Elysia({ name: 'fpa-api', seed: http.runtime.instanceId, prefix: API_PREFIX })
    .use(apiRoutes(http, m))
    .use(docs)
    // Unknown paths under the API prefix answer the spec's error body, not Elysia's plain text.
    // Every real route is more specific than this wildcard, so it only catches what nothing else does.
    .use(
      apiRouter(http, 'api-not-found').all('/*', ({ request }) => {
        throw new FpaError('not_found', 'no such endpoint', { method: request.method, path: new URL(request.url).pathname });
      }),
    );
  return new Elysia({ name: 'fingerprint-attendance', seed: http.runtime.instanceId }).use(m.terminals.routes()).use(operationsRoutes(http, m.health)).use(api);
}
