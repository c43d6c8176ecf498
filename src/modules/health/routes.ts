/**
 * `health/` (administrators), and at the server root `/metrics` (Prometheus; an owner or admin
 * of every area, or `Bearer <METRICS_TOKEN>`) and `/readyz` (load balancers; no authentication):
 * those two are not the plugin's but `fpa.operations` (app/plugin.ts), mounted by the standalone
 * server and by a host that wants them.
 */
import { Elysia, t } from 'elysia';
import { constantTimeEqual } from '../../platform/crypto/secrets';
import { FpaError } from '../../platform/errors';
import { API_PREFIX } from '../../platform/http/api-prefix';
import { errors } from '../../platform/http/model';
import { otherMethodsRefused } from '../../platform/http/other-methods';
import { permits, ruleFor } from '../../platform/http/policy';
import { peerAddress } from '../../platform/http/routable-url';
import { adminRouter, apiRouter, type Http } from '../../platform/http/router';
import { Health } from './model';
import type { HealthService } from './service';

/** Who may see the webhook endpoints: health's `attention` names them. */
const WEBHOOK_LIST = ruleFor('GET', `${API_PREFIX}/webhooks/`);

export function healthRoutes(http: Http, health: HealthService) {
  return adminRouter(http, 'health').get('/health', ({ scope, admin }) => health.health(scope, { endpoints: permits(admin, WEBHOOK_LIST) }), {
    response: { 200: Health, ...errors() },
    detail: {
      summary: 'What needs attention: terminals, commands, webhooks (backlog, disabled endpoints, dead letters), jobs, punches today',
      tags: ['operations'],
    },
  });
}

/** Root routes outside the plugin (`fpa.operations`): `/metrics` and `/readyz`. */
export function operationsRoutes(http: Http, health: HealthService) {
  const { metrics, settings } = http.runtime;
  const metricsToken = settings.METRICS_TOKEN;
  const readyz = new Elysia({ name: 'fpa-readyz', seed: http.runtime.instanceId }).get(
    '/readyz',
    async ({ set }) => {
      const ready = await health.ready();
      set.status = ready ? 200 : 503;
      return { status: ready ? 'ready' : 'unavailable' };
    },
    { response: { 200: t.Object({ status: t.String() }), 503: t.Object({ status: t.String() }) }, detail: { summary: 'Ready to serve', hide: true } },
  );
  const scrape = apiRouter(http, 'metrics')
    .derive(async ({ request, server }) => {
      // A scraper's token first; anything else must be an administrator.
      const presented = /^Bearer\s+(.+)$/i.exec(request.headers.get('authorization') ?? '')?.[1]?.trim() ?? '';
      if (metricsToken && presented && constantTimeEqual(presented, metricsToken)) return {};
      const caller = await http.auth.authenticate(request, { peerIp: peerAddress(server, request) }).catch((error: unknown) => {
        throw forAScraper(error, Boolean(metricsToken));
      });
      // The figures are the whole fleet's: for the fleet's administrators, not a role or an area's.
      if (caller.areas.length > 0 || (caller.role !== 'owner' && caller.role !== 'admin')) {
        throw new FpaError('forbidden', 'the metrics are the whole fleet’s: an owner or admin of every area, or METRICS_TOKEN', {
          role: caller.role,
          areas: caller.areas,
        });
      }
      return {};
    })
    .get('/metrics', async () => new Response(await metrics.text(), { headers: { 'content-type': metrics.contentType } }), {
      detail: { summary: 'Prometheus metrics', hide: true },
    });
  return new Elysia({ name: 'fpa-operations', seed: http.runtime.instanceId })
    .use(readyz)
    .use(scrape)
    .use(otherMethodsRefused('fpa-operations-methods', http.runtime.instanceId, { '/readyz': ['GET'], '/metrics': ['GET'] }));
}

/**
 * A refused scrape names the scraper's credential too: a Prometheus operator reading "an
 * administrator token is required" would go looking for a JWT.
 */
function forAScraper(error: unknown, tokenSet: boolean): unknown {
  if (!(error instanceof FpaError) || error.code !== 'unauthorized') return error;
  const scraper = tokenSet
    ? 'a scraper presents METRICS_TOKEN (Authorization: Bearer <METRICS_TOKEN>)'
    : 'for a scraper, set METRICS_TOKEN and present it (Authorization: Bearer <METRICS_TOKEN>)';
  return new FpaError('unauthorized', `${error.message}; ${scraper}`, { ...error.details, metrics_token_set: tokenSet });
}
