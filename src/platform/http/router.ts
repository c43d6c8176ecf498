/**
 * The base of every API router: a named Elysia instance (name + seed, so two configured
 * copies of the plugin are not merged) with a local error handler that answers the spec's
 * error body. Administrator routers add `admin` to the context with `adminRouter`.
 */
import { Elysia } from 'elysia';
import type { Core } from '../../app/core';
import { apiBodyLimit, readJsonBody, settleBody } from './body';
import { handleApiError } from './errors';

/**
 * Bodies are read by `readJsonBody` (JSON only, under the cap); a refused body is raised by
 * `settleBody` after authentication, and at the latest before the handler runs.
 */
export function apiRouter(core: Core, name: string) {
  const limit = apiBodyLimit(core.ctx.settings);
  return new Elysia({ name: `fpa-${name}`, seed: core.ctx.instanceId })
    .onError(handleApiError(core.ctx.log))
    .onParse(({ request }) => readJsonBody(request, limit))
    .onBeforeHandle((context) => settleBody(context));
}

/**
 * A router whose every route requires an administrator; `admin.by` names the caller.
 * `derive` (not `resolve`) so the caller is checked before the body is validated: an
 * anonymous request is always 401, whatever it sends.
 */
export function adminRouter(core: Core, name: string, options: { allowOperatorToken?: boolean; queryToken?: boolean } = {}) {
  return apiRouter(core, name).derive(async (context) => {
    // The peer address decides whether the lock file's operator token may count (loopback only).
    const peerIp = context.server?.requestIP(context.request)?.address ?? null;
    const admin = await core.auth.authenticate(context.request, { ...options, peerIp });
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
