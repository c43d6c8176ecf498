/**
 * 404 `not_found` with the API's error body for paths under `/api/` that nothing serves, where
 * Elysia answers a bare `NOT_FOUND` in text/plain: the plugin's own namespace outside its version
 * (`/api/fingerprint/`, `/api/fingerprint/v2/…`, app/plugin.ts) and, in the standalone server, the
 * rest of `/api/` (app/server.ts). An embedding host keeps its own 404s: the plugin claims only
 * `/api/fingerprint/`. Every route Elysia matches is more specific than these wildcards, so they
 * catch only what nothing else serves. The body is never read: a path nobody serves is not found,
 * whatever it was sent with.
 */
import { Elysia } from 'elysia';
import { errorBody } from '../errors';
import type { Logger } from '../log';
import { enterRequestContext, REQUEST_ID_HEADER } from '../request-context';
import { API_PREFIX } from './api-prefix';

/** The tag these routes carry (hidden from the OpenAPI document), so route tables can tell them from endpoints. */
export const NOT_FOUND_TAG = 'not-found';

/** What a caller who asked for a path under `/api/` is told: the API's own address. */
const MESSAGE = `no such endpoint; the API is at ${API_PREFIX}/`;

/** The answer to a request for a path nothing serves: its id (static paths are routed past the server's `fetch`), logged as a refusal. */
function notFound(request: Request, log: Logger | undefined): Response {
  const requestId = enterRequestContext(request);
  const { method } = request;
  const path = new URL(request.url).pathname;
  log?.info('request refused', { method, path, status: 404, code: 'not_found' });
  return new Response(JSON.stringify(errorBody('not_found', MESSAGE, { method, path })), {
    status: 404,
    headers: { 'content-type': 'application/json', [REQUEST_ID_HEADER]: requestId, 'cache-control': 'no-store' },
  });
}

/**
 * An instance answering 404 with the error body on `paths` (each with any method): give both the
 * bare prefix and its wildcard (`/api`, `/api/*`), as Elysia's `/x/*` does not match `/x`.
 */
export function notFoundUnder(name: string, seed: string, paths: readonly string[], log?: Logger) {
  const app = new Elysia({ name, seed });
  for (const path of paths) app.all(path, ({ request }) => notFound(request, log), { detail: { hide: true, tags: [NOT_FOUND_TAG] } });
  return app;
}
