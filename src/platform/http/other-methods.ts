/**
 * 405 for the root paths outside the API prefix (`/healthz`, `/readyz`, `/metrics`, the
 * console's): Elysia never answers 405 itself, so a wrong method on them fell through to 404
 * as if the path did not exist. The API prefix has its own catch-all for this (app/plugin.ts).
 */
import { Elysia } from 'elysia';
import { errorBody } from '../errors';
import { enterRequestContext, REQUEST_ID_HEADER } from '../request-context';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The tag these routes carry (hidden from the OpenAPI document), so route tables can tell them from endpoints. */
export const METHOD_REFUSAL_TAG = 'method-not-allowed';

/**
 * An instance answering 405 with `Allow` for every method each path does not serve. Its own
 * instance, so that no guard of the real routes (authentication, CSRF) runs before the answer.
 */
export function otherMethodsRefused(name: string, seed: string, served: Readonly<Record<string, readonly string[]>>) {
  const app = new Elysia({ name, seed });
  for (const [path, methods] of Object.entries(served)) {
    const allow = [...new Set([...methods, ...(methods.includes('GET') ? ['HEAD'] : [])])].sort();
    for (const method of METHODS.filter((m) => !methods.includes(m))) {
      app.route(
        method,
        path,
        ({ request }) => {
          // Its own id, as every error has: Bun routes these static paths past the server's `fetch`.
          const requestId = enterRequestContext(request);
          const body = errorBody('method_not_allowed', `${method} is not allowed here`, { method, path, allow });
          return new Response(JSON.stringify(body), {
            status: 405,
            headers: { 'content-type': 'application/json', allow: allow.join(', '), 'cache-control': 'no-store', [REQUEST_ID_HEADER]: requestId },
          });
        },
        { detail: { hide: true, tags: [METHOD_REFUSAL_TAG] } },
      );
    }
  }
  return app;
}
