/**
 * Requests Elysia can route whatever `Host` they carry. Elysia finds the path by looking for the
 * first `/` from index 11 of `request.url` (it assumes an authority of at least four characters,
 * `http://abcd/`), so a terminal pointed at a short server name (`Host: fpa`, or `abc:80`, which
 * Bun shortens to `abc`) had its path cut and got 404 on every route; one that sends no `Host`
 * at all (HTTP/1.0) gives Bun a relative URL (`/iclock/cdata?…`). Such a request is rebuilt with
 * a routable URL; its headers (the `Host` as sent) and body are kept, and so is the original:
 * the server knows the peer address and the timer of the request it received, not of a copy.
 */
import type { Server } from 'bun';
import type { AnyElysia } from 'elysia';
import { enterRequestContext, inRequestContext, REQUEST_ID_HEADER, requestIdFrom } from '../request-context';

/** Where Elysia starts looking for the path (its `getPath`). */
const ELYSIA_PATH_SEARCH_FROM = 11;

/** The request the server received, for each copy made of one: its peer address and its timer are the original's. */
const originals = new WeakMap<Request, Request>();

/** The request as the server received it (the original of a copy). */
function received(request: Request): Request {
  return originals.get(request) ?? request;
}

/** The request itself, or a copy with a routable URL when Elysia would misread its path. */
function routableRequest(request: Request): Request {
  const url = request.url;
  let path: string | null = null;
  if (url.startsWith('/')) path = url;
  else {
    const authority = url.indexOf('//');
    const pathStart = authority === -1 ? -1 : url.indexOf('/', authority + 2);
    if (pathStart !== -1 && pathStart < ELYSIA_PATH_SEARCH_FROM) path = url.slice(pathStart);
  }
  if (path === null) return request;
  const copy = new Request(`http://localhost${path}`, request);
  originals.set(copy, request);
  return copy;
}

/** The peer address of a request as the server received it (also for a rebuilt one). */
export function peerAddress(server: Server<unknown> | null | undefined, request: Request): string | null {
  return server?.requestIP(received(request))?.address ?? null;
}

/**
 * Lets a request's handler take as long as its work does. Bun closes a connection that has sent
 * and received nothing for `idleTimeout` (30 s under Elysia) even while its handler still runs,
 * and the caller sees a reset connection while the work goes on: a job run, an import or a
 * recompute at a large site takes minutes. Only for callers already admitted: the timeout still
 * guards connections that never finish sending a request.
 */
export function waitForTheHandler(server: Server<unknown> | null | undefined, request: Request): void {
  server?.timeout(received(request), 0);
}

/**
 * `listen` compiles the app and serves `app.fetch`: each compiled handler is wrapped, so that a
 * terminal that sends a short `Host` or none reaches its route.
 * A host that mounts the plugin on its own Elysia app calls this on that app before `listen`
 * (the package exports it), so its terminals reach the plugin by any name too.
 */
export function servePathsWhateverTheHost(app: AnyElysia): void {
  const compile = app.compile.bind(app);
  app.compile = () => {
    const compiled = compile();
    const handle = app.fetch;
    Object.defineProperty(app, 'fetch', {
      // Every request runs in its own context (request-context.ts): its id is echoed, logged and
      // put in error bodies.
      value: async (request: Request) => {
        const requestId = requestIdFrom(request.headers);
        const routable = routableRequest(request);
        const { answer, echoed } = await inRequestContext(routable, requestId, () => handle(routable));
        return echoed ? answer : withRequestId(answer, requestId);
      },
      configurable: true,
      writable: true,
    });
    return compiled;
  };
}

/** The answer with the request's id; an answer whose headers cannot change (a WebSocket upgrade's) goes as it is. */
function withRequestId<T>(response: T, requestId: string): T {
  if (response instanceof Response) {
    try {
      response.headers.set(REQUEST_ID_HEADER, requestId);
    } catch {
      // immutable headers
    }
  }
  return response;
}

/**
 * A local `onTransform` hook for the plugin and the standalone server's own routes: the request's
 * id for the routes Bun serves without `fetch` (static paths), echoed in the answer.
 */
export function tagWithRequestId({ request, set }: { request: Request; set: { headers: Record<string, string | number> } }): void {
  set.headers[REQUEST_ID_HEADER] = enterRequestContext(request);
}
