/**
 * The base of every API router: a named Elysia instance (name + seed, so two configured
 * copies of the plugin are not merged) with a local error handler that answers the spec's
 * error body. Administrator routers add `admin` to the context with `adminRouter`.
 */
import { Elysia } from 'elysia';
import type { Core } from '../core/core';
import { handleApiError } from './errors';

export function apiRouter(core: Core, name: string) {
  return new Elysia({ name: `fpa-${name}`, seed: core.ctx.instanceId }).onError(handleApiError(core.ctx.log));
}

/**
 * A router whose every route requires an administrator; `admin.by` names the caller.
 * `derive` (not `resolve`) so the caller is checked before the body is validated: an
 * anonymous request is always 401, whatever it sends.
 */
export function adminRouter(core: Core, name: string, options: { allowOperatorToken?: boolean } = {}) {
  return apiRouter(core, name).derive(async ({ request }) => ({
    admin: await core.auth.authenticate(request, options),
  }));
}

/** Reads `?limit=` within 1..1000 (default 100). */
export function limitOf(query: Record<string, string | undefined>): number {
  const raw = query.limit;
  if (raw === undefined || raw === '') return 100;
  const n = Number(raw);
  return Number.isFinite(n) ? Math.max(1, Math.min(1000, Math.trunc(n))) : 100;
}
