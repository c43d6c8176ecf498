/**
 * The request a piece of work is done for: every HTTP request gets an id (the caller's
 * `x-request-id` when it is a plain token, else a new UUID), echoed in the answer, written in
 * every log line made while serving it and in every error body (`error.request_id`), so an
 * operator can tie the error a user reports to the server's log.
 *
 * Carried by AsyncLocalStorage rather than passed through every call: the log lines that matter
 * are written deep in services that know nothing of HTTP.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const REQUEST_ID_HEADER = 'x-request-id';

/** What a caller may choose as its id: what proxies and tracing systems send, nothing that could forge a log line. */
const SAFE_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

const storage = new AsyncLocalStorage<{ requestId: string }>();

/** The caller's id when it is safe to echo and log, else a new one. */
export function requestIdFrom(headers: Headers): string {
  const given = headers.get(REQUEST_ID_HEADER)?.trim();
  return given && SAFE_ID.test(given) ? given : crypto.randomUUID();
}

/** Runs `work` as part of the request `requestId`. */
export function inRequestContext<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

/**
 * The id of the request being served, entering its context first when it has none yet: Bun
 * routes static paths itself, past any wrapper of `fetch`, so a hook at the start of the
 * plugin's routes enters it (`enterWith` holds for the rest of that request's work).
 */
export function enterRequestContext(headers: Headers): string {
  const current = storage.getStore();
  if (current) return current.requestId;
  const requestId = requestIdFrom(headers);
  storage.enterWith({ requestId });
  return requestId;
}

/** The id of the request being served, or null outside one (jobs, workers, start-up). */
export function currentRequestId(): string | null {
  return storage.getStore()?.requestId ?? null;
}
