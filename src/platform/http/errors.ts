/**
 * Maps anything thrown by a route to the spec's error body and a fitting status. Used as local
 * hooks of every API router (never global: they must not touch the host's routes).
 */
import { databaseErrorCode, describeError, type ErrorBody, errorBody, FpaError } from '../errors';
import type { Logger } from '../log';
import { enterRequestContext, REQUEST_ID_HEADER } from '../request-context';
import { refusedShape } from './validation-errors';

interface ElysiaErrorLike {
  code: string | number;
  error: unknown;
  request?: Request;
  set: { status?: number | string; headers: Record<string, string | number> };
}

/** Where a request went, for a log line (never its query: it may hold a token). */
function routeOf(request: Request | undefined): Record<string, string> {
  if (!request) return {};
  return { method: request.method, path: new URL(request.url).pathname };
}

export function toErrorResponse(
  code: string | number,
  error: unknown,
  log?: Logger,
  request?: Request,
): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  if (error instanceof FpaError) {
    const headers: Record<string, string> = {};
    if (error.code === 'rate_limited' && typeof error.details.retry_after === 'number') {
      headers['retry-after'] = String(error.details.retry_after);
    }
    if (error.code === 'method_not_allowed' && Array.isArray(error.details.allow)) headers.allow = error.details.allow.join(', ');
    if (error.code === 'upgrade_required') headers.upgrade = 'websocket';
    // Every 401 names the scheme that would be accepted (RFC 9110 §11.6.1).
    if (error.status === 401) headers['www-authenticate'] = error.challenge;
    return { status: error.status, body: errorBody(error.code, error.message, error.details), headers };
  }
  switch (code) {
    case 'VALIDATION': {
      const { details, message } = refusedShape(error);
      if (details.in === 'response') {
        // An answer that breaks its own documented schema is our bug, not the caller's: Elysia
        // would answer 422 and echo the answer (which may hold a key or a secret).
        log?.error('a response did not match its documented schema', { ...routeOf(request), errors: details.errors });
        return { status: 500, body: errorBody('internal_error', 'an internal error occurred', {}) };
      }
      return { status: 400, body: errorBody('validation_error', message, details) };
    }
    case 'PARSE':
      return { status: 400, body: errorBody('validation_error', 'the request body could not be parsed', {}) };
    case 'NOT_FOUND':
      return { status: 404, body: errorBody('not_found', 'no such endpoint', {}) };
    case 'INVALID_COOKIE_SIGNATURE':
      return { status: 400, body: errorBody('validation_error', 'invalid cookie', {}) };
    default: {
      const status = typeof (error as { status?: unknown })?.status === 'number' ? (error as { status: number }).status : 500;
      if (status === 413) return { status, body: errorBody('payload_too_large', 'the request body is too large', {}) };
      if (status < 500 && status >= 400) {
        return { status, body: errorBody(status === 404 ? 'not_found' : 'validation_error', error instanceof Error ? error.message : 'bad request', {}) };
      }
      if (databaseErrorCode(error)) {
        // The database is unavailable or busy: a retry is the right answer, not a bug report.
        log?.error('the database failed during a request', { ...routeOf(request), error: describeError(error) });
        return { status: 503, body: errorBody('unavailable', 'the database is unavailable; try again', {}), headers: { 'retry-after': '1' } };
      }
      log?.error('unhandled error in a request', { ...routeOf(request), error: describeError(error) });
      return { status: 500, body: errorBody('internal_error', 'an internal error occurred', {}) };
    }
  }
}

/**
 * Answers made by the API's error hooks, so that a mapResponse after them leaves them as they are.
 * One set for every router: a router used inside another (`.use()`) runs the outer one's hooks
 * on its routes too, and the outer mapResponse answered (and logged) a refusal the inner onError
 * had answered already, so each was logged twice under one request id.
 */
const API_ANSWERS = new WeakSet<Response>();

/** What Elysia hands a route's mapResponse hook: the context, and while it answers an error, that error and its code. */
interface AnswerContext extends Omit<ElysiaErrorLike, 'code' | 'error'> {
  code?: string | number;
  error?: unknown;
  response?: unknown;
}

/**
 * The API's error answers as local hooks (`onError` and `mapResponse`), whatever onError a host
 * registered before `.use(plugin)`. Elysia runs a route's onError hooks in the order they were
 * registered, the host's before the plugin's, and answers with the first that returns anything:
 * a host's onError registered first (Elysia's ordinary pattern) answered every refusal of the
 * API in the host's shape (`500 {"hostError":"unauthorized"}` for a 401). After each onError
 * hook, Elysia passes what it returned through the route's mapResponse hooks (the `catch` of
 * its composed handler, elysia/dist/compose): there, this one puts the API's own answer in its
 * place. The host's onError still sees the error (its logging keeps working); the answer is the
 * API's. On an ordinary answer (no error) the mapResponse hook returns nothing and changes nothing.
 */
export function apiErrorAnswers(log?: Logger) {
  const answer = handleApiError(log);
  // Destructured: Elysia reads from a hook's parameters what to prepare for every route (its
  // "sucrose"), and a hook passing the whole context on would make each one parse its cookies and query.
  const answerOnce = ({ code, error, request, set }: ElysiaErrorLike): Response => {
    const response = answer({ code, error, request, set });
    API_ANSWERS.add(response);
    return response;
  };
  return {
    onError: answerOnce,
    mapResponse: ({ code, error, request, set, response }: AnswerContext): Response | undefined => {
      // Elysia sets `code` on the context only while it answers an error.
      if (code === undefined) return undefined;
      if (response instanceof Response && API_ANSWERS.has(response)) return undefined;
      return answerOnce({ code, error, request, set });
    },
  };
}

/** The onError hook body shared by every API router. */
export function handleApiError(log?: Logger) {
  return ({ code, error, request }: ElysiaErrorLike) => {
    // A request refused before the plugin's first hook (an unreadable body) still gets its id.
    const requestId = request ? enterRequestContext(request) : null;
    const { status, body, headers } = toErrorResponse(code, error, log, request);
    // One line per refused request (a 5xx was logged with its cause above): the line an operator
    // finds by the `request_id` a user reads them from the error.
    if (status < 500) log?.info('request refused', { ...routeOf(request), status, code: body.error.code });
    return new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}), ...(headers ?? {}) },
    });
  };
}
